#pragma once
/// @file
/// The JSON form of a noise measurement's summary (`gridlock noise measure --json`,
/// `gridlock-bench noise`; docs/noise.md).

#include <string>

#include "gridlock/core/output.hpp"
#include "gridlock/noise/measure.hpp"

namespace gridlock::noise {

/// The summary as JSON (all numbers, units in names).
[[nodiscard]] Json summary_json(const NoiseSummary& s);

/// The context block of `gridlock noise measure`'s files (its JSON, histogram CSV and gridlock
/// trace): the tool's base context, then the timer, CPU, threshold and calibration of `m` and the
/// duration and --max-detours of `options`.
[[nodiscard]] Json measurement_context(const Measurement& m, const MeasureOptions& options);

/// The detour-length histogram of `m` as CSV: `context` as its context block, then
/// `lower_ns,upper_ns,count` rows (histogram_rows()).
[[nodiscard]] std::string histogram_csv(const Json& context, const Measurement& m);

}  // namespace gridlock::noise
