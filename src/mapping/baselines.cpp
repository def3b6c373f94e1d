// The placements the paper compares Scotch with: MPI's default (identity), round-robin, random,
// and geometric mapping (MJ's idea: partition task and core coordinates alike).
#include <algorithm>
#include <array>
#include <numeric>
#include <span>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/mapping/mapping.hpp"

namespace gridlock::mapping {
namespace {

void check_fits(std::uint32_t num_tasks, const Allocation& allocation) {
  if (num_tasks > allocation.num_cores()) {
    throw InputError(
        fmt::format("{} tasks do not fit on {} cores ({} nodes x {} cores): allocate more nodes or "
                    "give --cores-per-node",
                    num_tasks, allocation.num_cores(), allocation.num_nodes(), allocation.cores_per_node));
  }
}

using Point = std::array<double, 3>;

// The dimension along which `items` spread the most.
std::size_t widest_dimension(std::span<const std::uint32_t> items, const std::vector<Point>& at) {
  Point lo{at[items[0]]};
  Point hi{at[items[0]]};
  for (const auto i : items) {
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], at[i][d]);
      hi[d] = std::max(hi[d], at[i][d]);
    }
  }
  std::size_t best = 0;
  for (std::size_t d = 1; d < 3; ++d) {
    if (hi[d] - lo[d] > hi[best] - lo[best]) {
      best = d;
    }
  }
  return best;
}

void sort_along(std::span<std::uint32_t> items, const std::vector<Point>& at) {
  const auto d = widest_dimension(items, at);
  // Ties keep index order, so cores of one node (same coordinates) stay together.
  std::sort(items.begin(), items.end(), [&](std::uint32_t a, std::uint32_t b) {
    return at[a][d] != at[b][d] ? at[a][d] < at[b][d] : a < b;
  });
}

// Recursive coordinate bisection of tasks and cores together: both halves of the cores get the
// share of tasks that their size calls for.
void bisect(std::span<std::uint32_t> tasks, const std::vector<Point>& task_at, std::span<std::uint32_t> cores,
            const std::vector<Point>& core_at, Placement& out) {
  if (tasks.empty()) {
    return;
  }
  if (cores.size() == 1 || tasks.size() == 1) {
    if (tasks.size() == 1 && cores.size() > 1) {
      sort_along(cores, core_at);
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      out[tasks[i]] = cores[i];
    }
    return;
  }
  sort_along(cores, core_at);
  sort_along(tasks, task_at);
  const std::size_t core_left = (cores.size() + 1) / 2;
  std::size_t task_left = (tasks.size() * core_left + cores.size() / 2) / cores.size();
  task_left = std::min(task_left, core_left);
  task_left = std::max(task_left, tasks.size() - std::min(tasks.size(), cores.size() - core_left));
  bisect(tasks.first(task_left), task_at, cores.first(core_left), core_at, out);
  bisect(tasks.subspan(task_left), task_at, cores.subspan(core_left), core_at, out);
}

}  // namespace

Placement identity_placement(std::uint32_t num_tasks, const Allocation& allocation) {
  check_fits(num_tasks, allocation);
  Placement out(num_tasks);
  std::iota(out.begin(), out.end(), 0U);
  return out;
}

Placement cyclic_placement(std::uint32_t num_tasks, const Allocation& allocation) {
  check_fits(num_tasks, allocation);
  const std::uint32_t nodes = allocation.num_nodes();
  Placement out(num_tasks);
  for (std::uint32_t t = 0; t < num_tasks; ++t) {
    out[t] = (t % nodes) * allocation.cores_per_node + t / nodes;
  }
  return out;
}

Placement random_placement(std::uint32_t num_tasks, const Allocation& allocation, std::uint64_t seed) {
  check_fits(num_tasks, allocation);
  std::vector<std::uint32_t> cores(allocation.num_cores());
  std::iota(cores.begin(), cores.end(), 0U);
  Rng rng(seed);
  shuffle(std::span<std::uint32_t>(cores), rng);
  cores.resize(num_tasks);
  return cores;
}

Placement geometric_placement(const TaskGraph& graph, const Machine& machine) {
  const Allocation& allocation = machine.allocation();
  check_fits(graph.num_tasks, allocation);
  std::vector<Point> task_at(graph.num_tasks);
  for (std::uint32_t t = 0; t < graph.num_tasks; ++t) {
    task_at[t] =
        graph.coords.size() == graph.num_tasks ? graph.coords[t] : Point{static_cast<double>(t), 0, 0};
  }
  const auto& topology = machine.topology();
  std::vector<Point> core_at(allocation.num_cores());
  for (std::uint32_t c = 0; c < allocation.num_cores(); ++c) {
    const auto node = allocation.nodes[allocation.node_of_core(c)];
    const auto& coords = topology.routers()[topology.nodes()[node].router].coords;
    Point p{0, 0, 0};
    for (std::size_t d = 0; d < std::min<std::size_t>(3, coords.size()); ++d) {
      p[d] = coords[d];
    }
    core_at[c] = p;
  }
  std::vector<std::uint32_t> tasks(graph.num_tasks);
  std::iota(tasks.begin(), tasks.end(), 0U);
  std::vector<std::uint32_t> cores(allocation.num_cores());
  std::iota(cores.begin(), cores.end(), 0U);
  Placement out(graph.num_tasks);
  bisect(tasks, task_at, cores, core_at, out);
  return out;
}

}  // namespace gridlock::mapping
