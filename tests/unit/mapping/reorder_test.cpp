// The MPI-free half of libgridlock-reorder.so: task graphs of MPI topology calls, the
// configuration from the environment, and the plan (mapping/reorder.hpp).
#include "gridlock/mapping/reorder.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/mapping/reorder_json.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::mapping {
namespace {

std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(const TaskGraph& graph) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const Message& m : graph.messages) {
    out.emplace_back(m.src, m.dst);
  }
  return out;
}

TEST(CartesianTaskGraph, RanksAreRowMajorAsMpiNumbersThem) {
  // 2 x 3, not periodic: rank (i, j) = 3i + j; rank 0's neighbours are 1 (j+1) and 3 (i+1).
  const std::vector<int> dims{2, 3};
  const std::vector<int> periods{0, 0};
  const TaskGraph graph = cartesian_task_graph(dims, periods, 100);
  EXPECT_EQ(graph.num_tasks, 6U);
  // Edges: 2 rows x 2 horizontal + 3 vertical, each both ways.
  EXPECT_EQ(graph.messages.size(), 14U);
  const auto p = pairs(graph);
  EXPECT_NE(std::ranges::find(p, std::pair<std::uint32_t, std::uint32_t>{0, 1}), p.end());
  EXPECT_NE(std::ranges::find(p, std::pair<std::uint32_t, std::uint32_t>{0, 3}), p.end());
  EXPECT_EQ(std::ranges::find(p, std::pair<std::uint32_t, std::uint32_t>{0, 2}), p.end());
  EXPECT_EQ(graph.total_bytes(), 1400U);
}

TEST(CartesianTaskGraph, PeriodicDimensionsWrapOncePerDistinctNeighbour) {
  const std::vector<int> periodic{1, 1};
  // 3 x 3 periodic: four distinct neighbours each.
  EXPECT_EQ(cartesian_task_graph(std::vector<int>{3, 3}, periodic).messages.size(), 36U);
  // 2 x 3 periodic: one neighbour along the dimension of 2, two along the other.
  EXPECT_EQ(cartesian_task_graph(std::vector<int>{2, 3}, periodic).messages.size(), 18U);
  // A dimension of 1 adds none; one rank has no messages at all.
  EXPECT_EQ(cartesian_task_graph(std::vector<int>{1, 4}, std::vector<int>{1, 0}).messages.size(), 6U);
  EXPECT_TRUE(cartesian_task_graph(std::vector<int>{1}, std::vector<int>{1}).messages.empty());
}

TEST(CartesianTaskGraph, GridsOfUpToThreeDimensionsCarryCoordinates) {
  const TaskGraph grid = cartesian_task_graph(std::vector<int>{2, 3}, std::vector<int>{0, 0});
  ASSERT_EQ(grid.coords.size(), 6U);
  // Rank 5 = (1, 2) in row-major order.
  EXPECT_EQ(grid.coords[5][0], 1.0);
  EXPECT_EQ(grid.coords[5][1], 2.0);
  EXPECT_EQ(grid.coords[5][2], 0.0);
  EXPECT_TRUE(
      cartesian_task_graph(std::vector<int>{2, 2, 2, 2}, std::vector<int>{0, 0, 0, 0}).coords.empty());
}

TEST(CartesianTaskGraph, BadGridsAreRefused) {
  EXPECT_THROW((void)cartesian_task_graph(std::vector<int>{}, std::vector<int>{}), InputError);
  EXPECT_THROW((void)cartesian_task_graph(std::vector<int>{2, 0}, std::vector<int>{0, 0}), InputError);
  EXPECT_THROW((void)cartesian_task_graph(std::vector<int>{2, -3}, std::vector<int>{0, 0}), InputError);
  EXPECT_THROW((void)cartesian_task_graph(std::vector<int>{2, 2}, std::vector<int>{0}), InputError);
  EXPECT_THROW((void)cartesian_task_graph(std::vector<int>{1 << 12, 1 << 12}, std::vector<int>{0, 0}),
               InputError);
  EXPECT_THROW((void)cartesian_task_graph(std::vector<int>(17, 2), std::vector<int>(17, 0)), InputError);
}

