#pragma once
/// @file
/// The JSON of `gridlock predict traffic` (docs/formats/predict-traffic-json.md): schema
/// `gridlock.predict.traffic` version 2, a context block and a body with the latency-load points.
#include "gridlock/core/output.hpp"
#include "gridlock/predict/traffic.hpp"

namespace gridlock::predict {

/// The context block: base_context() plus the network, model, pattern, options and seed.
[[nodiscard]] Json traffic_context(const TrafficReport& report, const TrafficOptions& options);

/// The body: `injection`, `zero_load`, `points` and `saturation`.
[[nodiscard]] Json traffic_body(const TrafficReport& report);

}  // namespace gridlock::predict
