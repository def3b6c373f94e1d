// gridlock predict gpcnet: the GPCNeT role split on a network, the canary and congestor schedule
// shapes (messages per kernel), and a Congestion Impact of 1 where nothing can congest.
#include "gridlock/predict/predict_gpcnet.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/gpcnet/roles.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::predict {

using net::ModelKind;
using net::parse_model_kind;
using net::Routing;

namespace {

TEST(PredictGpcnet, LayoutSplitsNodesAsGpcnet) {
  const GpcnetLayout layout = make_gpcnet_layout(72, 2, 7, 0.2);
  ASSERT_EQ(layout.roles.group_count(), 5);
  // 72 - floor(0.8 x 72) = 15 canary nodes; 57 congestor nodes over 4 types: 15, 14, 14, 14.
  EXPECT_EQ(layout.roles.group_size(0), 15U);
  EXPECT_EQ(layout.roles.group_size(1), 15U);
  EXPECT_EQ(layout.roles.group_size(4), 14U);
  std::set<std::uint32_t> ranks;
  for (int g = 0; g < layout.roles.group_count(); ++g) {
    const auto& slices = layout.slices[static_cast<std::size_t>(g)];
    ASSERT_EQ(slices.size(), 2U);
    for (std::uint32_t j = 0; j < slices.size(); ++j) {
      EXPECT_EQ(slices[j].size(), layout.roles.group_size(g));
      for (const auto r : slices[j]) {
        EXPECT_EQ(r % 2, j) << "slice " << j << " holds the j-th rank of each node";
        ranks.insert(r);
      }
    }
  }
  EXPECT_EQ(ranks.size(), 144U);
  // The shuffle follows the seed.
  const GpcnetLayout again = make_gpcnet_layout(72, 2, 7, 0.2);
  const GpcnetLayout other = make_gpcnet_layout(72, 2, 8, 0.2);
  EXPECT_EQ(layout.slices[0][0], again.slices[0][0]);
  EXPECT_NE(layout.slices[0][0], other.slices[0][0]);
}

TEST(PredictGpcnet, TooSmallNetworkIsRefused) {
  try {
    (void)make_gpcnet_layout(9, 1, 1, 0.2);
    FAIL() << "9 nodes cannot hold the roles";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("10 nodes in all"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW((void)make_gpcnet_layout(10, 1, 1, 0.2));
  EXPECT_THROW((void)make_gpcnet_layout(20, 0, 1, 0.2), InputError);
}

TEST(PredictGpcnet, CanarySchedulesHaveGpcnetsMessages) {
  // 20 nodes: 4 canaries (one slice of 4), 4 nodes per congestor.
  const GpcnetLayout layout = make_gpcnet_layout(20, 1, 3, 0.2);
  ASSERT_EQ(layout.slices[0][0].size(), 4U);
  ScheduleShape shape;
  shape.loop = CanaryLoop{2, 1, 3};  // 2 rings x (1 warm-up + 3 timed)
  shape.ring_seed = 11;

  shape.kind = CanaryKind::kLatency;
  auto built = build_gpcnet_schedule(layout, shape);
  // Two 8 B sends per iteration (left and right neighbour).
  EXPECT_EQ(built.schedule.total_sends(), 4U * 2 * 4 * 2);
  ASSERT_EQ(built.markers.size(), 4U);
  EXPECT_EQ(built.markers[0].size(), 8U);
  EXPECT_TRUE(built.congestor_ranks.empty());

  shape.kind = CanaryKind::kBandwidth;
  built = build_gpcnet_schedule(layout, shape);
  // 8 x 128 KiB to each neighbour, then a dissemination barrier of 4 ranks: 2 one-byte sends.
  EXPECT_EQ(built.schedule.total_sends(), 4U * 2 * 4 * (16 + 2));

  shape.kind = CanaryKind::kAllreduce;
  shape.loop = CanaryLoop{1, 1, 3};
  built = build_gpcnet_schedule(layout, shape);
  // Recursive doubling on 4 ranks: 2 rounds of one send.
  EXPECT_EQ(built.schedule.total_sends(), 4U * 4 * 2);
}

TEST(PredictGpcnet, CongestorSchedulesHaveGpcnetsMessages) {
  const GpcnetLayout layout = make_gpcnet_layout(20, 1, 3, 0.2);
  ScheduleShape shape;
  shape.canaries = false;
  // a2a alone, 2 iterations: 4 ranks x 3 pairwise steps.
  shape.congestor_iterations = {2, 0, 0, 0};
  EXPECT_EQ(build_gpcnet_schedule(layout, shape).schedule.total_sends(), 4U * 2 * 3);
  // Each incast kind: 3 senders and 3 answers (credit, ack or data) from the root per iteration.
  for (std::size_t t = 1; t < 4; ++t) {
    shape.congestor_iterations = {0, 0, 0, 0};
    shape.congestor_iterations[t] = 2;
    const auto built = build_gpcnet_schedule(layout, shape);
    EXPECT_EQ(built.schedule.total_sends(), 2U * (3 + 3)) << "congestor " << t;
    EXPECT_EQ(built.congestor_ranks.size(), 4U);
    EXPECT_TRUE(built.canary_ranks.empty());
  }
}

// The RMA root's answers were operations of its own CPU, each paying o: the incast stopped at
// message size / 2o (6.8 GB/s at 4 KiB), below the root's link, so no endpoint congestion formed
// at one rank per node (Crystal at 696 nodes: latency impact 1.5 predicted, 6.85 measured). By
// default they now run on the CPUs standing for the root's NIC (kRmaNicAgents), in parallel.
TEST(PredictGpcnet, RmaAnswersRunOnTheRootsNicAgents) {
  const GpcnetLayout layout = make_gpcnet_layout(40, 1, 3, 0.2);
  ScheduleShape shape;
  shape.canaries = false;
  shape.congestor_iterations = {0, 0, 2, 2};
  for (const bool nic : {true, false}) {
    shape.rma_by_nic = nic;
    const auto built = build_gpcnet_schedule(layout, shape);
    // 8 RMA ranks per congestor: 7 origins answered by CPUs 1..7 (NIC) or all by CPU 0.
    EXPECT_EQ(built.schedule.num_cpus(), nic ? 8U : 1U);
  }
  GpcnetOptions options;
  // 40 nodes: 8 RMA-incast ranks, 7 origins, each bounded by its own round trip of 4o + 2L +
  // the transfer (about 5.8 us: 7 x 4 KiB per 5.8 us = 4.7 GiB/s together) but for the root.
  options.network_spec = "dragonfly:g=5,a=2,p=4,h=2";
  options.seed = 3;
  options.iterations = 2;
  options.rings = 1;
  options.params.overhead_send = sim::SimTime{1'000'000};  // 1 us: the CPU bound is 2 GB/s at 4 KiB
  options.params.overhead_recv = sim::SimTime{1'000'000};
  const auto incast_mib_s = [&](bool nic) {
    options.rma_by_nic = nic;
    const gpcnet::Report report = predict_gpcnet(options);
    for (const auto& canary : report.phases.at(1).canaries) {
      for (const auto& c : canary.congestors) {
        if (c.type == gpcnet::CongestorType::kRmaIncast) {
          return c.mib_per_s_total;
        }
      }
    }
    return 0.0;
  };
  const double cpu = incast_mib_s(false);
  const double nic = incast_mib_s(true);
  EXPECT_GT(cpu, 0);
  EXPECT_LT(cpu, 4096.0 / 2e-6 / (1 << 20) * 1.01) << "one CPU answers at most one 4 KiB put per 2o";
  EXPECT_GT(nic, 1.5 * cpu) << "the NIC's answers overlap";
}

// Congestors as generators (one iteration, repeating until the canaries end) against the same
// congestors unrolled far beyond the canaries: every canary operation completes at the same
// time, under both network models. 10 of the 12 nodes, evenly spaced (the routes of canaries and
// congestors cross), give congestor slices of 2 ranks: an all-to-all of one step, whose send and
// receive once repeated apart (the send ran ahead without bound, 8x the unrolled BW+Sync time).
TEST(PredictGpcnet, RepeatingCongestorsGiveTheUnrolledCanaryTimes) {
  const std::string spec = "dragonfly:g=3,a=2,p=2,h=1";
  const GpcnetLayout layout = make_gpcnet_layout(10, 1, 1, 0.2);
  std::shared_ptr<const topo::Topology> topology = topo::make_topology(spec);
  std::vector<topo::NodeId> node_of_rank(layout.ranks());
  for (std::uint32_t r = 0; r < layout.ranks(); ++r) {
    node_of_rank[r] = static_cast<topo::NodeId>(std::uint64_t{r / layout.ranks_per_node} * 12 / 10);
  }
  auto network = std::make_shared<const net::Network>(
      topology, net::explicit_placement(*topology, layout.ranks(), node_of_rank, "test"),
      net::NetworkParams{});
  for (const CanaryKind kind : {CanaryKind::kLatency, CanaryKind::kBandwidth, CanaryKind::kAllreduce}) {
    for (const ModelKind model : {ModelKind::kFlow, ModelKind::kPacket}) {
      ScheduleShape shape;
      shape.kind = kind;
      shape.loop = CanaryLoop{1, 1, 2};
      shape.canary_delay = sim::SimTime{20'000'000};
      shape.ring_seed = derive_seed(1, gpcnet::kRingStream);
      using Done = std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>>;
      auto canary_ops = [&](bool repeat) {
        shape.congestors_repeat = repeat;
        shape.congestor_iterations.assign(4, repeat ? 1 : 3000);
        const GpcnetSchedule built = build_gpcnet_schedule(layout, shape);
        const std::set<std::uint32_t> canaries(built.canary_ranks.begin(), built.canary_ranks.end());
        auto m = net::make_model(model, network, net::PacketOptions{});
        sim::SimOptions so;
        so.params.latency = sim::SimTime{500'000};
        so.params.overhead_send = sim::SimTime{300'000};
        so.params.overhead_recv = sim::SimTime{300'000};
        so.params.gap = sim::SimTime{50'000};
        so.params.gap_per_byte = sim::SimTime{100};
        so.network = m.get();
        so.repeat_time_limit = sim::SimTime{std::uint64_t{1} << 50U};
        Done done;
        so.on_op_done = [&](std::uint32_t rank, std::uint32_t op, sim::SimTime end) {
          if (canaries.count(rank) > 0) {
            done.emplace_back(rank, op, end.ps);
          }
        };
        const sim::SimResult r = sim::simulate(built.schedule, so);
        EXPECT_TRUE(r.complete) << sim::stuck_report(r);
        if (repeat) {
          std::uint64_t most = 0;
          for (const auto c : built.congestor_ranks) {
            most = std::max(most, r.repeat_cycles.at(c));
          }
          EXPECT_GE(most, 1U);
        } else {
          // The unrolled congestors outlast the canaries, else the comparison says nothing.
          std::uint64_t canary_end = 0;
          std::uint64_t congestor_end = std::numeric_limits<std::uint64_t>::max();
          for (const auto c : built.canary_ranks) {
            canary_end = std::max(canary_end, r.finish[c].ps);
          }
          for (const auto c : built.congestor_ranks) {
            congestor_end = std::min(congestor_end, r.finish[c].ps);
          }
          EXPECT_GT(congestor_end, canary_end);
        }
        return done;
      };
      Done unrolled = canary_ops(false);
      Done repeated = canary_ops(true);
      // Events at one time may come out in another order (the queue's stamps): compare the times.
      std::sort(unrolled.begin(), unrolled.end());
      std::sort(repeated.begin(), repeated.end());
      ASSERT_FALSE(repeated.empty());
      for (std::size_t i = 0; i < std::min(repeated.size(), unrolled.size()); ++i) {
        if (repeated[i] != unrolled[i]) {
          ADD_FAILURE() << "first difference at " << i << ": repeated (" << std::get<0>(repeated[i]) << ","
                        << std::get<1>(repeated[i]) << "," << std::get<2>(repeated[i]) << ") unrolled ("
                        << std::get<0>(unrolled[i]) << "," << std::get<1>(unrolled[i]) << ","
                        << std::get<2>(unrolled[i]) << ") " << canary_info(kind).key << " "
                        << net::to_string(model);
          break;
        }
      }
    }
  }
}

TEST(PredictGpcnet, ImpactIsOneWhereNothingCongests) {
  // Links far faster than the NICs: canaries and congestors share no endpoint and no link is a
  // bottleneck, so the loaded canaries run as fast as the isolated ones.
  GpcnetOptions options;
  options.network_spec = "dragonfly:g=3,a=2,p=2,h=1,local=1e15,global=1e15,terminal=1e15";
  options.seed = 5;
  options.iterations = 4;
  options.rings = 2;
  const gpcnet::Report report = predict_gpcnet(options);
  const auto impacts = gpcnet::congestion_impacts(report);
  ASSERT_EQ(impacts.size(), 3U);
  for (const auto& row : impacts) {
    EXPECT_NEAR(row.mean, 1.0, 0.05) << row.key;
    EXPECT_NEAR(row.tail99, 1.0, 0.05) << row.key;
  }
  EXPECT_EQ(report.context["nodes"], 12);
  EXPECT_TRUE(report.notes.empty());
}

TEST(PredictGpcnet, IncastCongestsAContendedNetwork) {
  // The default link rates (slower than the NIC on global links): congestion can only slow the
  // canaries down.
  GpcnetOptions options;
  options.network_spec = "dragonfly:g=3,a=2,p=2,h=1";
  options.seed = 5;
  options.iterations = 4;
  options.rings = 2;
  const gpcnet::Report report = predict_gpcnet(options);
  const auto impacts = gpcnet::congestion_impacts(report);
  ASSERT_EQ(impacts.size(), 3U);
  for (const auto& row : impacts) {
    EXPECT_GE(row.mean, 0.99) << row.key;
  }
  // The canary rings share the 4.7 GB/s global links with the all-to-all (1.28 when written).
  EXPECT_EQ(impacts[1].key, "rr_two_sided_bw_sync");
  EXPECT_GT(impacts[1].mean, 1.1);
}

TEST(PredictGpcnet, PacketModelRunsTheSameMethod) {
  GpcnetOptions options;
  options.network_spec = "dragonfly:g=3,a=2,p=2,h=1";
  options.model = ModelKind::kPacket;
  options.iterations = 2;
  options.rings = 1;
  const gpcnet::Report report = predict_gpcnet(options);
  EXPECT_EQ(gpcnet::congestion_impacts(report).size(), 3U);
  EXPECT_EQ(report.context["net_model"], "packet");
  EXPECT_EQ(report.context["packet"]["routing"], "minimal");
}

TEST(PredictGpcnet, OpsEstimateBoundsTheBuiltSchedule) {
  const GpcnetLayout layout = make_gpcnet_layout(20, 2, 3, 0.2);
  ScheduleShape shape;
  shape.loop = CanaryLoop{2, 1, 3};
  for (const CanaryKind kind : kCanaryKinds) {
    shape.kind = kind;
    const auto built = build_gpcnet_schedule(layout, shape);
    const std::uint64_t estimate = estimate_gpcnet_ops(layout, shape);
    EXPECT_GE(estimate, built.schedule.total_ops()) << canary_info(kind).key;
    EXPECT_LE(estimate, 4 * built.schedule.total_ops()) << canary_info(kind).key;
  }
  shape.canaries = false;
  shape.congestor_iterations = {2, 3, 4, 5};
  const auto built = build_gpcnet_schedule(layout, shape);
  EXPECT_GE(estimate_gpcnet_ops(layout, shape), built.schedule.total_ops());
  EXPECT_LE(estimate_gpcnet_ops(layout, shape), 4 * built.schedule.total_ops());
  // Counts that would wrap 64 bits saturate instead.
  shape.congestor_iterations = {std::uint64_t{1} << 62, 0, 0, 0};
  EXPECT_EQ(estimate_gpcnet_ops(layout, shape), UINT64_MAX);
}

TEST(PredictGpcnet, CountsBeyondTheirBoundsAreRefused) {
  // --iterations 4294967295 wrapped warm-up + iterations to 0 and crashed (issue 36).
  GpcnetOptions options;
  options.network_spec = "torus:2x2x2";
  options.iterations = 4294967295U;
  EXPECT_THROW(check_gpcnet_options(options), InputError);
  EXPECT_THROW((void)predict_gpcnet(options), InputError);
  options.iterations = kMaxGpcnetIterations;
  EXPECT_NO_THROW(check_gpcnet_options(options));
  options.rings = kMaxGpcnetRings + 1;
  EXPECT_THROW(check_gpcnet_options(options), InputError);
  options.rings = 1;
  options.ranks_per_node = kMaxGpcnetRanksPerNode + 1;
  EXPECT_THROW(check_gpcnet_options(options), InputError);
}

TEST(PredictGpcnet, RunsBeyondTheMemoryBudgetAreRefused) {
  GpcnetOptions options;
  options.network_spec = "torus:2x2x2";
  options.iterations = kMaxGpcnetIterations;
  options.rings = kMaxGpcnetRings;
  options.max_memory_bytes = std::uint64_t{256} << 20;
  try {
    (void)predict_gpcnet(options);
    FAIL() << "a run of 10^10 iterations per rank must be refused before it is built";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-memory"), std::string::npos) << e.what();
  }
  // A network far too large is refused from its spec, before it is built.
  options = GpcnetOptions{};
  options.network_spec = "torus:1000x1000x1000";
  EXPECT_THROW((void)predict_gpcnet(options), InputError);
}

TEST(PredictGpcnet, BadModelInputIsRefused) {
  EXPECT_THROW((void)parse_model_kind("fluid"), InputError);
  GpcnetOptions options;
  options.network_spec = "fattree:4x4";
  options.model = ModelKind::kPacket;
  options.packet.routing = Routing::kValiant;
  try {
    (void)predict_gpcnet(options);
    FAIL() << "valiant routing on a fat tree must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("valiant"), std::string::npos) << e.what();
  }
}

TEST(PredictGpcnetPrecision, StopsBeforeTheCapWhereTheCanariesAreSteady) {
  // Nothing congests: every canary iteration takes nearly the same time, so the intervals are
  // narrow as soon as there are enough samples for a 99% tail (about 380 pooled: 2 canary ranks).
  GpcnetOptions options;
  options.network_spec = "dragonfly:g=3,a=2,p=2,h=1,local=1e15,global=1e15,terminal=1e15";
  options.seed = 5;
  options.iterations = 4;
  options.rings = 2;
  options.precision_percent = 5;
  options.max_iterations = 2000;
  const gpcnet::Report report = predict_gpcnet(options);
  ASSERT_EQ(report.phases.size(), 2U);
  for (const auto& phase : report.phases) {
    for (const auto& c : phase.canaries) {
      const gpcnet::StoppingRule& s = c.stopping;
      SCOPED_TRACE(phase.label + " " + c.key);
      EXPECT_TRUE(s.active);
      EXPECT_TRUE(s.met);
      EXPECT_GE(s.iterations, kGpcnetPrecisionMinIterations);
      EXPECT_LT(s.iterations, 2000U);
      EXPECT_EQ(s.cap, 2000U);
      EXPECT_EQ(s.fixed, c.key == "multiple_allreduce" ? 4U : 8U);
      EXPECT_LE(s.mean_half_width, 0.05);
      EXPECT_LE(s.tail_half_width, 0.05);
      // The figures use exactly the iterations every rank completed before the stop.
      EXPECT_EQ(c.fine.count, s.iterations * c.ranks);
      EXPECT_LT(c.blocks_completed, c.blocks_planned);
      EXPECT_TRUE(std::isfinite(c.bulk_mean));
    }
  }
  EXPECT_TRUE(report.notes.empty());
  for (const auto& row : gpcnet::congestion_impacts(report)) {
    EXPECT_NEAR(row.mean, 1.0, 0.05) << row.key;
  }
  EXPECT_EQ(report.context["parameters"]["precision_percent"], 5.0);
}

TEST(PredictGpcnetPrecision, TheCapEndsARunThatDoesNotConvergeAndSaysSo) {
  // 20 iterations of 2 ranks are too few for any interval of a 99% tail: the cap ends each run.
  GpcnetOptions options;
  options.network_spec = "dragonfly:g=3,a=2,p=2,h=1";
  options.seed = 5;
  options.iterations = 4;
  options.rings = 2;
  options.precision_percent = 1;
  options.max_iterations = 20;
  const gpcnet::Report report = predict_gpcnet(options);
  for (const auto& phase : report.phases) {
    for (const auto& c : phase.canaries) {
      SCOPED_TRACE(phase.label + " " + c.key);
      EXPECT_TRUE(c.stopping.active);
      EXPECT_FALSE(c.stopping.met);
      EXPECT_EQ(c.stopping.iterations, 20U);
      EXPECT_EQ(c.fine.count, 20 * c.ranks);
      EXPECT_TRUE(std::isinf(c.stopping.tail_half_width));
    }
  }
  ASSERT_EQ(report.notes.size(), 6U);  // 3 canaries, isolated and loaded
  EXPECT_NE(report.notes[0].find("--precision 1% not reached within the cap of 20"), std::string::npos)
      << report.notes[0];
}

TEST(PredictGpcnetPrecision, BlocksKeepTheFixedLengthUpToTheCap) {
  GpcnetOptions options;
  options.rings = 3;
  EXPECT_EQ(precision_cap(options, CanaryKind::kLatency), 0U);
  options.precision_percent = 5;
  // Default cap: 20x the fixed count (3 rings x 50), in blocks of 50 on rings of their own.
  EXPECT_EQ(precision_cap(options, CanaryKind::kLatency), 3000U);
  EXPECT_EQ(canary_loop(options, CanaryKind::kLatency).rings, 60U);
  EXPECT_EQ(canary_loop(options, CanaryKind::kLatency).iterations, 50U);
  options.max_iterations = 101;
  EXPECT_EQ(canary_loop(options, CanaryKind::kBandwidth).rings, 13U);  // ceil(101 / 8)
  options.iterations = kMaxGpcnetIterations;
  options.rings = kMaxGpcnetRings;
  options.max_iterations = 0;
  EXPECT_EQ(precision_cap(options, CanaryKind::kLatency), kMaxGpcnetMaxIterations);
}

TEST(PredictGpcnetPrecision, OptionsBeyondTheirBoundsAreRefused) {
  EXPECT_DOUBLE_EQ(parse_gpcnet_precision("5"), 5.0);
  EXPECT_DOUBLE_EQ(parse_gpcnet_precision("2.5%"), 2.5);
  EXPECT_DOUBLE_EQ(parse_gpcnet_precision("0.1"), 0.1);
  EXPECT_DOUBLE_EQ(parse_gpcnet_precision("50%"), 50.0);
  for (const char* bad : {"", "%", "five", "5%%", "0", "0.05", "51", "-5", "nan", "inf", "5 %", "1e400"}) {
    EXPECT_THROW((void)parse_gpcnet_precision(bad), InputError) << bad;
  }
  GpcnetOptions options;
  options.network_spec = "torus:2x2x2";
  options.max_iterations = 100;
  EXPECT_THROW(check_gpcnet_options(options), InputError) << "--max-iterations without --precision";
  options.precision_percent = 5;
  EXPECT_NO_THROW(check_gpcnet_options(options));
  options.max_iterations = kGpcnetPrecisionMinIterations - 1;
  EXPECT_THROW(check_gpcnet_options(options), InputError);
  options.max_iterations = kMaxGpcnetMaxIterations + 1;
  EXPECT_THROW(check_gpcnet_options(options), InputError);
  options.max_iterations = 0;
  options.precision_percent = 60;
  EXPECT_THROW(check_gpcnet_options(options), InputError);
  options.precision_percent = std::nan("");
  EXPECT_THROW(check_gpcnet_options(options), InputError);
}

TEST(PredictGpcnetPrecision, TheCapsRunIsSizedForTheMemoryBudget) {
  // The canary programs are built with the cap's iterations: a cap the budget cannot hold is
  // refused before it is built, naming --max-iterations.
  GpcnetOptions options;
  options.network_spec = "torus:2x2x2";
  options.precision_percent = 5;
  options.max_iterations = kMaxGpcnetMaxIterations;
  options.max_memory_bytes = std::uint64_t{256} << 20;
  try {
    (void)predict_gpcnet(options);
    FAIL() << "a cap of 10^8 iterations must be refused before it is built";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-iterations"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gridlock::predict
