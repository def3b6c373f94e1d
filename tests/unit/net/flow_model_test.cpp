// The flow model against closed forms (one flow, n flows on a link, the classic max-min example,
// an incast) and against the LogGOPS engine on an uncontended network.
#include "gridlock/net/flow_model.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "net_testing.hpp"

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {
namespace {

using nettest::kGBps;

using nettest::bare;
using nettest::deliveries;
using nettest::line_network;
using nettest::LineTopology;
using nettest::Message;

TEST(FlowModel, OneFlowGetsTheLinkBandwidth) {
  // 1 GB/s is 1e-3 bytes/ps: 1e6 bytes (after the first) take 1e9 ps.
  FlowModel model(line_network({1 * kGBps}, 1));
  const auto at = deliveries(model, {{0, 0, 1, 1'000'001}}, bare(), 2);
  EXPECT_EQ(at[0], 1'000'000'000U);
  EXPECT_DOUBLE_EQ(model.stats().slowdown.max(), 1.0);
}

TEST(FlowModel, NFlowsOnOneLinkGetOneNthEach) {
  for (const std::uint32_t n : {2U, 3U, 5U}) {
    FlowModel model(line_network({1 * kGBps}, static_cast<int>(n)));
    std::vector<Message> m;
    for (std::uint32_t i = 0; i < n; ++i) {
      m.push_back({0, i, n + i, 1'000'001});  // router 0's nodes to router 1's
    }
    const auto at = deliveries(model, m, bare(), 2 * n);
    for (std::uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(at[i], n * 1'000'000'000ULL) << n << " flows, flow " << i;
    }
    EXPECT_NEAR(model.stats().slowdown.mean(), n, n * 0.01);
  }
}

TEST(FlowModel, ClassicMaxMinExample) {
  // Links a (R0->R1, 1 GB/s) and b (R1->R2, 2 GB/s); nodes n0_0 n0_1 | n1_0 n1_1 | n2_0 n2_1 are
  // ranks 0..5. f0: 0 -> 4 crosses a and b; f1: 1 -> 2 crosses a; f2: 3 -> 5 crosses b.
  // Max-min: a is the bottleneck, f0 = f1 = 0.5 GB/s; f2 takes the rest of b, 1.5 GB/s.
  FlowModel model(line_network({1 * kGBps, 2 * kGBps}, 2));
  const auto at =
      deliveries(model, {{0, 0, 4, 1'000'001}, {0, 1, 2, 1'000'001}, {0, 3, 5, 1'500'001}}, bare(), 6);
  EXPECT_EQ(at[0], 2'000'000'000U);
  EXPECT_EQ(at[1], 2'000'000'000U);
  EXPECT_EQ(at[2], 1'000'000'000U);
}

TEST(FlowModel, AFlowSpeedsUpWhenAnotherEnds) {
  // As above, but f1 carries half as much: it ends at 1 ms (as does f2); f0 has moved 0.5 MB
  // and takes the whole of a for the other 0.5 MB: 0.5 ms more.
  FlowModel model(line_network({1 * kGBps, 2 * kGBps}, 2));
  const auto at =
      deliveries(model, {{0, 0, 4, 1'000'001}, {0, 1, 2, 500'001}, {0, 3, 5, 1'500'001}}, bare(), 6);
  EXPECT_EQ(at[1], 1'000'000'000U);
  EXPECT_EQ(at[2], 1'000'000'000U);
  EXPECT_EQ(at[0], 1'500'000'000U);
}

TEST(FlowModel, LateFlowSharesFromItsStart) {
  // f0 alone for 0.5 ms (0.5 MB moved), then f1 joins: both at 0.5 GB/s; f0's other 0.5 MB take
  // 1 ms, f1's 1 MB end at 0.5 + 1 + 0.5 = 2 ms (alone again for its last 0.25 MB... see below).
  // f0 ends at 1.5 ms; f1 has moved 0.5 MB by then and takes 0.5 ms more alone: 2 ms.
  FlowModel model(line_network({1 * kGBps}, 2));
  const auto at = deliveries(model, {{0, 0, 2, 1'000'001}, {500'000'000, 1, 3, 1'000'001}}, bare(), 4);
  EXPECT_EQ(at[0], 1'500'000'000U);
  EXPECT_EQ(at[1], 2'000'000'000U);
}

TEST(FlowModel, IncastSharesTheEjectionLink) {
  // Eight nodes on R0 send 1 MB each to the one node on R1... through a 100 GB/s link a; the
  // receiver's ejection link (100 GB/s) is shared eight ways: 8 MB at 100 GB/s = 80 us.
  auto topology = std::make_shared<LineTopology>(std::vector<double>{1000 * kGBps}, 8);
  Placement placement = identity_placement(*topology, 16);
  FlowModel model(std::make_shared<Network>(std::move(topology), std::move(placement), NetworkParams{}));
  std::vector<Message> m;
  for (std::uint32_t i = 0; i < 8; ++i) {
    m.push_back({0, i, 8, 1'000'001});
  }
  const auto at = deliveries(model, m, bare(), 16);
  for (const std::uint64_t t : at) {
    EXPECT_EQ(t, 80'000'000U);
  }
}

TEST(FlowModel, NicRateBoundsAFlowAndLatencyAndHopsAreAdded) {
  // G = 6 ns per byte (166 MB/s) below the links: s-1 bytes take (s-1)G; then L + 2 hops.
  sim::LogGOPSParams p;
  NetworkParams np;
  np.hop_latency_ps = 100'000;
  FlowModel model(line_network({1 * kGBps, 1 * kGBps}, 1, np));
  const auto at = deliveries(model, {{1000, 0, 2, 1001}, {5000, 1, 1, 1}}, p, 3);
  EXPECT_EQ(at[0], 1000 + 1000 * p.gap_per_byte.ps + p.latency.ps + std::uint64_t{2} * 100'000);
  // A one-byte message (zero hops: same router... here ranks 1 and 1: one node) is latency only.
  EXPECT_EQ(at[1], 5000 + p.latency.ps);
}

TEST(FlowModel, AHopLatencyThatOverflowsTimeIsAnInputError) {
  // Regression: hops x hop latency wrapped around 2^64 ps and gave a short arrival time.
  NetworkParams np;
  np.hop_latency_ps = ~std::uint64_t{0} / 2;
  FlowModel model(line_network({1 * kGBps, 1 * kGBps}, 1, np));
  model.begin(3, sim::LogGOPSParams{});
  model.inject(0, 0, 2, 1000, 0);
  std::vector<sim::NetDelivery> out;
  EXPECT_THROW(model.advance(model.next_time(), out), InputError);
}

TEST(FlowModel, RefusesMoreRanksThanPlaced) {
  FlowModel model(line_network({1 * kGBps}, 1));
  EXPECT_THROW(model.begin(3, sim::LogGOPSParams{}), InputError);
}

// With no contention and links faster than 1/G, the engine gives the LogGOPS times exactly.
void expect_same_as_loggops(const sim::Schedule& schedule, const std::string& what,
                            const sim::LogGOPSParams& params = {}) {
  sim::SimOptions plain;
  plain.params = params;
  const sim::SimResult expected = sim::simulate(schedule, plain);
  ASSERT_TRUE(expected.complete) << what;
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("dragonfly:g=9,a=4,p=2,h=2");
  Placement placement = identity_placement(*topology, schedule.num_ranks());
  FlowModel model(std::make_shared<Network>(topology, std::move(placement), NetworkParams{}));
  sim::SimOptions with = plain;
  with.network = &model;
  const sim::SimResult got = sim::simulate(schedule, with);
  ASSERT_TRUE(got.complete) << what;
  EXPECT_EQ(got.messages, expected.messages) << what;
  for (std::uint32_t r = 0; r < schedule.num_ranks(); ++r) {
    EXPECT_EQ(got.finish[r].ps, expected.finish[r].ps) << what << ", rank " << r;
  }
}

TEST(FlowModel, UncontendedEngineRunsEqualLogGOPS) {
  expect_same_as_loggops(sim::parse_goal("num_ranks 2\nrank 0 {\nl1: send 100000b to 1\nl2: recv 8b from 1\n"
                                         "l2 requires l1\n}\nrank 1 {\nl1: recv 100000b from 0\n"
                                         "l2: send 8b to 0\nl2 requires l1\n}\n"),
                         "eager and rendezvous ping-pong");
  // No two messages meet at a NIC in these (a halo exchange's six messages would: they share the
  // receiver's NIC instead of queueing for it).
  for (const char* program : {"bcast(algo=binomial, size=32KiB)", "barrier",
                              "allreduce(algo=recdoub, size=8B)", "allreduce(algo=ring, size=64KiB)"}) {
    expect_same_as_loggops(sim::generate(program, 16, 1), program);
  }
  sim::LogGOPSParams handshake;
  handshake.rendezvous_handshake = true;
  expect_same_as_loggops(sim::parse_goal("num_ranks 2\nrank 0 {\nsend 100000b to 1\n}\nrank 1 {\n"
                                         "recv 100000b from 0\n}\n"),
                         "handshaken rendezvous", handshake);
}

TEST(FlowModel, RendezvousSendCompletesWhenItsLastByteArrives) {
  // LogGOPSim completes a rendezvous send when its receive matches the first byte; with a
  // network model the data must have moved: o + (s-1)G + L.
  const sim::Schedule schedule =
      sim::parse_goal("num_ranks 2\nrank 0 {\nsend 100000b to 1\n}\nrank 1 {\nrecv 100000b from 0\n}\n");
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("dragonfly:g=9,a=4,p=2,h=2");
  FlowModel model(std::make_shared<Network>(topology, identity_placement(*topology, 2), NetworkParams{}));
  sim::SimOptions options;
  options.network = &model;
  const sim::SimResult r = sim::simulate(schedule, options);
  ASSERT_TRUE(r.complete);
  const sim::LogGOPSParams p;
  EXPECT_EQ(r.finish[0].ps, p.overhead_send.ps + 99'999 * p.gap_per_byte.ps + p.latency.ps);
  EXPECT_EQ(r.finish[1].ps, r.finish[0].ps + p.overhead_recv.ps);
}

TEST(FlowModel, MessagesMeetingAtANicShareIt) {
  // Two ranks send 10,001 bytes to rank 2 at once: both flows share its NIC (1/G) and end
  // together at o + 2 * 10,000 G, where LogGOPS would serve them one after the other.
  const sim::Schedule schedule = sim::parse_goal(
      "num_ranks 3\nrank 0 {\nsend 10001b to 2\n}\nrank 1 {\nsend 10001b to 2\n}\nrank 2 {\n"
      "recv 10001b from 0\nrecv 10001b from 1\n}\n");
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("dragonfly:g=9,a=4,p=2,h=2");
  FlowModel model(std::make_shared<Network>(topology, identity_placement(*topology, 3), NetworkParams{}));
  sim::SimOptions options;
  options.network = &model;
  const sim::SimResult r = sim::simulate(schedule, options);
  ASSERT_TRUE(r.complete);
  const sim::LogGOPSParams p;
  const std::uint64_t both_arrive = p.overhead_send.ps + 20'000 * p.gap_per_byte.ps + p.latency.ps;
  EXPECT_EQ(r.finish[2].ps, both_arrive + 2 * p.overhead_recv.ps);
  EXPECT_NEAR(model.stats().slowdown.mean(), 2.0, 0.02);
}

TEST(FlowModel, ContentionSlowsTheEngineDown) {
  // Every rank of 8 on one router sends 1 MB to a rank of another group at once: a dragonfly's
  // one global link between two groups carries them all, so the run takes far longer than LogGOPS.
  std::string goal = "num_ranks 16\n";
  for (int r = 0; r < 8; ++r) {
    goal += "rank " + std::to_string(r) + " {\nsend 1000000b to " + std::to_string(8 + r) + "\n}\n";
  }
  for (int r = 8; r < 16; ++r) {
    goal += "rank " + std::to_string(r) + " {\nrecv 1000000b from " + std::to_string(r - 8) + "\n}\n";
  }
  const sim::Schedule schedule = sim::parse_goal(goal);
  sim::SimOptions plain;
  plain.params.gap_per_byte = sim::SimTime{0};  // no NIC bound: the links decide
  const sim::SimResult alone = sim::simulate(schedule, plain);
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("dragonfly:g=9,a=4,p=2,h=2");
  // Ranks 0-7 on group 0's nodes, ranks 8-15 on group 1's (8 nodes per group).
  Placement placement = identity_placement(*topology, 16);
  FlowModel model(std::make_shared<Network>(topology, std::move(placement), NetworkParams{}));
  sim::SimOptions with = plain;
  with.network = &model;
  const sim::SimResult contended = sim::simulate(schedule, with);
  ASSERT_TRUE(contended.complete);
  EXPECT_GT(contended.max_finish.ps, alone.max_finish.ps + 1'000'000U);
  EXPECT_GT(model.stats().slowdown.max(), 1.5);
  EXPECT_EQ(model.stats().network_messages, 8U);
}

// A reference the incremental recomputation must agree with: every flow's completion time by
// progressive filling of all active flows from scratch at every start and end, in double time.
std::vector<double> reference_completions(const Network& network, const std::vector<Message>& messages) {
  struct Active {
    std::vector<topo::LinkId> links;
    double remaining;
    double rate;
  };
  const std::size_t n = messages.size();
  std::vector<Active> flows(n);
  for (std::size_t i = 0; i < n; ++i) {
    network.path_into(messages[i].src, messages[i].dst, flows[i].links);
    flows[i].remaining = static_cast<double>(messages[i].bytes - 1);
  }
  std::vector<double> done(n, -1);
  std::vector<bool> running(n, false);
  const std::size_t links = network.topology().links().size();
  double now = 0;
  for (;;) {
    // Max-min rates of the running flows.
    std::vector<double> residual(links);
    std::vector<int> unfrozen(links, 0);
    std::vector<bool> fixed(n, false);
    std::size_t left = 0;
    for (topo::LinkId l = 0; l < links; ++l) {
      residual[l] = network.capacity_bytes_per_ps(l);
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (running[i]) {
        ++left;
        for (const topo::LinkId l : flows[i].links) {
          ++unfrozen[l];
        }
      }
    }
    while (left > 0) {
      topo::LinkId best = 0;
      double best_share = std::numeric_limits<double>::infinity();
      for (topo::LinkId l = 0; l < links; ++l) {
        if (unfrozen[l] > 0 && residual[l] / unfrozen[l] < best_share) {
          best_share = residual[l] / unfrozen[l];
          best = l;
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (running[i] && !fixed[i] &&
            std::find(flows[i].links.begin(), flows[i].links.end(), best) != flows[i].links.end()) {
          fixed[i] = true;
          flows[i].rate = best_share;
          --left;
          for (const topo::LinkId l : flows[i].links) {
            residual[l] -= best_share;
            --unfrozen[l];
          }
        }
      }
    }
    // The next start or end.
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      if (running[i]) {
        next = std::min(next, now + flows[i].remaining / flows[i].rate);
      } else if (done[i] < 0) {
        next = std::min(next, static_cast<double>(messages[i].time_ps));
      }
    }
    if (next == std::numeric_limits<double>::infinity()) {
      return done;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (running[i]) {
        if (now + flows[i].remaining / flows[i].rate <= next * (1 + 1e-12)) {
          running[i] = false;
          done[i] = next;
        } else {
          flows[i].remaining -= flows[i].rate * (next - now);
        }
      } else if (done[i] < 0 && static_cast<double>(messages[i].time_ps) <= next) {
        running[i] = true;
      }
    }
    now = next;
  }
}

TEST(FlowModel, IncrementalRatesAgreeWithAFullRecomputation) {
  // Random flows on the three topologies, with and without the spread's paths (the reference
  // takes the deterministic ones, so without): every completion within 1e-6 of the reference.
  for (const char* spec : {"dragonfly:g=9,a=4,p=2,h=2", "torus:4x4x4", "fattree:8x8"}) {
    std::shared_ptr<const topo::Topology> topology = topo::make_topology(spec);
    const auto nodes = static_cast<std::uint32_t>(topology->nodes().size());
    auto network = std::make_shared<Network>(topology, identity_placement(*topology, nodes), NetworkParams{});
    Rng rng(7);
    std::vector<Message> messages;
    for (int i = 0; i < 250; ++i) {
      const auto src = static_cast<std::uint32_t>(uniform_below(rng, nodes));
      auto dst = static_cast<std::uint32_t>(uniform_below(rng, nodes - 1));
      dst += dst >= src ? 1 : 0;
      messages.push_back(
          {uniform_below(rng, 200'000'000), src, dst, (1ULL << (16 + uniform_below(rng, 7))) + 1});
    }
    FlowModel model(network);
    const auto at = deliveries(model, messages, bare(), nodes);
    const auto expected = reference_completions(*network, messages);
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const double took = static_cast<double>(at[i] - messages[i].time_ps);
      const double want = expected[i] - static_cast<double>(messages[i].time_ps);
      EXPECT_NEAR(took, want, 1e-6 * want + 2) << spec << " message " << i;
    }
  }
}

// fattree:4x4: 4 nodes per leaf, 4 leaves, 4 spines; leaf 0's up-links are its network links
// towards the spines.
std::shared_ptr<const Network> fat_tree_network(bool spread, std::uint64_t seed) {
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("fattree:4x4");
  Placement placement = identity_placement(*topology, 16);
  NetworkParams params;
  params.spread = spread;
  params.spread_seed = seed;
  return std::make_shared<Network>(topology, std::move(placement), params);
}

// Messages per up-link of leaf 0 (bytes carried by messages of 2 bytes: one per message).
std::vector<double> leaf0_up_link_loads(const Network& network, const NetStats& stats) {
  std::vector<double> loads;
  const topo::Topology& t = network.topology();
  for (topo::LinkId l = 0; l < t.network_link_count(); ++l) {
    if (t.links()[l].src_router == t.nodes()[0].router) {
      loads.push_back(stats.link_bytes[l]);
    }
  }
  return loads;
}

TEST(FlowModel, FatTreeShiftPermutationRunsAtFullSpeed) {
  // fattree:8x8 (8 nodes per leaf, 8 spines, full bisection), node i -> node i+8 mod 64: D-mod-k
  // by destination node gives each flow its own up-link and down-link, so all 64 flows finish
  // when one flow alone does (by destination leaf, 8 flows shared each used spine link: 8x).
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("fattree:8x8");
  const auto network =
      std::make_shared<Network>(topology, identity_placement(*topology, 64), NetworkParams{});
  FlowModel alone(network);
  const auto one = deliveries(alone, {{0, 0, 8, 1'000'001}}, bare(), 64);
  ASSERT_GT(one[0], 0U);
  std::vector<Message> shift;
  for (std::uint32_t i = 0; i < 64; ++i) {
    shift.push_back({0, i, (i + 8) % 64, 1'000'001});
  }
  FlowModel model(network);
  const auto at = deliveries(model, shift, bare(), 64);
  for (std::uint32_t i = 0; i < 64; ++i) {
    EXPECT_EQ(at[i], one[0]) << "flow " << i;
  }
  EXPECT_DOUBLE_EQ(model.stats().slowdown.max(), 1.0);
  for (topo::LinkId l = 0; l < topology->network_link_count(); ++l) {
    EXPECT_LE(model.stats().link_bytes[l], 1'000'001.0) << topology->link_name(l);
  }
}

TEST(FlowModelSpread, TwoFlowsThatShareAnUpLinkTakeDifferentSpines) {
  // Nodes 0 and 1 (leaf 0) send to nodes 4 and 8 (leaves 1 and 2): D-mod-k picks the up port by
  // the destination node (4 mod 4 = 8 mod 4), so both cross the same up-link and each gets half.
  const std::vector<Message> two = {{0, 0, 4, 1'000'001}, {0, 1, 8, 1'000'001}};
  auto fixed = fat_tree_network(false, 1);
  FlowModel alone(fixed);
  const auto shared = deliveries(alone, two, bare(), 16);
  EXPECT_EQ(shared[0], shared[1]);
  auto loads = leaf0_up_link_loads(*fixed, alone.stats());
  EXPECT_EQ(std::count(loads.begin(), loads.end(), 2'000'000.0), 1);
  // With the spread some seed sends them over two spines: both finish in half the time.
  int apart = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    auto network = fat_tree_network(true, seed);
    FlowModel model(network);
    const auto at = deliveries(model, two, bare(), 16);
    loads = leaf0_up_link_loads(*network, model.stats());
    if (std::count(loads.begin(), loads.end(), 1'000'000.0) == 2) {
      ++apart;
      EXPECT_EQ(at[0] * 2, shared[0]) << "seed " << seed;
      EXPECT_EQ(at[1] * 2, shared[1]) << "seed " << seed;
    } else {
      EXPECT_EQ(at, shared) << "seed " << seed;
    }
  }
  // Each seed keeps them apart with probability 3/4.
  EXPECT_GE(apart, 3);
}

TEST(FlowModelSpread, ManyMessagesSpreadOverTheSpines) {
  // 400 two-byte messages from leaf 0 to nodes 4, 8 and 12 (leaves 1 to 3): D-mod-k by destination
  // node puts them all on one up-link; with the spread each of the four carries about 100
  // (binomial, sd 8.7).
  std::vector<Message> many;
  for (std::uint32_t i = 0; i < 400; ++i) {
    many.push_back({i * 1000ULL, i % 4, 4 * (1 + (i / 4) % 3), 2});
  }
  for (const bool spread : {false, true}) {
    auto network = fat_tree_network(spread, 5);
    FlowModel model(network);
    (void)deliveries(model, many, bare(), 16);
    const auto loads = leaf0_up_link_loads(*network, model.stats());
    ASSERT_EQ(loads.size(), 4U);
    const auto [lo, hi] = std::minmax_element(loads.begin(), loads.end());
    if (spread) {
      EXPECT_GE(*lo, 65) << "spread";
      EXPECT_LE(*hi, 135) << "spread";
    } else {
      EXPECT_EQ(*hi, 400);
    }
  }
}

TEST(FlowModelSpread, SameSeedSameRunAndTheSeedIsDescribed) {
  std::vector<Message> messages;
  for (std::uint32_t i = 0; i < 64; ++i) {
    messages.push_back({i * 50'000ULL, i % 16, (i * 7 + 3) % 16, 100'001 + 1000ULL * i});
  }
  std::vector<std::vector<std::uint64_t>> times;
  std::vector<std::vector<double>> bytes;
  for (const std::uint64_t seed : {11ULL, 11ULL, 12ULL}) {
    auto network = fat_tree_network(true, seed);
    FlowModel model(network);
    times.push_back(deliveries(model, messages, bare(), 16));
    bytes.push_back(model.stats().link_bytes);
    EXPECT_NE(model.describe().find("spread per message (seed " + std::to_string(seed) + ")"),
              std::string::npos)
        << model.describe();
  }
  EXPECT_EQ(times[0], times[1]);
  EXPECT_EQ(bytes[0], bytes[1]);
  EXPECT_NE(bytes[0], bytes[2]);
}

}  // namespace
}  // namespace gridlock::net
