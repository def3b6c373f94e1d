#pragma once
/// @file
/// The JSON form of gridlock-bench's options (the `parameters` of a report's context block,
/// docs/formats/bench-json.md).

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {

/// The options as JSON for the context block (every parameter, including defaults).
[[nodiscard]] Json options_to_json(const Options& options);

}  // namespace gridlock::gpcnet
