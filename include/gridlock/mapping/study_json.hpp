#pragma once
/// @file
/// The JSON form of a mapping study (the `mappings` of `gridlock map --json`, docs/formats/map-json.md).

#include <cstddef>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/mapping/study.hpp"

namespace gridlock::mapping {

/// The study as JSON: per row the method, costs (total, max message, changes in %), hop-bytes,
/// time, Scotch's report, and the placement (`core`, `node`, `slot` per task) for the rows whose
/// index is in `with_placement`.
[[nodiscard]] Json study_json(const Study& study, const Machine& machine,
                              const std::vector<std::size_t>& with_placement);

}  // namespace gridlock::mapping
