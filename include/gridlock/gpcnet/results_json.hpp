#pragma once
/// @file
/// The JSON body of a gridlock-bench load/network report (docs/formats/bench-json.md).

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/results.hpp"

namespace gridlock::gpcnet {

/// The JSON document body (everything but the context block).
[[nodiscard]] Json report_body(const Report& report);

}  // namespace gridlock::gpcnet
