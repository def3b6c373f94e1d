// Costs of a placement, computed by gridlock for every metric (Scotch's own cost figures are not
// used: Debian's Scotch 7.0.3 gets deco-architecture terminal domains off by one in mapView).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/mapping/mapping.hpp"

namespace gridlock::mapping {

void check_placement(const Placement& placement, std::uint32_t num_tasks, std::uint32_t num_cores) {
  if (placement.size() != num_tasks) {
    throw InputError(fmt::format("a placement of {} tasks was given for a graph of {} tasks",
                                 placement.size(), num_tasks));
  }
  std::vector<std::uint32_t> owner(num_cores, UINT32_MAX);
  for (std::uint32_t t = 0; t < num_tasks; ++t) {
    const auto core = placement[t];
    if (core >= num_cores) {
      throw InputError(
          fmt::format("task {} is placed on core {}, but the allocation has {} cores", t, core, num_cores));
    }
    if (owner[core] != UINT32_MAX) {
      throw InputError(fmt::format("tasks {} and {} are both placed on core {}", owner[core], t, core));
    }
    owner[core] = t;
  }
}

std::optional<Cost> CostRow::cost(WeightMetric metric) const {
  for (const auto& [m, c] : costs) {
    if (m == metric) {
      return c;
    }
  }
  return std::nullopt;
}

CostRow evaluate_placement(const TaskGraph& graph, const Machine& machine, const Placement& placement,
                           std::string mapping_name) {
  check_placement(placement, graph.num_tasks, machine.allocation().num_cores());
  CostRow row;
  row.mapping = std::move(mapping_name);
  std::vector<WeightMetric> metrics;
  for (const auto metric : kAllWeightMetrics) {
    if (machine.has(metric)) {
      metrics.push_back(metric);
    }
  }
  std::vector<Cost> costs(metrics.size());
  const Allocation& allocation = machine.allocation();
  double hop_bytes = 0;
  for (const auto& message : graph.messages) {
    const auto core_a = placement[message.src];
    const auto core_b = placement[message.dst];
    const auto bytes = static_cast<double>(message.bytes);
    const auto node_a = allocation.node_of_core(core_a);
    const auto node_b = allocation.node_of_core(core_b);
    hop_bytes += bytes * machine.hops(node_a, node_b);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      const double cost = bytes * machine.core_weight(metrics[m], core_a, core_b);
      costs[m].total += cost;
      costs[m].max_message = std::max(costs[m].max_message, cost);
    }
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    row.costs.emplace_back(metrics[m], costs[m]);
  }
  row.hop_bytes = hop_bytes;
  return row;
}

double percent_change(double value, double baseline) noexcept {
  if (baseline == 0) {
    return value == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  return 100.0 * (value - baseline) / baseline;
}

}  // namespace gridlock::mapping
