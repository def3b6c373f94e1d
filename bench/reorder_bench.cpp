// Cost of planning one reorder of an MPI topology call (issue 40: at most 50 ms at 1,024 ranks and
// 2 s at 16,384), the mapping path alone: mapping::plan_reorder() for a Cartesian grid (geometric)
// and for the same grid given as a graph (Scotch), launched round-robin over the nodes (the
// launcher's `--map-by node`), on one switch (no topology) and on a torus.
// Usage: reorder_bench [--runs N] [--skip-large]. One line per case: median and min of N runs,
// the cost change under hops, and the method.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/text.hpp"
#include "gridlock/mapping/reorder.hpp"

namespace {

using namespace gridlock;  // NOLINT(google-build-using-namespace): a benchmark's main

struct Case {
  std::string name;
  std::vector<int> dims;
  std::uint32_t nodes;
  std::uint32_t ranks_per_node;
  std::string topology;  // empty: one switch
  bool as_graph;         // the grid's edges without coordinates: Scotch
};

void run_case(const Case& c, int runs) {
  const std::vector<int> periods(c.dims.size(), 0);
  mapping::TaskGraph graph = mapping::cartesian_task_graph(c.dims, periods);
  if (c.as_graph) {
    graph.coords.clear();
  }
  // Round-robin over the nodes: rank r on node r % nodes.
  std::vector<std::string> hosts;
  hosts.reserve(graph.num_tasks);
  for (std::uint32_t r = 0; r < graph.num_tasks; ++r) {
    hosts.push_back(fmt::format("host{}", r % c.nodes));
  }
  mapping::ReorderConfig config;
  config.topology = c.topology;
  if (!c.topology.empty()) {
    std::string names;
    for (std::uint32_t i = 0; i < c.nodes; ++i) {
      names += fmt::format("{}{}", i == 0 ? "" : ",", i);
    }
    config.nodes = names;
  }
  std::vector<double> times;
  mapping::ReorderPlan plan;
  for (int i = 0; i < runs; ++i) {
    plan = mapping::plan_reorder(graph, hosts, config);
    times.push_back(plan.seconds);
  }
  std::ranges::sort(times);
  const double before = plan.before.cost(mapping::WeightMetric::kHops).value_or(mapping::Cost{}).total;
  const double after = plan.after.cost(mapping::WeightMetric::kHops).value_or(mapping::Cost{}).total;
  fmt::print("{:<44} median {:9.2f} ms  min {:9.2f} ms  hops cost {:+6.1f}%  {} ({})\n", c.name,
             times[times.size() / 2] * 1e3, times.front() * 1e3, mapping::percent_change(after, before),
             plan.method, plan.reordered ? "reordered" : plan.note);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  bool skip_large = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      const std::optional<int> parsed = parse_number<int>(argv[++i]);
      if (!parsed || *parsed < 1 || *parsed > 1000) {
        std::fprintf(stderr, "reorder_bench: --runs takes 1 to 1000\n");
        return 2;
      }
      runs = *parsed;
    } else if (std::strcmp(argv[i], "--skip-large") == 0) {
      skip_large = true;
    } else {
      std::fprintf(stderr, "usage: reorder_bench [--runs N] [--skip-large]\n");
      return 2;
    }
  }
  std::vector<Case> cases{
      {"1,024 ranks, 16x8x8 grid, 64 nodes x 16, one switch", {16, 8, 8}, 64, 16, "", false},
      {"1,024 ranks, as a graph (Scotch), one switch", {16, 8, 8}, 64, 16, "", true},
      {"1,024 ranks, 16x8x8 grid, torus:8x8x8", {16, 8, 8}, 64, 16, "torus:8x8x8", false},
  };
  if (!skip_large) {
    cases.push_back({"16,384 ranks, 32x32x16 grid, 1,024 nodes x 16", {32, 32, 16}, 1024, 16, "", false});
    cases.push_back({"16,384 ranks, as a graph (Scotch), one switch", {32, 32, 16}, 1024, 16, "", true});
  }
  for (const Case& c : cases) {
    run_case(c, runs);
  }
  return 0;
}
