#pragma once
/// @file
/// The JSON form of a mapping study and of a `gridlock map` run (`gridlock map --json`,
/// docs/formats/map-json.md).

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

/// The context block of `gridlock map --json`: the base context, the seed and the `parameters`
/// (topology, nodes, cores per node, tasks, the chosen method, the metrics' source and the options
/// of `parameters`).
[[nodiscard]] Json map_context(const MapParameters& parameters, const MapResult& result,
                               const Machine& machine, const TaskGraph& graph);

/// The body of `gridlock map --json`: the task graph's summary, the metrics' source and fetch
/// time, the chosen method and study_json() with the chosen row's placement.
[[nodiscard]] Json map_body(const MapResult& result, const Machine& machine, const TaskGraph& graph);

}  // namespace gridlock::mapping