TEST(EdgeTaskGraph, SelfEdgesAreLeftOutAndRepeatsAddUp) {
  const TaskGraph graph = edge_task_graph(3, {{0, 1, 5}, {0, 1, 5}, {1, 1, 7}, {2, 0, 1}}, "graph:3");
  ASSERT_EQ(graph.messages.size(), 2U);
  EXPECT_EQ(graph.messages[0].bytes, 10U);
  EXPECT_TRUE(edge_task_graph(2, {{1, 1, 3}}, "graph:2").messages.empty());
  EXPECT_THROW((void)edge_task_graph(2, {{0, 2, 1}}, "graph:2"), InputError);
}

std::function<std::optional<std::string>(std::string_view)> env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

std::string refusal(const std::map<std::string, std::string>& vars) {
  try {
    (void)reorder_config_from(env(vars));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReorderConfig, ReadsTheEnvironmentAndNamesTheVariableItRefuses) {
  const ReorderConfig config = reorder_config_from(env({{"GRIDLOCK_TOPOLOGY", "torus:4x4x4"},
                                                        {"GRIDLOCK_METRIC", "hops"},
                                                        {"GRIDLOCK_VIRTUAL_NODES", "8"},
                                                        {"GRIDLOCK_REORDER_SEED", "7"}}));
  EXPECT_EQ(config.topology, "torus:4x4x4");
  EXPECT_EQ(config.virtual_nodes, 8U);
  EXPECT_EQ(config.seed, 7U);
  EXPECT_EQ(reorder_config_from(env({})).metric, WeightMetric::kHops);
  EXPECT_NE(refusal({{"GRIDLOCK_METRIC", "latency"}}).find("GRIDLOCK_METRIC"), std::string::npos);
  EXPECT_NE(refusal({{"GRIDLOCK_METRIC", "stalls"}}).find("needs GRIDLOCK_ORACLE"), std::string::npos);
  EXPECT_NE(refusal({{"GRIDLOCK_VIRTUAL_NODES", "0"}}).find("GRIDLOCK_VIRTUAL_NODES='0'"), std::string::npos);
  EXPECT_NE(refusal({{"GRIDLOCK_VIRTUAL_NODES", "two"}}).find("GRIDLOCK_VIRTUAL_NODES"), std::string::npos);
  EXPECT_NE(refusal({{"GRIDLOCK_REORDER_SEED", "-1"}}).find("GRIDLOCK_REORDER_SEED"), std::string::npos);
  EXPECT_EQ(reorder_config_from(env({})).method, ReorderMethod::kAuto);
  EXPECT_EQ(reorder_config_from(env({{"GRIDLOCK_REORDER_METHOD", "Scotch"}})).method, ReorderMethod::kScotch);
  EXPECT_EQ(reorder_config_from(env({{"GRIDLOCK_REORDER_METHOD", "geometric"}})).method,
            ReorderMethod::kGeometric);
  EXPECT_NE(refusal({{"GRIDLOCK_REORDER_METHOD", "treematch"}}).find("GRIDLOCK_REORDER_METHOD='treematch'"),
            std::string::npos);
  EXPECT_NE(refusal({{"GRIDLOCK_NODES", "nid[0-3]"}}).find("GRIDLOCK_TOPOLOGY is not set"),
            std::string::npos);
}

bool is_permutation_of_ranks(const std::vector<std::uint32_t>& order) {
  std::vector<std::uint32_t> sorted = order;
  std::ranges::sort(sorted);
  std::vector<std::uint32_t> ranks(order.size());
  std::iota(ranks.begin(), ranks.end(), 0U);
  return sorted == ranks;
}

TEST(PlanReorder, WithoutATopologyKeepsNeighboursOnANode) {
  // A 2 x 4 grid launched round-robin over two hosts (rank r on host r % 2): all 6 horizontal
  // neighbour pairs cross the network. The best split of the grid into two halves of 4 (two 2 x 2
  // blocks) cuts 2 pairs; the plan must find it.
  const TaskGraph graph = cartesian_task_graph(std::vector<int>{2, 4}, std::vector<int>{0, 0}, 1000);
  std::vector<std::string> hosts;
  hosts.reserve(32);
  for (int r = 0; r < 8; ++r) {
    hosts.push_back(r % 2 == 0 ? "a" : "b");
  }
  const ReorderPlan plan = plan_reorder(graph, hosts, ReorderConfig{});
  ASSERT_TRUE(plan.reordered) << plan.note;
  ASSERT_TRUE(is_permutation_of_ranks(plan.new_rank));
  EXPECT_LT(plan.after.cost(WeightMetric::kHops)->total, plan.before.cost(WeightMetric::kHops)->total);
  // Which host runs each new rank, and how many messages then cross between hosts.
  std::map<std::uint32_t, std::string> host_of_new;
  for (std::uint32_t r = 0; r < 8; ++r) {
    host_of_new[plan.new_rank[r]] = hosts[r];
  }
  const auto crossing = [&graph](const std::map<std::uint32_t, std::string>& host_of) {
    return std::ranges::count_if(
        graph.messages, [&host_of](const Message& m) { return host_of.at(m.src) != host_of.at(m.dst); });
  };
  std::map<std::uint32_t, std::string> launcher;
  for (std::uint32_t r = 0; r < 8; ++r) {
    launcher[r] = hosts[r];
  }
  EXPECT_EQ(crossing(launcher), 12);
  EXPECT_EQ(crossing(host_of_new), 4);
  EXPECT_NE(plan.machine.find("one switch, 2 nodes x 4 ranks"), std::string::npos) << plan.machine;
  EXPECT_EQ(plan.method, "geometric");
}

TEST(PlanReorder, TheMethodSettingChoosesHowAGridIsMapped) {
  // 16 nodes of a 4x4x4 torus named in a scrambled order, one rank each, a 4x4 grid.
  const TaskGraph graph = cartesian_task_graph(std::vector<int>{4, 4}, std::vector<int>{0, 0}, 1000);
  std::vector<std::string> hosts;
  hosts.reserve(16);
  for (int r = 0; r < 16; ++r) {
    hosts.push_back(fmt::format("h{}", r));
  }
  ReorderConfig config;
  config.topology = "torus:4x4x4";
  config.nodes =
      "nid00000,nid00037,nid00010,nid00063,nid00020,nid00005,nid00050,nid00031,nid00002,nid00041,"
      "nid00012,nid00055,nid00024,nid00007,nid00046,nid00029";
  config.method = ReorderMethod::kGeometric;
  const ReorderPlan geometric = plan_reorder(graph, hosts, config);
  EXPECT_EQ(geometric.method, "geometric");
  config.method = ReorderMethod::kScotch;
  const ReorderPlan scotch = plan_reorder(graph, hosts, config);
  EXPECT_EQ(scotch.method, "scotch:hops");
  // auto tries both and keeps the cheaper under the metric.
  config.method = ReorderMethod::kAuto;
  const ReorderPlan best = plan_reorder(graph, hosts, config);
  const auto hops = [](const ReorderPlan& p) { return p.after.cost(WeightMetric::kHops)->total; };
  EXPECT_EQ(hops(best), std::min(hops(geometric), hops(scotch)));
  EXPECT_EQ(best.method, hops(scotch) < hops(geometric) ? "scotch:hops" : "geometric");
  // A graph without coordinates cannot be mapped geometrically: refused, named.
  config.method = ReorderMethod::kGeometric;
  try {
    (void)plan_reorder(edge_task_graph(16, {{0, 15, 100}, {15, 0, 100}}, "graph"), hosts, config);
    ADD_FAILURE() << "geometric accepted a graph without coordinates";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("GRIDLOCK_REORDER_METHOD=geometric needs a Cartesian grid"),
              std::string::npos)
        << e.what();
  }
}

