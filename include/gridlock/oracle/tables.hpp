#pragma once
/// @file
/// Text tables of route metrics, as `gridlock oracle query metrics|matrix` prints them: the
/// `| a | b |` style of the other tools, and every numeric column names its unit in its header.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridlock/oracle/oracle.hpp"

namespace gridlock::oracle {

/// The unit of a route metric's value: `links` (hops), `% used` (bw: percent of each link's
/// capacity, combined by the reducer), `% stalled` (stalls: percent of time).
[[nodiscard]] std::string_view metric_unit(Metric metric) noexcept;

/// One row per pair: `| src | dst | reducer | bw (% used) |`; `values[i]` belongs to `pairs[i]`.
/// Throws std::invalid_argument when the sizes differ.
[[nodiscard]] std::string metrics_table(const std::vector<std::pair<std::string, std::string>>& pairs,
                                        Metric metric, Reducer reducer, const std::vector<double>& values);

/// The n x n matrix of `nodes` (row-major `values`, row = source), with the node names as the first
/// column and the header row; the corner names the metric, reducer and unit:
/// `| bw max (% used) | nid00012 | nid00038 |`. Throws std::invalid_argument when the sizes differ.
[[nodiscard]] std::string matrix_table(const std::vector<std::string>& nodes, Metric metric, Reducer reducer,
                                       const std::vector<double>& values);

}  // namespace gridlock::oracle
