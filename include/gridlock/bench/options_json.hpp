#pragma once
/// @file
/// The JSON form of gridlock-bench's options (the `parameters` of a report's context block).

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::bench {

/// The options as JSON for the context block (every parameter, including defaults).
[[nodiscard]] Json options_to_json(const gpcnet::Options& options);

}  // namespace gridlock::bench
