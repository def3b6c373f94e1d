#pragma once
/// @file
/// JSON form of a task graph's summary (the `task_graph` block of `gridlock map` outputs).
#include "gridlock/core/output.hpp"
#include "gridlock/mapping/task_graph.hpp"

namespace gridlock::mapping {

/// Summary: spec, number of tasks and messages, total bytes, whether the graph has coordinates.
[[nodiscard]] Json summary_json(const TaskGraph& graph);

}  // namespace gridlock::mapping