TEST(PlanReorder, GraphsWithoutCoordinatesGoToScotch) {
  // A 4 x 2 x 2 x 2 grid (4-D: no coordinates) launched round-robin over two hosts: the 16 pairs
  // along the last dimension cross; cutting the first dimension in its middle crosses 8.
  const TaskGraph graph =
      cartesian_task_graph(std::vector<int>{4, 2, 2, 2}, std::vector<int>{0, 0, 0, 0}, 1000);
  std::vector<std::string> hosts;
  hosts.reserve(32);
  for (int r = 0; r < 32; ++r) {
    hosts.push_back(r % 2 == 0 ? "a" : "b");
  }
  const ReorderPlan plan = plan_reorder(graph, hosts, ReorderConfig{});
  EXPECT_EQ(plan.method, "scotch:hops");
  ASSERT_TRUE(is_permutation_of_ranks(plan.new_rank));
  EXPECT_LT(plan.after.cost(WeightMetric::kHops)->total, plan.before.cost(WeightMetric::kHops)->total);
}

TEST(PlanReorder, OnATopologyLowersHopBytesOfAScrambledLaunch) {
  // 16 nodes of an 4x4x4 torus, one rank each, named through GRIDLOCK_NODES; the processor names
  // come in a scrambled order, so the launcher's order puts grid neighbours far apart.
  const TaskGraph graph = cartesian_task_graph(std::vector<int>{4, 4}, std::vector<int>{1, 1}, 1000);
  std::vector<std::string> hosts;
  hosts.reserve(32);
  for (int r = 0; r < 16; ++r) {
    hosts.push_back("h" + std::to_string((r * 7) % 16));
  }
  ReorderConfig config;
  config.topology = "torus:4x4x4";
  // The i-th distinct processor name (in rank order) is the i-th node named here.
  std::string nodes;
  for (int i = 0; i < 16; ++i) {
    nodes += (i == 0 ? "" : ",") + std::to_string((i * 5) % 64);
  }
  config.nodes = nodes;
  const ReorderPlan plan = plan_reorder(graph, hosts, config);
  ASSERT_TRUE(plan.reordered) << plan.note;
  ASSERT_TRUE(is_permutation_of_ranks(plan.new_rank));
  EXPECT_LT(plan.after.hop_bytes, plan.before.hop_bytes);
}

