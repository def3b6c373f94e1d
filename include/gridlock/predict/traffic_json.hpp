#pragma once
/// @file
/// The JSON of `gridlock predict traffic` (docs/formats/predict-traffic-json.md): schema
/// `gridlock.predict.traffic` version 2, a context block and a body with the latency-load points;
/// and the same points as CSV.
#include <string>

#include "gridlock/core/output.hpp"
#include "gridlock/predict/traffic.hpp"

namespace gridlock::predict {

/// The context block: base_context() plus the network, model, pattern, options and seed.
[[nodiscard]] Json traffic_context(const TrafficReport& report, const TrafficOptions& options);

/// The body: `injection`, `zero_load`, `points` and `saturation`.
[[nodiscard]] Json traffic_body(const TrafficReport& report);

/// The points as CSV, one row per offered load in the order run (the columns of the JSON's
/// `points`), after the context block as `# key: value` lines (CsvWriter): for plotting tools and
/// spreadsheets, as network simulators' latency-load curves are usually kept.
[[nodiscard]] std::string traffic_csv(const TrafficReport& report, const Json& context);

}  // namespace gridlock::predict
