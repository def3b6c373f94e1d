// Machine weights, costs, baselines, Scotch placements and launcher files, on small cases whose
// figures are computed by hand.
#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/mapping/machine.hpp"
#include "gridlock/mapping/mapping.hpp"
#include "gridlock/mapping/study.hpp"
#include "gridlock/mapping/study_json.hpp"
#include "gridlock/oracle/metric_store.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::mapping {
namespace {

using ::testing::HasSubstr;

// The paper's 16 application nodes on its 2x2x8 Gemini torus.
const std::vector<std::string> kPaperNodes{
    "nid00017", "nid00018", "nid00019", "nid00024", "nid00032", "nid00033", "nid00034", "nid00035",
    "nid00039", "nid00041", "nid00043", "nid00044", "nid00045", "nid00049", "nid00050", "nid00051"};

// Hand-made metrics for three nodes: nodes 0 and 1 share a router; node 2 is 3 hops away with a
// route whose worst link is 40% used and stalled 25% of the time.
struct SmallMachine {
  std::unique_ptr<topo::Topology> topology = topo::make_topology("torus:1x1x8");
  Machine machine;
  static Machine make(const topo::Topology& t) {
    // nid00000 and nid00001 share router (0,0,0); nid00006 is on (0,0,3): 3 hops.
    Allocation allocation = make_allocation(t, {"nid00000", "nid00001", "nid00006"}, 2);
    NodeMetrics metrics;
    metrics.num_nodes = 3;
    metrics.hops = {0, 0, 3, 0, 0, 3, 3, 3, 0};
    metrics.bw_pct = {0, 0, 40, 0, 0, 40, 40, 40, 0};
    metrics.stall_pct = {0, 0, 25, 0, 0, 25, 25, 25, 0};
    return Machine(t, std::move(allocation), std::move(metrics));
  }
  SmallMachine() : machine(make(*topology)) {}
};

TEST(Machine, WeightsFollowThePaperRule) {
  const SmallMachine s;
  const Machine& m = s.machine;
  ASSERT_EQ(s.topology->nodes()[m.allocation().nodes[0]].router,
            s.topology->nodes()[m.allocation().nodes[1]].router);
  // Cores 0,1 on node 0; 2,3 on node 1 (same router); 4,5 on node 2.
  EXPECT_EQ(m.core_weight(WeightMetric::kHops, 0, 0), 0);
  EXPECT_EQ(m.core_weight(WeightMetric::kHops, 0, 1), 1);
  EXPECT_EQ(m.core_weight(WeightMetric::kHops, 0, 2), 2);
  EXPECT_EQ(m.core_weight(WeightMetric::kHops, 0, 4), 2 + 3);
  EXPECT_EQ(m.core_weight(WeightMetric::kBandwidth, 0, 4), 2 + 40);
  EXPECT_EQ(m.core_weight(WeightMetric::kStalls, 5, 3), 2 + 25);
  EXPECT_DOUBLE_EQ(m.core_weight(WeightMetric::kHopsStalls, 0, 4), 2 + 3 + 0.1 * 25);
  // The paper's "No Metric": uniform weights.
  EXPECT_EQ(m.core_weight(WeightMetric::kNone, 0, 1), 1);
  EXPECT_EQ(m.core_weight(WeightMetric::kNone, 0, 4), 1);
}

TEST(Machine, MetricsNotFetchedAreRefused) {
  const auto t = topo::make_topology("torus:1x1x8");
  NodeMetrics metrics;
  metrics.num_nodes = 2;
  metrics.hops = {0, 2, 2, 0};
  const Machine m(*t, make_allocation(*t, {"nid00000", "nid00004"}, 1), metrics);
  EXPECT_TRUE(m.has(WeightMetric::kHops));
  EXPECT_FALSE(m.has(WeightMetric::kStalls));
  EXPECT_THROW((void)m.node_weight(WeightMetric::kStalls, 0, 1), InputError);
}

TEST(Cost, TotalsAndWorstMessageByHand) {
  const SmallMachine s;
  // Task 0 sends 100 B to task 1 and 10 B to task 2; task 2 sends 1000 B to task 0.
  const TaskGraph g = make_task_graph(3, {{0, 1, 100}, {0, 2, 10}, {2, 0, 1000}}, "test");
  // Placement: task 0 on core 0, task 1 on core 1 (same node), task 2 on core 4 (far node).
  const CostRow row = evaluate_placement(g, s.machine, {0, 1, 4}, "hand");
  const Cost hops = *row.cost(WeightMetric::kHops);
  EXPECT_DOUBLE_EQ(hops.total, 100 * 1 + 10 * 5 + 1000 * 5);
  EXPECT_DOUBLE_EQ(hops.max_message, 1000 * 5);
  const Cost stalls = *row.cost(WeightMetric::kStalls);
  EXPECT_DOUBLE_EQ(stalls.total, 100 * 1 + 10 * 27 + 1000 * 27);
  EXPECT_DOUBLE_EQ(row.hop_bytes, 10 * 3 + 1000 * 3);
  // Moving task 2 next to task 0's router halves nothing but the far weight: 2 instead of 5.
  const CostRow near = evaluate_placement(g, s.machine, {0, 1, 2}, "near");
  EXPECT_DOUBLE_EQ(near.cost(WeightMetric::kHops)->total, 100 + 10 * 2 + 1000 * 2);
  EXPECT_DOUBLE_EQ(near.hop_bytes, 0);
  EXPECT_DOUBLE_EQ(percent_change(50, 100), -50);
  EXPECT_DOUBLE_EQ(percent_change(0, 0), 0);
}

TEST(Placement, ChecksCatchSharedCoresAndRange) {
  EXPECT_NO_THROW(check_placement({2, 0, 1}, 3, 3));
  EXPECT_THROW(check_placement({0, 0}, 2, 3), InputError);
  EXPECT_THROW(check_placement({0, 3}, 2, 3), InputError);
  EXPECT_THROW(check_placement({0}, 2, 3), InputError);
}

TEST(Baselines, IdentityCyclicRandomGeometricAreInjective) {
  const SmallMachine s;
  const Allocation& a = s.machine.allocation();
  EXPECT_EQ(identity_placement(5, a), (Placement{0, 1, 2, 3, 4}));
  // Round-robin over 3 nodes of 2 cores: node 0 slot 0, node 1 slot 0, node 2 slot 0, node 0 slot 1 ...
  EXPECT_EQ(cyclic_placement(5, a), (Placement{0, 2, 4, 1, 3}));
  const auto r1 = random_placement(6, a, 7);
  EXPECT_EQ(r1, random_placement(6, a, 7));
  EXPECT_NO_THROW(check_placement(r1, 6, 6));
  const TaskGraph g = stencil3d({3, 2, 1}, 8, false);
  const auto geo = geometric_placement(g, s.machine);
  EXPECT_NO_THROW(check_placement(geo, 6, 6));
  EXPECT_THAT([&] { (void)identity_placement(7, a); }, ::testing::Throws<InputError>());
}

// The paper's setup with the paper's congestion (sim:paper, flows at line rate).
struct PaperSetup {
  std::unique_ptr<topo::Topology> topology = topo::make_topology("torus:2x2x8");
  Machine machine = make(*topology);
  TaskGraph graph = stencil3d({4, 4, 4}, kDefaultStencilBytes, false);
  static Machine make(const topo::Topology& t) {
    Allocation allocation = make_allocation(t, kPaperNodes, 4);
    NodeMetrics metrics = fetch_node_metrics(t, allocation, "sim:paper", MetricNeeds{true, true});
    return Machine(t, std::move(allocation), std::move(metrics));
  }
};

TEST(Scotch, LibraryMatchesTheHeader) { EXPECT_NO_THROW(check_scotch_library()); }

TEST(Scotch, PlacementIsAPermutationAndDeterministic) {
  const PaperSetup p;
  ScotchOptions options;
  options.seed = 3;
  ScotchReport report;
  const Placement a = scotch_placement(p.graph, p.machine, WeightMetric::kStalls, options, &report);
  EXPECT_NO_THROW(check_placement(a, 64, 64));
  EXPECT_EQ(report.levels, "cores");
  EXPECT_EQ(report.architecture, "deco");
  EXPECT_EQ(report.terminals, 64U);
  EXPECT_EQ(a, scotch_placement(p.graph, p.machine, WeightMetric::kStalls, options));
}

TEST(Scotch, TwoLevelsKeepEveryNodeFull) {
  const PaperSetup p;
  ScotchOptions options;
  options.levels = Levels::kNodes;
  ScotchReport report;
  const Placement a = scotch_placement(p.graph, p.machine, WeightMetric::kHops, options, &report);
  EXPECT_EQ(report.levels, "nodes");
  EXPECT_EQ(report.terminals, 16U);
  EXPECT_NO_THROW(check_placement(a, 64, 64));
}

TEST(Scotch, FewerTasksThanCoresLeaveCoresEmpty) {
  const PaperSetup p;
  const TaskGraph small = stencil3d({3, 3, 3}, 100, false);
  for (const auto levels : {Levels::kCores, Levels::kNodes}) {
    ScotchOptions options;
    options.levels = levels;
    const Placement a = scotch_placement(small, p.machine, WeightMetric::kHops, options);
    EXPECT_NO_THROW(check_placement(a, 27, 64));
  }
}

TEST(Scotch, MoreTasksThanCoresAreRefused) {
  const PaperSetup p;
  const TaskGraph big = stencil3d({5, 4, 4}, 100, false);
  try {
    (void)scotch_placement(big, p.machine, WeightMetric::kHops);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("80 tasks do not fit on 64 cores"));
  }
}

