// gridlock predict mapping: the recovered-% formula, the application and congestor schedule
// (the halo3d generator's messages, congestor ranks on the pairs' nodes), the start delay, the
// congestors outlasting the application, and bad input refused before any simulation.
#include "gridlock/predict/predict_mapping.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/predict/predict_gpcnet.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::predict {

using net::default_predict_params;
using net::identity_placement;
using net::make_model;
using net::ModelKind;
using net::Network;
using net::NetworkParams;
using net::PacketOptions;

namespace {

// Sends of every rank as (peer, bytes) multisets, over the whole schedule.
std::vector<std::multiset<std::pair<std::uint32_t, std::uint64_t>>> sends_of(const sim::Schedule& s,
                                                                             std::uint32_t ranks) {
  std::vector<std::multiset<std::pair<std::uint32_t, std::uint64_t>>> out(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const auto& ops = s.program_of(r).ops;
    for (std::uint32_t i = 0; i < ops.size(); ++i) {
      if (ops[i].type == sim::OpType::kSend) {
        out[r].insert({s.peer(r, i), ops[i].size});
      }
    }
  }
  return out;
}

TEST(PredictMapping, RecoveredPercentIsThePapersFig6) {
  // Identity: 100 alone, 200 congested: 100 of congestion time.
  EXPECT_DOUBLE_EQ(recovered_pct(100, 200, 150), 50.0);
  EXPECT_DOUBLE_EQ(recovered_pct(100, 200, 200), 0.0);
  EXPECT_DOUBLE_EQ(recovered_pct(100, 200, 100), 100.0);
  EXPECT_DOUBLE_EQ(recovered_pct(100, 200, 250), -50.0);
  EXPECT_DOUBLE_EQ(recovered_pct(100, 200, 80), 120.0);
  // Congestion that did not slow identity leaves nothing to recover; a starved time is NaN.
  EXPECT_TRUE(std::isnan(recovered_pct(100, 100, 90)));
  EXPECT_TRUE(std::isnan(recovered_pct(100, 90, 90)));
  EXPECT_TRUE(std::isnan(recovered_pct(100, 200, std::nan(""))));
  EXPECT_TRUE(std::isnan(recovered_pct(100, std::nan(""), 150)));
}

TEST(PredictMapping, ApplicationSendsWhatTheHalo3dGeneratorSends) {
  const MappingSchedule built = build_mapping_schedule("stencil3d:4x4x4", 3, 0, 0, {}, 0, 0);
  ASSERT_EQ(built.app_ranks, 64U);
  ASSERT_EQ(built.schedule.num_ranks(), 64U);
  EXPECT_TRUE(built.congestor_nodes.empty());
  const sim::Schedule halo = sim::generate("3x[halo3d(size=20000B, dims=4x4x4)]", 64, 1);
  EXPECT_EQ(sends_of(built.schedule, 64), sends_of(halo, 64));
  // 288 messages of the 4x4x4 stencil per iteration.
  EXPECT_EQ(built.schedule.total_sends(), 3U * 288U);
}

TEST(PredictMapping, CongestorRanksFollowTheApplicationOnThePairsNodes) {
  const auto pairs = paper_congestor_pairs();
  const MappingSchedule built = build_mapping_schedule("stencil3d:2x2x2", 1, 0, 0, pairs, 1 << 20, 5);
  ASSERT_EQ(built.app_ranks, 8U);
  ASSERT_EQ(built.schedule.num_ranks(), 8U + 6U);
  const std::vector<std::string> want{"nid00016", "nid00040", "nid00048", "nid00042", "nid00012", "nid00038"};
  EXPECT_EQ(built.congestor_nodes, want);
  const auto sends = sends_of(built.schedule, built.schedule.num_ranks());
  for (std::uint32_t i = 0; i < 6; ++i) {
    const std::uint32_t rank = 8 + i;
    const std::uint32_t peer = 8 + (i ^ 1U);
    // Five 1 MiB messages to its pair partner, and five received from it.
    EXPECT_EQ(sends[rank].size(), 5U);
    EXPECT_EQ(sends[rank].count({peer, std::uint64_t{1} << 20}), 5U) << "rank " << rank;
    std::uint32_t recvs = 0;
    for (const auto& op : built.schedule.program_of(rank).ops) {
      recvs += op.type == sim::OpType::kRecv ? 1 : 0;
    }
    EXPECT_EQ(recvs, 5U);
  }
}

TEST(PredictMapping, StartDelayShiftsTheApplicationExactly) {
  const std::shared_ptr<const topo::Topology> topology = topo::make_topology("torus:2x2x8");
  const auto network =
      std::make_shared<const Network>(topology, identity_placement(*topology, 64, 4), NetworkParams{100'000});
  auto finish = [&](std::uint64_t delay_ps) {
    const MappingSchedule built = build_mapping_schedule("stencil3d:4x4x4", 2, 5'000'000, delay_ps, {}, 0, 0);
    auto model = make_model(ModelKind::kFlow, network, PacketOptions{});
    sim::SimOptions so;
    so.params = default_predict_params();
    so.network = model.get();
    const sim::SimResult result = sim::simulate(built.schedule, so);
    EXPECT_TRUE(result.complete);
    return result.max_finish.ps;
  };
  const std::uint64_t alone = finish(0);
  EXPECT_GT(alone, 2U * 5'000'000U);
  EXPECT_EQ(finish(7'000'000), alone + 7'000'000);
}

MappingPredictOptions small_options() {
  MappingPredictOptions o;
  o.iterations = 2;
  o.methods = {"scotch:hops", "scotch:stalls"};
  return o;
}

TEST(PredictMapping, CongestorsOutlastTheApplicationAndSlowIdentity) {
  const MappingReport report = predict_mapping(small_options());
  ASSERT_EQ(report.rows.size(), 3U);
  EXPECT_EQ(report.rows[0].method, "identity");
  EXPECT_EQ(report.rows[1].method, "scotch:hops");
  EXPECT_EQ(report.rows[2].method, "scotch:stalls");
  for (const auto& row : report.rows) {
    EXPECT_FALSE(row.starved) << row.method;
    EXPECT_GT(row.alone_us, 0) << row.method;
    EXPECT_GE(row.congestors_end_us, row.congested_us) << row.method;
    EXPECT_GE(row.congestor_messages, 3U) << row.method;
    ASSERT_EQ(row.node_of_task.size(), 64U);
    // Four tasks on each of the paper's 16 nodes, none on a congestor node.
    std::map<std::string, int> per_node;
    for (const auto& node : row.node_of_task) {
      ++per_node[node];
    }
    EXPECT_EQ(per_node.size(), 16U);
    for (const auto& [node, count] : per_node) {
      EXPECT_EQ(count, 4) << node;
    }
  }
  // The paper's congestors cross links of identity's halo exchange (the oracle's STALLS metric
  // sees them), so identity is slower beside them.
  EXPECT_GT(report.rows[0].congested_us, report.rows[0].alone_us);
  EXPECT_DOUBLE_EQ(report.rows[0].recovered_pct, 0.0);
  const double want =
      recovered_pct(report.rows[0].alone_us, report.rows[0].congested_us, report.rows[2].congested_us);
  EXPECT_DOUBLE_EQ(report.rows[2].recovered_pct, want);
  EXPECT_DOUBLE_EQ(report.rows[2].paper_pct, paper_recovered_pct("scotch:stalls"));
  EXPECT_EQ(report.context.at("schema").get<std::string>(), "gridlock.predict.mapping");
  EXPECT_EQ(report.context.at("schema_version"), 2);
  // The LogGOPS parameters as gridlock sim writes them (sim::params_json), plus the hop latency.
  const Json& params = report.context.at("parameters");
  EXPECT_EQ(params.at("L_ps"), small_options().params.latency.ps);
  EXPECT_TRUE(params.contains("S_bytes") && params.contains("hop_latency_ps")) << params.dump();
  EXPECT_FALSE(params.contains("latency_ps")) << params.dump();
  // The same options give the same report.
  const MappingReport again = predict_mapping(small_options());
  for (std::size_t r = 0; r < report.rows.size(); ++r) {
    EXPECT_EQ(again.rows[r].congested_us, report.rows[r].congested_us);
    EXPECT_EQ(again.rows[r].node_of_task, report.rows[r].node_of_task);
  }
}

TEST(PredictMapping, SeedsAverageScotchPlacementsAndKeepEachSeedsFigure) {
  MappingPredictOptions o = small_options();
  o.methods = {"geometric", "scotch:stalls"};
  o.seeds = 2;
  const MappingReport both = predict_mapping(o);
  ASSERT_EQ(both.rows.size(), 3U);
  EXPECT_EQ(both.seeds, 2U);
  for (const auto& row : both.rows) {
    ASSERT_EQ(row.recovered_pct_per_seed.size(), 2U) << row.method;
    EXPECT_DOUBLE_EQ(row.recovered_pct, (row.recovered_pct_per_seed[0] + row.recovered_pct_per_seed[1]) / 2)
        << row.method;
    EXPECT_DOUBLE_EQ(row.recovered_min_pct,
                     std::min(row.recovered_pct_per_seed[0], row.recovered_pct_per_seed[1]));
    EXPECT_DOUBLE_EQ(row.recovered_max_pct,
                     std::max(row.recovered_pct_per_seed[0], row.recovered_pct_per_seed[1]));
  }
  // Geometric does not depend on the seed.
  EXPECT_EQ(both.rows[1].recovered_pct_per_seed[0], both.rows[1].recovered_pct_per_seed[1]);
  // Each seed's figure is what a run with that seed alone gives.
  o.seeds = 1;
  for (std::uint64_t k = 0; k < 2; ++k) {
    o.seed = 1 + k;
    const MappingReport one = predict_mapping(o);
    EXPECT_DOUBLE_EQ(one.rows[2].recovered_pct, both.rows[2].recovered_pct_per_seed[k]) << "seed " << o.seed;
  }
  o.seeds = 0;
  EXPECT_THROW((void)predict_mapping(o), InputError);
}

TEST(PredictMapping, BadInputIsRefusedBeforeTheRun) {
  auto refused = [](const MappingPredictOptions& o, const std::string& needle) {
    try {
      (void)predict_mapping(o);
      ADD_FAILURE() << "no error; wanted one with '" << needle << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  MappingPredictOptions o = small_options();
  o.nodes.back() = "nid09999";
  refused(o, "nid09999");
  o = small_options();
  o.cores_per_node = 2;
  refused(o, "do not fit on 32 cores");
  o = small_options();
  o.methods = {"scotch:magic"};
  refused(o, "magic");
  o = small_options();
  o.methods = {"annealing"};
  refused(o, "annealing");
  o = small_options();
  o.iterations = 0;
  refused(o, "--iterations 0");
  o = small_options();
  o.congestor_pairs = {{"nid00016", "nid99999"}};
  refused(o, "nid99999");
  o = small_options();
  o.congestor_pairs = {{"nid00016", "nid00016"}};
  refused(o, "one node twice");
  o = small_options();
  o.network_spec = "torus:2x2x4";
  o.nodes = {"nid00001", "nid00002"};
  o.tasks = "stencil3d:2x2x2";
  refused(o, "congestor node 'nid00040'");
  o = small_options();
  o.model = ModelKind::kPacket;
  o.packet.buffer_bytes = 16;
  refused(o, "buffer");
}

}  // namespace
}  // namespace gridlock::predict
