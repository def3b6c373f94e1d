#pragma once
/// @file
/// The JSON form of a noise measurement's summary (`gridlock noise measure --json`,
/// `gridlock-bench noise`; docs/noise.md).

#include "gridlock/core/output.hpp"
#include "gridlock/noise/measure.hpp"

namespace gridlock::noise {

/// The summary as JSON (all numbers, units in names).
[[nodiscard]] Json summary_json(const NoiseSummary& s);

}  // namespace gridlock::noise