// The paper's finding, as costs: mapping with the congestion metric avoids the congested links, and
// mapping with no metric is worse on hops than mapping with hops.
TEST(Scotch, PaperFindingsHoldOnThePaperSetup) {
  const PaperSetup p;
  const Placement identity = identity_placement(64, p.machine.allocation());
  const auto cost = [&](const Placement& placement, WeightMetric metric) {
    return evaluate_placement(p.graph, p.machine, placement, "x").cost(metric)->total;
  };
  const double identity_stalls = cost(identity, WeightMetric::kStalls);
  const Placement stalls = scotch_placement(p.graph, p.machine, WeightMetric::kStalls);
  EXPECT_LT(cost(stalls, WeightMetric::kStalls), 0.5 * identity_stalls);
  const Placement none = scotch_placement(p.graph, p.machine, WeightMetric::kNone);
  const Placement hops = scotch_placement(p.graph, p.machine, WeightMetric::kHops);
  EXPECT_LT(cost(hops, WeightMetric::kHops), cost(none, WeightMetric::kHops));
  ScotchOptions refine;
  refine.refine = true;
  const Placement refined = scotch_placement(p.graph, p.machine, WeightMetric::kStalls, refine);
  EXPECT_LE(cost(refined, WeightMetric::kStalls), cost(stalls, WeightMetric::kStalls));
}