TEST(PlanReorder, KeepsTheOrderWhenNothingIsGained) {
  // A line of 8 split in its middle: one pair crosses, the least any split of it can.
  const TaskGraph graph = cartesian_task_graph(std::vector<int>{8}, std::vector<int>{0}, 1000);
  const std::vector<std::string> hosts{"a", "a", "a", "a", "b", "b", "b", "b"};
  const ReorderPlan plan = plan_reorder(graph, hosts, ReorderConfig{});
  EXPECT_FALSE(plan.reordered);
  EXPECT_NE(plan.note.find("costs no more"), std::string::npos) << plan.note;
  for (std::uint32_t r = 0; r < 8; ++r) {
    EXPECT_EQ(plan.new_rank[r], r);
  }
  // No communication, one rank: kept, with the reason.
  const std::vector<std::string> one{"a"};
  EXPECT_NE(plan_reorder(cartesian_task_graph(std::vector<int>{1}, std::vector<int>{0}), one, ReorderConfig{})
                .note.find("one rank"),
            std::string::npos);
}

TEST(PlanReorder, VirtualNodesSplitAHostsRanksAndUnevenHostsAreRefused) {
  const TaskGraph graph = cartesian_task_graph(std::vector<int>{8}, std::vector<int>{1}, 1000);
  const std::vector<std::string> one_host(8, "vm");
  ReorderConfig config;
  config.virtual_nodes = 4;
  const ReorderPlan plan = plan_reorder(graph, one_host, config);
  EXPECT_NE(plan.machine.find("4 nodes x 2 ranks"), std::string::npos) << plan.machine;
  config.virtual_nodes = 3;
  EXPECT_THROW((void)plan_reorder(graph, one_host, config), InputError);
  const std::vector<std::string> uneven{"a", "a", "a", "b", "b", "b", "b", "b"};
  try {
    (void)plan_reorder(graph, uneven, ReorderConfig{});
    ADD_FAILURE() << "uneven hosts accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("host 'b' runs 5"), std::string::npos) << e.what();
  }
  // GRIDLOCK_NODES naming another number of nodes than the job has.
  ReorderConfig named;
  named.topology = "torus:4x4x4";
  named.nodes = "0,1,2";
  EXPECT_THROW(
      (void)plan_reorder(graph, std::vector<std::string>{"a", "a", "b", "b", "c", "c", "d", "d"}, named),
      InputError);
}

