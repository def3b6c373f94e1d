// Task mapping speed and quality (issue 21): time to map including the metric fetch from a running
// oracle (over loopback, as `gridlock map --source oracle:URL` does), and peak memory, for
//   - the paper's setup: torus:2x2x8, 16 nodes x 4 cores, stencil3d:4x4x4, sim:paper at line rate
//     (targets: <= 5 ms; STALLS cost of the STALLS mapping <= 25% of identity's);
//   - 4,096 tasks: torus:8x8x8 (1,024 nodes) x 4 cores, stencil3d:16x16x16 (target <= 2 s);
//   - 65,536 tasks: torus:16x16x16 (8,192 nodes), 4,096 nodes x 16 cores, stencil3d:64x32x32
//     (targets <= 60 s, <= 4 GB).
// Usage: map_bench [--runs N] [--skip-large]. Prints one line per case: median and min of N runs.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/mapping/mapping.hpp"
#include "gridlock/oracle/oracle.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace {

using namespace gridlock;  // NOLINT(google-build-using-namespace): a benchmark's main

struct Case {
  std::string name;
  std::string topology;
  std::vector<std::string> nodes;
  std::uint32_t cores_per_node;
  mapping::TaskGraph graph;
  mapping::WeightMetric metric;
  bool paper_load;  // sim:paper at line rate; otherwise one random flow per node at 4 GB/s
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_rss_gb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);
}

void run_case(const Case& c, int runs, bool refine) {
  const auto topology = topo::make_topology(c.topology);
  oracle::MetricStore store(*topology);
  std::vector<oracle::Flow> flows;
  if (c.paper_load) {
    oracle::SourceOptions options;
    options.sim_rate = "line";
    oracle::make_source("sim:paper", *topology, options)->poll(store, 1.0);
  } else {
    Rng rng(42);
    const auto n = topology->nodes().size();
    for (std::size_t i = 0; i < n; ++i) {
      flows.push_back({static_cast<topo::NodeId>(uniform_below(rng, n)),
                       static_cast<topo::NodeId>(uniform_below(rng, n)), 4e9});
    }
    oracle::SimulatedLoad(*topology, flows).poll(store, 1.0);
  }
  const oracle::Oracle oracle(*topology, store);
  oracle::ServerOptions server_options;
  server_options.port = 0;
  server_options.threads = 2;
  oracle::Server server(oracle, server_options);
  const int port = server.start();
  const std::string source = fmt::format("oracle:http://127.0.0.1:{}", port);

  std::vector<double> totals;
  std::vector<double> fetches;
  std::vector<double> maps;
  double stalls_ratio = 0;
  std::string levels;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    mapping::Allocation allocation = mapping::make_allocation(*topology, c.nodes, c.cores_per_node);
    mapping::NodeMetrics metrics = mapping::fetch_node_metrics(
        *topology, allocation, source, mapping::needs_of(std::vector<mapping::WeightMetric>{c.metric}));
    const double fetch = seconds_since(start);
    const mapping::Machine machine(*topology, std::move(allocation), std::move(metrics));
    mapping::ScotchOptions options;
    options.refine = refine;
    mapping::ScotchReport report;
    const mapping::Placement placement =
        mapping::scotch_placement(c.graph, machine, c.metric, options, &report);
    const double total = seconds_since(start);
    totals.push_back(total);
    fetches.push_back(fetch);
    maps.push_back(total - fetch);
    levels = fmt::format("{} {} x{} tries", report.levels, report.architecture, report.tries);
    if (run == 0) {
      const auto identity = mapping::identity_placement(c.graph.num_tasks, machine.allocation());
      const auto metric_cost = [&](const mapping::Placement& p) {
        return mapping::evaluate_placement(c.graph, machine, p, "").cost(c.metric)->total;
      };
      stalls_ratio = metric_cost(placement) / metric_cost(identity);
    }
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  fmt::print(
      "| {:<28} | {:>6} | {:>10.4f} | {:>10.4f} | {:>10.4f} | {:>10.4f} | {:>8.3f} | {:>6.2f} | {} |\n",
      c.name + (refine ? " +refine" : ""), c.graph.num_tasks, median(totals),
      *std::min_element(totals.begin(), totals.end()), median(fetches), median(maps), stalls_ratio,
      peak_rss_gb(), levels);
  std::fflush(stdout);
}

std::vector<std::string> first_nodes(const std::string& spec, std::uint32_t count) {
  const auto topology = topo::make_topology(spec);
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < count; ++i) {
    out.push_back(topology->nodes()[i].name);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 11;
  bool skip_large = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));  // NOLINT(cert-err34-c): a benchmark's argument
    } else if (std::strcmp(argv[i], "--skip-large") == 0) {
      skip_large = true;
    }
  }
  fmt::print(
      "| case | tasks | median s | min s | fetch s | map s | cost/identity | peak RSS GB | Scotch |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|\n");
  const std::vector<std::string> paper{"nid00017", "nid00018", "nid00019", "nid00024", "nid00032", "nid00033",
                                       "nid00034", "nid00035", "nid00039", "nid00041", "nid00043", "nid00044",
                                       "nid00045", "nid00049", "nid00050", "nid00051"};
  const Case paper_case{"paper: stalls, 16x4",
                        "torus:2x2x8",
                        paper,
                        4,
                        mapping::stencil3d({4, 4, 4}, mapping::kDefaultStencilBytes, false),
                        mapping::WeightMetric::kStalls,
                        true};
  run_case(paper_case, runs, false);
  run_case(paper_case, runs, true);
  Case hops_case = paper_case;
  hops_case.name = "paper: hops, 16x4";
  hops_case.metric = mapping::WeightMetric::kHops;
  run_case(hops_case, runs, false);
  const Case mid{"4,096 tasks: bw, 1024x4",
                 "torus:8x8x8",
                 first_nodes("torus:8x8x8", 1024),
                 4,
                 mapping::stencil3d({16, 16, 16}, mapping::kDefaultStencilBytes, false),
                 mapping::WeightMetric::kBandwidth,
                 false};
  run_case(mid, std::max(1, runs / 3), false);
  if (!skip_large) {
    const Case large{"65,536 tasks: bw, 4096x16",
                     "torus:16x16x16",
                     first_nodes("torus:16x16x16", 4096),
                     16,
                     mapping::stencil3d({64, 32, 32}, mapping::kDefaultStencilBytes, false),
                     mapping::WeightMetric::kBandwidth,
                     false};
    run_case(large, 1, false);
  }
  return 0;
}
