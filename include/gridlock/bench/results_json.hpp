#pragma once
/// @file
/// The JSON body of a gridlock-bench load/network report (docs/formats/bench-json.md).

#include "gridlock/bench/results.hpp"
#include "gridlock/core/output.hpp"

namespace gridlock::bench {

/// The JSON document body (everything but the context block).
[[nodiscard]] Json report_body(const Report& report);

}  // namespace gridlock::bench