TEST(PlanReorder, AnOraclesLinkMetricsMapOnTheWholeTopology) {
  // The oracle numbers links in the whole torus; the plan used to build only the part the
  // allocation's routes use, and refused the oracle's answer ("a link id 185 outside 0..159").
  const std::unique_ptr<topo::Topology> paper = topo::make_topology("torus:2x2x8");
  oracle::Service service(*paper, oracle::ServiceOptions{});
  service.poll_once(1.0);
  oracle::ServerOptions server_options;
  server_options.port = 0;
  oracle::Server server(service, server_options);
  const int port = server.start();
  const TaskGraph graph = cartesian_task_graph(std::vector<int>{2, 2, 2}, std::vector<int>{0, 0, 0}, 1000);
  std::vector<std::string> hosts;
  hosts.reserve(8);
  for (int r = 0; r < 8; ++r) {
    hosts.push_back(fmt::format("h{}", r));
  }
  ReorderConfig config;
  config.topology = "torus:2x2x8";
  config.nodes = "nid00017,nid00045,nid00033,nid00051,nid00024,nid00041,nid00018,nid00049";
  config.oracle = fmt::format("http://127.0.0.1:{}", port);
  config.metric = WeightMetric::kStalls;
  const ReorderPlan plan = plan_reorder(graph, hosts, config);
  server.stop();
  EXPECT_EQ(plan.metric, WeightMetric::kStalls);
  ASSERT_TRUE(plan.before.cost(WeightMetric::kStalls).has_value());
  EXPECT_LE(plan.after.cost(WeightMetric::kStalls)->total, plan.before.cost(WeightMetric::kStalls)->total);
}

TEST(ReorderReport, RecordsAPlanTheOrderKeptAndAFailure) {
  // Two nodes of two ranks, partners (r + 2) on the other node: the plan pairs them.
  const std::vector<std::string> hosts{"a", "a", "b", "b"};
  std::vector<Message> edges{{0, 2, 100}, {2, 0, 100}, {1, 3, 100}, {3, 1, 100}};
  ReorderRecord record;
  record.call = "MPI_Dist_graph_create_adjacent";
  record.binding = "c";
  record.comm_size = 4;
  record.members = 4;
  const TaskGraph graph = edge_task_graph(4, edges, "dist_graph");
  record.graph = graph.spec;
  record.messages = graph.messages.size();
  record.plan = plan_reorder(graph, hosts, ReorderConfig{});
  ASSERT_TRUE(record.plan.reordered);
  const Json json = reorder_record_json(record);
  EXPECT_EQ(json["call"], "MPI_Dist_graph_create_adjacent");
  EXPECT_EQ(json["messages"], 4);
  EXPECT_TRUE(json["reordered"].get<bool>());
  EXPECT_FALSE(json.contains("error"));
  EXPECT_EQ(json["method"], "scotch:hops");
  const double before = json["before"]["costs"]["hops"]["total"].get<double>();
  const double after = json["after"]["costs"]["hops"]["total"].get<double>();
  EXPECT_LT(after, before);
  EXPECT_DOUBLE_EQ(json["after"]["costs"]["hops"]["total_change_pct"].get<double>(),
                   100.0 * (after - before) / before);

  // The order kept: the note, equal costs.
  ReorderRecord kept = record;
  kept.plan =
      plan_reorder(edge_task_graph(4, {{0, 1, 100}, {2, 3, 100}}, "dist_graph"), hosts, ReorderConfig{});
  const Json kept_json = reorder_record_json(kept);
  EXPECT_FALSE(kept_json["reordered"].get<bool>());
  EXPECT_NE(kept_json["note"].get<std::string>().find("costs no more"), std::string::npos);
  EXPECT_EQ(kept_json["before"], kept_json["after"]);

  // No plan: the error, no costs.
  ReorderRecord failed = record;
  failed.plan = ReorderPlan{};
  failed.error = "GRIDLOCK_VIRTUAL_NODES=3 does not divide the communicator's 4 ranks";
  const Json failed_json = reorder_record_json(failed);
  EXPECT_FALSE(failed_json["reordered"].get<bool>());
  EXPECT_EQ(failed_json["error"], failed.error);
  EXPECT_FALSE(failed_json.contains("before"));

  ReorderConfig config;
  config.virtual_nodes = 2;
  const Json context = reorder_report_context(4, "Open MPI v4.1.4", config);
  EXPECT_EQ(context["schema"], "gridlock.reorder");
  EXPECT_EQ(context["ranks"], 4);
  EXPECT_EQ(context["mpi_library"], "Open MPI v4.1.4");
  EXPECT_EQ(context["parameters"]["virtual_nodes"], 2);
  EXPECT_EQ(context["parameters"]["metric"], "hops");
}

}  // namespace
}  // namespace gridlock::mapping
