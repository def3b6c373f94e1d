#pragma once
/// @file
/// The JSON form of gridlock-bench's options (the `parameters` of a report's context block,
/// docs/formats/bench-json.md), both ways.

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {

/// The options as JSON for the context block (every parameter, including defaults).
[[nodiscard]] Json options_to_json(const Options& options);

/// The options a context block's `parameters` describe (the inverse of options_to_json). A key
/// that is absent keeps its default; a key of the wrong type or an unknown name throws InputError
/// naming the key, the value and what is accepted.
[[nodiscard]] Options options_from_json(const Json& parameters);

}  // namespace gridlock::gpcnet