TEST(LaunchFiles, EachFormatReadsBackToThePlacement) {
  const PaperSetup p;
  const Placement placement = scotch_placement(p.graph, p.machine, WeightMetric::kHops);
  const Allocation& a = p.machine.allocation();
  const std::string rankfile = write_rankfile(placement, a);
  EXPECT_THAT(rankfile, HasSubstr("rank 0="));
  EXPECT_EQ(std::count(rankfile.begin(), rankfile.end(), '\n'), 64);
  EXPECT_EQ(read_rankfile(rankfile, a), placement);
  const std::string hostfile = write_slurm_hostfile(placement, a);
  // A hostfile names nodes only: it reads back to the same node of every rank.
  const Placement from_hostfile = read_slurm_hostfile(hostfile, a);
  for (std::size_t r = 0; r < placement.size(); ++r) {
    EXPECT_EQ(a.node_of_core(from_hostfile[r]), a.node_of_core(placement[r])) << "rank " << r;
  }
  EXPECT_EQ(read_mpich_rank_order(write_mpich_rank_order(placement, a), a), placement);
}

TEST(LaunchFiles, MalformedFilesAreRefusedWithTheirLine) {
  const SmallMachine s;
  const Allocation& a = s.machine.allocation();
  const auto message = [&](const std::string& text) {
    try {
      (void)read_rankfile(text, a, "rf");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("rank 0=nid00000 slot=0\nrank 1=nid99 slot=0\n"), HasSubstr("rf:2: host 'nid99'"));
  EXPECT_THAT(message("rank 0=nid00000 slot=2\n"), HasSubstr("slot 2 is beyond"));
  EXPECT_THAT(message("rank 0=nid00000 slot=0\nrank 0=nid00001 slot=0\n"), HasSubstr("placed twice"));
  EXPECT_THAT(message("rank 1=nid00000 slot=0\n"), HasSubstr("rank 0 is missing"));
  EXPECT_THAT(message("rank 4000000000=nid00000 slot=0\n"), HasSubstr("beyond the allocation"));
  EXPECT_THAT(message("rank x=nid00000 slot=0\n"), HasSubstr("bad rank number"));
  EXPECT_THROW((void)read_mpich_rank_order("0,1,2,3,4,5,6\n", a), InputError);
  EXPECT_THROW((void)read_mpich_rank_order("3-1\n", a), InputError);
  // MPICH_RANK_ORDER cannot say "leave this core empty".
  EXPECT_THROW((void)write_mpich_rank_order({0, 1}, a), InputError);
}

TEST(Study, IdentityComesFirstAndChangesAreAgainstIt) {
  const PaperSetup p;
  const Study study = run_study(p.graph, p.machine, comparison_methods(p.machine), StudyOptions{});
  ASSERT_GE(study.rows.size(), 8U);
  EXPECT_EQ(study.rows[0].method.name(), "identity");
  std::set<std::string> names;
  for (const auto& row : study.rows) {
    names.insert(row.method.name());
  }
  EXPECT_EQ(names.size(), study.rows.size()) << "identity repeated";
  EXPECT_TRUE(names.count("scotch:stalls") == 1 && names.count("geometric") == 1);
  const Json json = study_json(study, p.machine, {1});
  EXPECT_EQ(json[0]["costs"]["hops"]["total_change_pct"], 0.0);
  EXPECT_TRUE(json[1].contains("placement"));
  EXPECT_FALSE(json[0].contains("placement"));
  EXPECT_THAT(study_table(study), HasSubstr("| scotch:stalls"));
  EXPECT_EQ(parse_method("scotch:bw", WeightMetric::kHops).metric, WeightMetric::kBandwidth);
  EXPECT_THROW((void)parse_method("metis", WeightMetric::kHops), InputError);
  EXPECT_THROW((void)parse_weight_metric("stall"), InputError);
}

// The run-level helpers `gridlock map` used to hold: --levels, the chosen row, the fit check and
// when the whole topology must be built.
TEST(MapRun, LevelsRowOfFitAndWholeTopology) {
  EXPECT_EQ(parse_levels("auto"), Levels::kAuto);
  EXPECT_EQ(parse_levels("cores"), Levels::kCores);
  EXPECT_EQ(parse_levels("nodes"), Levels::kNodes);
  EXPECT_THAT([] { (void)parse_levels("Nodes"); },
              ::testing::ThrowsMessage<InputError>(HasSubstr("--levels 'Nodes': use auto, cores")));
  const SmallMachine m;
  const TaskGraph graph = parse_task_graph("alltoall:6");
  EXPECT_NO_THROW(check_tasks_fit(graph, m.machine.allocation()));
  EXPECT_THAT([&] { check_tasks_fit(parse_task_graph("alltoall:7"), m.machine.allocation()); },
              ::testing::ThrowsMessage<InputError>(HasSubstr(
                  "7 tasks (alltoall:7,bytes=20000) do not fit on 6 cores (3 nodes x 2 cores per node)")));
  const Study study =
      run_study(graph, m.machine, {parse_method("cyclic", WeightMetric::kHops)}, StudyOptions{});
  ASSERT_EQ(study.rows.size(), 2U);
  EXPECT_EQ(row_of(study, parse_method("cyclic", WeightMetric::kHops)), 1U);
  EXPECT_EQ(row_of(study, parse_method("random", WeightMetric::kHops)), 0U);
  EXPECT_FALSE(needs_whole_topology("sim:none", MetricNeeds{true, true}));
  EXPECT_FALSE(needs_whole_topology("oracle:http://127.0.0.1:1", MetricNeeds{}));
  EXPECT_TRUE(needs_whole_topology("oracle:http://127.0.0.1:1", MetricNeeds{false, true}));
  EXPECT_TRUE(needs_whole_topology("sim:paper", MetricNeeds{}));
}

// The report and JSON of a map run (moved from the CLI): summary lines, the table, the JSON's
// parameters in their order and the chosen row's placement.
TEST(MapRun, ReportTextAndJson) {
  const SmallMachine m;
  const TaskGraph graph = parse_task_graph("alltoall:6");
  MapResult result;
  result.study = run_study(graph, m.machine, {parse_method("cyclic", WeightMetric::kHops)}, StudyOptions{});
  result.chosen = 1;
  result.source = "sim:test";
  result.fetch_seconds = 0.5;
  const std::string text = map_report_text(result, m.machine, graph, 7);
  EXPECT_THAT(text,
              HasSubstr("; 3 nodes x 2 cores; tasks alltoall:6,bytes=20000 (30 messages, 600000 bytes)\n"));
  EXPECT_THAT(text,
              HasSubstr("Link metrics from sim:test in 0.500 s; placement by cyclic (seed 7)\n\nTotal cost"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("bw and stalls columns need")));
  MapParameters parameters;
  parameters.seed = 7;
  const Json context = map_context(parameters, result, m.machine, graph);
  EXPECT_EQ(context["tool"], "gridlock map");
  EXPECT_EQ(context["seed"], 7);
  std::vector<std::string> keys;
  for (const auto& item : context["parameters"].items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"topology", "nodes", "cores_per_node", "tasks", "metric", "method",
                                      "source", "sim_rate", "timeout_s", "levels", "two_level_above",
                                      "architecture", "stall_weight", "compare", "refine", "tries"}));
  EXPECT_EQ(context["parameters"]["method"], "cyclic");
  const Json body = map_body(result, m.machine, graph);
  EXPECT_EQ(body["chosen"], "cyclic");
  EXPECT_EQ(body["metrics"]["source"], "sim:test");
  EXPECT_TRUE(body["mappings"][1].contains("placement"));
  EXPECT_FALSE(body["mappings"][0].contains("placement"));
}

}  // namespace
}  // namespace gridlock::mapping
