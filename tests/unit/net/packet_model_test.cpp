// The packet model against closed forms (an idle path's latency and throughput, n flows on one
// link, an incast), tree saturation (which the flow model cannot show), virtual channel checks,
// determinism, and the LogGOPS engine on an uncontended network.
#include "gridlock/net/packet_model.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "net_testing.hpp"

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/flow_model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/topo/dragonfly.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {
namespace {

using nettest::kGBps;
constexpr std::uint64_t kPacket = 2048;

using nettest::bare;
using nettest::deliveries;
using nettest::line_network;
using nettest::LineTopology;
using nettest::Message;

std::shared_ptr<const Network> spec_network(const std::string& spec, std::uint32_t ranks) {
  std::shared_ptr<const topo::Topology> topology = topo::make_topology(spec);
  Placement placement = identity_placement(*topology, ranks);
  return std::make_shared<Network>(topology, std::move(placement), NetworkParams{});
}

TEST(PacketModel, IdlePathGivesTheLogGOPSTimeExactly) {
  // Links (10 GB/s) faster than 1/G (166 MB/s): s-1 bytes leave the NIC in (s-1)G, the last
  // packet's tail cuts through two routers (2 hops of 100 ns), then L. Sizes: one partial
  // packet, exactly two packets, many with a partial last one; a one-byte message is latency
  // plus hops.
  sim::LogGOPSParams p;
  NetworkParams np;
  np.hop_latency_ps = 100'000;
  for (const std::uint64_t s : std::vector<std::uint64_t>{2, 1001, 2 * kPacket + 1, 100'000}) {
    PacketModel model(line_network({10 * kGBps, 10 * kGBps}, 1, np), PacketOptions{});
    const auto at = deliveries(model, {{1000, 0, 2, s}, {5000, 2, 0, 1}}, p, 3);
    EXPECT_EQ(at[0], 1000 + (s - 1) * p.gap_per_byte.ps + p.latency.ps + 2 * np.hop_latency_ps)
        << s << " bytes";
    EXPECT_EQ(at[1], 5000 + p.latency.ps + 2 * np.hop_latency_ps);
    EXPECT_DOUBLE_EQ(model.stats().slowdown.max(), 1.0);
  }
}

TEST(PacketModel, TerminalLatencyAddsItOnTheInjectionAndTheEjectionLink) {
  // BookSim's first router and terminal channels (docs/predict.md, "Side by side with BookSim2"):
  // an idle path takes 2 x the terminal latency more, whatever the message's size and hops.
  sim::LogGOPSParams p;
  NetworkParams np;
  np.hop_latency_ps = 100'000;
  PacketOptions o;
  o.terminal_latency_ps = 7'000;
  for (const std::uint64_t s : std::vector<std::uint64_t>{2, 2 * kPacket + 1, 100'000}) {
    PacketModel model(line_network({10 * kGBps, 10 * kGBps}, 1, np), o);
    const auto at = deliveries(model, {{1000, 0, 2, s}, {5000, 2, 1, 1}, {9000, 1, 1, 500}}, p, 3);
    EXPECT_EQ(at[0], 1000 + (s - 1) * p.gap_per_byte.ps + p.latency.ps + 2 * np.hop_latency_ps +
                         2 * std::uint64_t{7'000})
        << s << " bytes";
    // Latency only (no packet) takes the path's latencies too; a node's NIC to itself none.
    EXPECT_EQ(at[1], 5000 + p.latency.ps + np.hop_latency_ps + 2 * std::uint64_t{7'000});
    EXPECT_EQ(at[2], 9000 + 499 * p.gap_per_byte.ps + p.latency.ps);
  }
}

TEST(PacketModel, GlobalExtraLatencyAddsItOncePerGlobalLink) {
  // dragonflynew's 100-cycle global channels against 10-cycle local ones: a minimal path between
  // two groups crosses one global link, a path inside a group none.
  const std::shared_ptr<const topo::Topology> topology = topo::make_topology("dragonfly:g=9,a=4,p=2,h=2");
  NetworkParams np;
  np.hop_latency_ps = 100'000;
  const auto network = std::make_shared<Network>(topology, identity_placement(*topology, 72), np);
  const std::vector<Message> m = {{0, 0, 20, 5000}, {0, 1, 4, 5000}};
  PacketModel plain(network, PacketOptions{});
  PacketOptions o;
  o.global_extra_latency_ps = 900'000;
  PacketModel longer(network, o);
  const auto without = deliveries(plain, m, bare(), 72);
  const auto with = deliveries(longer, m, bare(), 72);
  EXPECT_EQ(with[0] - without[0], 900'000U) << "group 0 to group 2";
  EXPECT_EQ(with[1], without[1]) << "inside group 0";
}

TEST(PacketModel, CreditLatencyTakesItPerFreedSlot) {
  // One 2 KiB packet of buffer behind a 10 GB/s link of 1 us: without credit latency a packet
  // leaves every 204.8 ns + 1 us (the slot frees when its predecessor's tail has crossed and left
  // it); with a credit latency of 1 us the credit crosses the link back, 1 us more per packet. A
  // buffer of 32 packets covers the round trip (204.8 ns + 2 us is 11 packets): the credit
  // latency then changes nothing.
  NetworkParams np;
  np.hop_latency_ps = 1'000'000;
  constexpr std::uint64_t kPackets = 20;
  for (const std::uint32_t slots : {1U, 32U}) {
    std::uint64_t last[2] = {0, 0};
    for (const bool delay : {false, true}) {
      PacketOptions o;
      o.buffer_bytes = slots * static_cast<std::uint32_t>(kPacket);
      o.credit_latency_ps = delay ? np.hop_latency_ps : 0;
      PacketModel model(line_network({10 * kGBps}, 1, np), o);
      last[delay ? 1 : 0] = deliveries(model, {{0, 0, 1, kPackets * kPacket + 1}}, bare(), 2)[0];
    }
    EXPECT_EQ(last[1] - last[0], slots == 1 ? (kPackets - 1) * np.hop_latency_ps : 0U) << slots << " slots";
  }
}

TEST(PacketModel, VcTurnaroundSpacesThePacketsOfOneChannel) {
  // BookSim's output VC reallocation (VC then switch allocation after the tail): a stream of 2 KiB
  // packets on one channel of a 10 GB/s link gets one packet per 204.8 ns + D; a lone packet is
  // not delayed.
  constexpr std::uint64_t kTurn = 50'000;
  constexpr std::uint64_t kPackets = 20;
  std::uint64_t stream[2] = {0, 0};
  std::uint64_t lone[2] = {0, 0};
  for (const bool turn : {false, true}) {
    PacketOptions o;
    o.vc_turnaround_ps = turn ? kTurn : 0;
    PacketModel model(line_network({10 * kGBps, 10 * kGBps}, 1), o);
    stream[turn ? 1 : 0] = deliveries(model, {{0, 0, 2, kPackets * kPacket + 1}}, bare(), 3)[0];
    lone[turn ? 1 : 0] = deliveries(model, {{0, 0, 2, kPacket + 1}}, bare(), 3)[0];
  }
  EXPECT_EQ(stream[1] - stream[0], (kPackets - 1) * kTurn);
  EXPECT_EQ(lone[1], lone[0]);
}

TEST(PacketModel, TorusEjectionLinkTakesAnyChannel) {
  // A torus' destination router needs no dateline, so its ejection link's packets take whichever
  // channel is free, as in BookSim's dim_order_torus: a stream between two nodes of one router
  // (injection link, then ejection link) alternates the two channels, and a turnaround shorter
  // than a packet's serialisation (204.8 ns) costs it nothing. On one channel it cost 19 x 50 ns.
  constexpr std::uint64_t kTurn = 50'000;
  constexpr std::uint64_t kPackets = 20;
  const auto network = spec_network("torus:4x1x1,npr=2", 8);
  std::uint64_t stream[2] = {0, 0};
  for (const bool turn : {false, true}) {
    PacketOptions o;
    o.vcs = 2;
    o.vc_turnaround_ps = turn ? kTurn : 0;
    PacketModel model(network, o);
    stream[turn ? 1 : 0] = deliveries(model, {{0, 0, 1, kPackets * kPacket + 1}}, bare(), 8)[0];
  }
  EXPECT_EQ(stream[1], stream[0]);
}

TEST(PacketModel, StreamGetsTheNicRateOrTheBottleneckLink) {
  // Ten 100 kB messages from one NIC back to back: the last arrives (10 * (s-1))G + L after the
  // first left, the NIC's rate.
  sim::LogGOPSParams p;
  {
    PacketModel model(line_network({10 * kGBps}, 1), PacketOptions{});
    std::vector<Message> m(10, Message{0, 0, 1, 100'001});
    const auto at = deliveries(model, m, p, 2);
    for (std::size_t i = 0; i < at.size(); ++i) {
      EXPECT_EQ(at[i], (i + 1) * 100'000 * p.gap_per_byte.ps + p.latency.ps) << "message " << i;
    }
  }
  // No NIC bound and a 1 GB/s link (1000 ps per byte): 1 MB after the first byte takes 1 ms,
  // the packets follow each other on the link without a gap (as the flow model's one flow).
  PacketModel model(line_network({1 * kGBps}, 1), PacketOptions{});
  const auto at = deliveries(model, {{0, 0, 1, 1'000'001}}, bare(), 2);
  EXPECT_EQ(at[0], 1'000'000'000U);
  EXPECT_EQ(model.stats().link_bytes[0], 1'000'000.0);
  // Injection, the link, ejection and the receiving NIC for each of the 489 packets.
  EXPECT_EQ(model.packet_hops(), 4 * ((1'000'000 + kPacket - 1) / kPacket));
}

TEST(PacketModel, NFlowsOnOneLinkGetOneNthEach) {
  // n flows of 1 MB through one 1 GB/s link: the link never idles, so the last packet ends at
  // n ms; round-robin arbitration ends every flow within the last n packets (n * 2048 ns).
  for (const std::uint32_t n : {2U, 3U, 5U}) {
    PacketModel model(line_network({1 * kGBps}, static_cast<int>(n)), PacketOptions{});
    std::vector<Message> m;
    for (std::uint32_t i = 0; i < n; ++i) {
      m.push_back({0, i, n + i, 1'000'001});
    }
    const auto at = deliveries(model, m, bare(), 2 * n);
    const std::uint64_t all = n * 1'000'000'000ULL;
    for (std::uint32_t i = 0; i < n; ++i) {
      EXPECT_LE(at[i], all) << n << " flows, flow " << i;
      EXPECT_GE(at[i], all - n * kPacket * 1000) << n << " flows, flow " << i;
    }
    EXPECT_NEAR(model.stats().slowdown.mean(), n, n * 0.01);
  }
}

TEST(PacketModel, IncastCompletesAtTheEjectionRate) {
  // Eight nodes on R0 send 1 MB each to the one node on R1 through a 1000 GB/s link; the
  // receiver's ejection link (100 GB/s, 10 ps per byte) carries 8 MB: 80 us, without a gap, so
  // the last ends at 80 us exactly and the others within the last eight packets.
  auto topology = std::make_shared<LineTopology>(std::vector<double>{1000 * kGBps}, 8);
  Placement placement = identity_placement(*topology, 16);
  PacketModel model(std::make_shared<Network>(std::move(topology), std::move(placement), NetworkParams{}),
                    PacketOptions{});
  std::vector<Message> m;
  for (std::uint32_t i = 0; i < 8; ++i) {
    m.push_back({0, i, 8, 1'000'001});
  }
  const auto at = deliveries(model, m, bare(), 16);
  std::uint64_t last = 0;
  for (const std::uint64_t t : at) {
    EXPECT_GE(t, 80'000'000 - 8 * kPacket * 10);
    last = std::max(last, t);
  }
  EXPECT_EQ(last, 80'000'000U);
}

// A victim (rank 8 on R0 to rank 9 on R1) shares only the link R0 -> R1 with an incast of ranks
// 0-7 (on R0) into rank 18 (on R2), whose bottleneck is rank 18's NIC: every link runs at
// 100 GB/s, every NIC at 10 GB/s (G = 100 ps). Returns the victim's delivery time, alone or
// beside the incast.
sim::LogGOPSParams fast_nics() {
  sim::LogGOPSParams p = bare();
  p.gap_per_byte = sim::SimTime{100};
  return p;
}

std::uint64_t victim_time(Model& model, bool with_incast) {
  std::vector<Message> m{{0, 8, 9, 1'000'001}};
  if (with_incast) {
    for (std::uint32_t i = 0; i < 8; ++i) {
      m.push_back({0, i, 18, 1'000'001});
    }
  }
  return deliveries(model, m, fast_nics(), 27)[0];
}

TEST(PacketModel, IncastBacklogSlowsAVictimThatSharesOneLink) {
  const auto network = line_network({100 * kGBps, 100 * kGBps}, 9);
  PacketModel packet(network, PacketOptions{});
  const std::uint64_t alone = victim_time(packet, false);
  EXPECT_EQ(alone, 100'000'000U);  // 1 MB at the NIC's 10 GB/s
  // Tree saturation: rank 18's buffers fill, then R2's buffer for the link from R1, then R1's
  // for the link from R0, where the victim's packets wait behind incast packets for every slot.
  const std::uint64_t beside = victim_time(packet, true);
  EXPECT_GT(beside, 5 * alone);
  // The flow model gives the victim its NIC rate: the incast takes 10 GB/s of the shared link.
  FlowModel flow(network);
  const std::uint64_t flow_alone = victim_time(flow, false);
  const std::uint64_t flow_beside = victim_time(flow, true);
  EXPECT_EQ(flow_alone, alone);
  EXPECT_EQ(flow_beside, flow_alone);
}

TEST(PacketModel, CongestionControlShieldsTheVictim) {
  // The incast's senders see marks from the receiver's full buffer and slow down, so the
  // buffers behind it drain and the victim gets through sooner than without congestion control.
  const auto network = line_network({100 * kGBps, 100 * kGBps}, 9);
  PacketModel plain(network, PacketOptions{});
  PacketOptions cc;
  cc.congestion_control = true;
  PacketModel controlled(network, cc);
  const std::uint64_t without = victim_time(plain, true);
  const std::uint64_t with = victim_time(controlled, true);
  EXPECT_LT(with, without * 3 / 4) << with << " ps with, " << without << " ps without";
  // The incast still completes.
  EXPECT_EQ(controlled.stats().messages, 9U);
}

TEST(PacketModel, CongestionControlSeesAnIncastWhoseBottleneckIsTheEjectionLink) {
  // Regression: marks came only from a half-full receiver buffer, i.e. when the receiving NIC is
  // the bottleneck. Here the NICs run at 100 GB/s and the ejection links at 10 GB/s, so that
  // buffer never fills: the backlog sits in the routers, where several inputs wait for rank 18's
  // ejection link (R1's link carrying ranks 0-3, and ranks 19-22's own injection buffers).
  // The victim (rank 8 on R0 to rank 9 on R1) shares the link R0 -> R1 with ranks 0-3.
  auto topology =
      std::make_shared<LineTopology>(std::vector<double>{100 * kGBps, 100 * kGBps}, 9, 10 * kGBps);
  Placement placement = identity_placement(*topology, 27);
  const auto network = std::make_shared<Network>(std::move(topology), std::move(placement), NetworkParams{});
  sim::LogGOPSParams p = bare();
  p.gap_per_byte = sim::SimTime{10};
  const auto victim = [&](Model& model) {
    std::vector<Message> m{{0, 8, 9, 1'000'001}};
    for (const std::uint32_t r : {0U, 1U, 2U, 3U, 19U, 20U, 21U, 22U}) {
      m.push_back({0, r, 18, 1'000'001});
    }
    return deliveries(model, m, p, 27)[0];
  };
  PacketModel plain(network, PacketOptions{});
  PacketOptions cc;
  cc.congestion_control = true;
  PacketModel controlled(network, cc);
  const std::uint64_t without = victim(plain);
  const std::uint64_t with = victim(controlled);
  EXPECT_LT(with, without * 3 / 4) << with << " ps with, " << without << " ps without";
}

TEST(PacketModel, NonMinimalRoutingSpreadsAnAdversarialPattern) {
  // Group 0's eight nodes each send 256 kB to a node of group 1: minimal routing puts them all on
  // the one global link between the two groups (4.7 GB/s); Valiant spreads them over seven
  // intermediate groups, and UGAL turns to Valiant paths once the minimal one queues up. UGAL by
  // gridlock's rule (queue x hops) here; BookSim2's (the default) draws one intermediate router
  // per message, and BookSimUgalRuleStaysMinimalUpToItsThreshold gives it this pattern in 32
  // messages per node.
  const auto network = spec_network("dragonfly:g=9,a=4,p=2,h=2", 72);
  std::vector<Message> m;
  for (std::uint32_t i = 0; i < 8; ++i) {
    m.push_back({0, i, 8 + i, 262'145});
  }
  std::uint64_t last[3] = {0, 0, 0};
  for (const Routing routing : {Routing::kMinimal, Routing::kValiant, Routing::kUgal}) {
    PacketOptions o;
    o.routing = routing;
    o.ugal_rule = UgalRule::kHops;
    PacketModel model(network, o);
    for (const std::uint64_t t : deliveries(model, m, bare(), 72)) {
      last[static_cast<int>(routing)] = std::max(last[static_cast<int>(routing)], t);
    }
  }
  // Minimal: 8 x 256 kB through one 4.7 GB/s link, 446 us at least.
  EXPECT_GE(last[0], static_cast<std::uint64_t>(8 * 262'144 / 4.7e-3));
  EXPECT_LT(last[1] * 2, last[0]) << "valiant";
  EXPECT_LT(last[2] * 2, last[0]) << "ugal";
}

// Every node of router r sends `count` messages of `bytes` to the node of the same index on router
// r+1 of its group (the last router to the first): all of a router's traffic wants one local link.
// Several messages per pair, as Valiant draws its intermediate per message.
std::vector<Message> next_router_pattern(const topo::Dragonfly& t, std::uint32_t count, std::uint64_t bytes) {
  const auto a = static_cast<std::uint32_t>(t.options().routers_per_group);
  const auto p = static_cast<std::uint32_t>(t.options().nodes_per_router);
  std::vector<Message> m;
  for (std::uint32_t k = 0; k < count; ++k) {
    for (std::uint32_t n = 0; n < t.nodes().size(); ++n) {
      const std::uint32_t router = n / p;
      const std::uint32_t next = (router / a) * a + (router % a + 1) % a;
      m.push_back({0, n, next * p + n % p, bytes});
    }
  }
  return m;
}

// The latest delivery of `m` under `routing` (optionally BookSim's UGAL rule).
std::uint64_t last_delivery(const std::shared_ptr<const Network>& network, const std::vector<Message>& m,
                            Routing routing, UgalRule rule = UgalRule::kHops, std::uint32_t vcs = 3) {
  PacketOptions o;
  o.routing = routing;
  o.ugal_rule = rule;
  o.vcs = vcs;
  PacketModel model(network, o);
  const auto at =
      deliveries(model, m, bare(), static_cast<std::uint32_t>(network->topology().nodes().size()));
  return *std::max_element(at.begin(), at.end());
}

// Intra-group non-minimal routing, on a 2-group dragonfly whose links all run at the injection
// rate (10 GB/s; a = 8 routers of p = 4 nodes). Every node of router r sends 1 MB (64 messages of 15.6 kB) to
// router r+1 of its group. Minimal: the p flows share the one local link r -> r+1: each gets 1/p of the
// injection rate, 4 MB / 10 GB/s = 400 us. Valiant through a random intermediate router m (not r,
// not r+1): link x -> y (y != x+1) carries x's flows in their first phase when y is their
// intermediate (p/(a-2) of a router's rate) and y-1's flows in their second phase when x is
// theirs (the same again); x -> x+1 carries none. So the bound is (a-2)/(2p) = 0.75 of the
// injection rate, 1 MB / 7.5 GB/s = 133 us. UGAL sits between (it sends minimally while the
// direct link's queue is short). Until now a pair within a group had no Valiant path: all three
// ran at the minimal routing's 400 us.
TEST(PacketModel, NonMinimalRoutingWithinAGroupBeatsMinimal) {
  const auto network = spec_network("dragonfly:g=2,a=8,p=4,h=1,local=10e9,global=10e9,terminal=10e9", 64);
  const auto& t = dynamic_cast<const topo::Dragonfly&>(network->topology());
  const auto m = next_router_pattern(t, 64, 15'626);
  const std::uint64_t minimal = last_delivery(network, m, Routing::kMinimal);
  const std::uint64_t valiant = last_delivery(network, m, Routing::kValiant);
  const std::uint64_t ugal = last_delivery(network, m, Routing::kUgal);
  const std::uint64_t booksim = last_delivery(network, m, Routing::kUgal, UgalRule::kBookSim);
  EXPECT_GE(minimal, 400'000'000U);
  EXPECT_LT(minimal, 440'000'000U);
  // Valiant: the bound (133 us) loosely; a random choice per message is not a perfect spread.
  EXPECT_GE(valiant, 133'000'000U);
  EXPECT_LT(valiant * 3, minimal * 2) << "valiant " << valiant << " ps, minimal " << minimal << " ps";
  EXPECT_LT(ugal * 4, minimal * 3) << "ugal " << ugal << " ps, minimal " << minimal << " ps";
  // BookSim's dragonflynew keeps packets that stay in their group minimal, and so does its rule.
  EXPECT_EQ(booksim, minimal) << "booksim rule " << booksim << " ps, minimal " << minimal << " ps";
}

// Between the two groups of a 2-group dragonfly (no third group): the 4 nodes of router 0 of
// group 0 each send 1 MB (64 messages) to group 1. Minimal routing takes router 0's own global link (h = 1):
// 4 MB / 10 GB/s = 400 us. The non-minimal path goes through another gateway of group 0 and its
// global link; router 0's 7 local links and the 8 global links then carry the load, and the
// injection links (1 MB / 10 GB/s = 100 us) become the bound. Until now a 2-group machine had no
// Valiant path: UGAL was minimal routing.
TEST(PacketModel, NonMinimalRoutingBetweenTwoGroupsUsesOtherGateways) {
  const auto network = spec_network("dragonfly:g=2,a=8,p=4,h=1,local=10e9,global=10e9,terminal=10e9", 64);
  std::vector<Message> m;
  for (std::uint32_t k = 0; k < 64; ++k) {
    for (std::uint32_t i = 0; i < 4; ++i) {
      m.push_back({0, i, 32 + 4 * i + 1, 15'626});
    }
  }
  const std::uint64_t minimal = last_delivery(network, m, Routing::kMinimal);
  const std::uint64_t valiant = last_delivery(network, m, Routing::kValiant);
  const std::uint64_t ugal = last_delivery(network, m, Routing::kUgal);
  EXPECT_GE(minimal, 400'000'000U);
  EXPECT_GE(valiant, 100'000'000U);
  EXPECT_LT(valiant * 2, minimal) << "valiant " << valiant << " ps, minimal " << minimal << " ps";
  EXPECT_LT(ugal * 2, minimal) << "ugal " << ugal << " ps, minimal " << minimal << " ps";
}

TEST(PacketModel, BookSimUgalRuleStaysMinimalUpToItsThreshold) {
  // The adversarial pattern above with BookSim's UGAL rule: with a threshold above any buffer's
  // contents every packet goes minimally (the minimal run's times exactly); with none it turns to
  // Valiant paths once the minimal one's buffers fill, and beats minimal routing. Each node's
  // 256 kB go as 32 messages: a message draws one intermediate router, and 2 in 9 of them lie in
  // the source's or the destination's group (then the message goes minimally, as BookSim's do).
  const auto network = spec_network("dragonfly:g=9,a=4,p=2,h=2", 72);
  std::vector<Message> m;
  for (std::uint32_t k = 0; k < 32; ++k) {
    for (std::uint32_t i = 0; i < 8; ++i) {
      m.push_back({0, i, 8 + i, 8'193});
    }
  }
  PacketModel minimal(network, PacketOptions{});
  const auto base = deliveries(minimal, m, bare(), 72);
  PacketOptions o;
  o.routing = Routing::kUgal;
  o.ugal_rule = UgalRule::kBookSim;
  o.ugal_threshold_bytes = std::uint64_t{1} << 40U;
  PacketModel biased(network, o);
  EXPECT_EQ(deliveries(biased, m, bare(), 72), base);
  o.ugal_threshold_bytes = 0;
  PacketModel adaptive(network, o);
  const auto spread = deliveries(adaptive, m, bare(), 72);
  EXPECT_LT(*std::max_element(spread.begin(), spread.end()) * 2, *std::max_element(base.begin(), base.end()));
}

// BookSim2's dragonflynew UGAL routes a non-minimal packet to a random router of the machine, not
// only through the router where its global link lands in a random group: in an intermediate group
// it may take a local hop to that router before the one to the gateway onward. Every node of group
// 0 sends to group 1 (64 messages each, one intermediate router drawn per message); with the
// BookSim rule, local links of the intermediate groups that end elsewhere than at the gateway to
// group 1 carry bytes, with gridlock's own rule (through the landing router) none. And it draws the
// router from the whole machine: links out of group 1 carry nothing either way.
TEST(PacketModel, BookSimUgalGoesThroughARandomRouter) {
  const auto network = spec_network("dragonfly:g=9,a=4,p=2,h=2", 72);
  const auto& t = dynamic_cast<const topo::Dragonfly&>(network->topology());
  std::vector<Message> m;
  for (std::uint32_t k = 0; k < 64; ++k) {
    for (std::uint32_t i = 0; i < 8; ++i) {
      m.push_back({0, i, 8 + i, 16'385});
    }
  }
  // Per group, its gateway towards group 1.
  std::vector<topo::RouterId> gateway(9, 0);
  for (const topo::Link& l : t.links()) {
    if (l.kind == topo::LinkKind::kNetwork && t.group_of(l.dst_router) == 1 &&
        t.group_of(l.src_router) != 1) {
      gateway[static_cast<std::size_t>(t.group_of(l.src_router))] = l.src_router;
    }
  }
  const auto detour_bytes = [&](UgalRule rule) {
    PacketOptions o;
    o.routing = Routing::kUgal;
    o.ugal_rule = rule;
    PacketModel model(network, o);
    deliveries(model, m, bare(), 72);
    double detour = 0;
    double out_of_destination = 0;
    for (std::size_t id = 0; id < t.links().size(); ++id) {
      const topo::Link& l = t.links()[id];
      if (l.kind != topo::LinkKind::kNetwork) {
        continue;
      }
      const int gs = t.group_of(l.src_router);
      const int gd = t.group_of(l.dst_router);
      if (gs == gd && gs >= 2 && l.dst_router != gateway[static_cast<std::size_t>(gs)]) {
        detour += model.stats().link_bytes[id];
      }
      if (gs == 1 && gd != 1) {
        out_of_destination += model.stats().link_bytes[id];
      }
    }
    EXPECT_EQ(out_of_destination, 0.0);
    return detour;
  };
  EXPECT_GT(detour_bytes(UgalRule::kBookSim), 0.0);
  EXPECT_EQ(detour_bytes(UgalRule::kHops), 0.0);
}

TEST(PacketModel, BookSimUgalNeedsAChannelPerPhase) {
  const auto network = spec_network("dragonfly:g=2,a=4,p=2,h=1", 16);
  PacketOptions o;
  o.routing = Routing::kUgal;
  o.ugal_rule = UgalRule::kBookSim;
  o.vcs = 2;
  EXPECT_THROW(PacketModel(network, o), InputError);
  o.vcs = 3;
  EXPECT_NO_THROW(PacketModel(network, o));
}

TEST(PacketModel, RandomTrafficIsDeliveredOnceAndNeverBeforeItsIdleTime) {
  // Random messages (0 B to 40 kB, random senders, receivers and times) on each topology kind
  // with random packet and buffer sizes, one rank per node and then two: every message is delivered exactly
  // once (deliveries() checks), never before its idle time t + L + (s-1)G + hops x hop latency, and the links
  // carry exactly s-1 bytes per message and link of its (minimal) path.
  NetworkParams np;
  np.hop_latency_ps = 50'000;
  Rng rng(7);
  for (const char* spec : {"dragonfly:g=5,a=2,p=2,h=2", "torus:4x2x2,npr=1", "fattree:4x4,taper=2"}) {
    std::shared_ptr<const topo::Topology> topology = topo::make_topology(spec);
    for (std::uint32_t per_node = 1; per_node <= 2; ++per_node) {
      const auto ranks = static_cast<std::uint32_t>(topology->nodes().size()) * per_node;
      const auto network =
          std::make_shared<Network>(topology, identity_placement(*topology, ranks, per_node), np);
      PacketOptions o;
      o.packet_bytes = static_cast<std::uint32_t>(64 + uniform_below(rng, 4096));
      o.buffer_bytes = o.packet_bytes * static_cast<std::uint32_t>(1 + uniform_below(rng, 8));
      PacketModel model(network, o);
      sim::LogGOPSParams params;
      params.gap_per_byte = sim::SimTime{uniform_below(rng, 200)};
      std::vector<Message> m;
      m.reserve(300);
      for (int i = 0; i < 300; ++i) {
        m.push_back({uniform_below(rng, 20'000'000), static_cast<std::uint32_t>(uniform_below(rng, ranks)),
                     static_cast<std::uint32_t>(uniform_below(rng, ranks)), uniform_below(rng, 40'000)});
      }
      const auto at = deliveries(model, m, params, ranks);
      std::vector<double> expected_bytes(topology->links().size(), 0);
      std::vector<topo::LinkId> path;
      for (std::size_t i = 0; i < m.size(); ++i) {
        network->path_into(m[i].src, m[i].dst, path);
        const std::uint64_t carried = m[i].bytes > 1 ? m[i].bytes - 1 : 0;
        const std::uint64_t idle = m[i].time_ps + params.latency.ps + carried * params.gap_per_byte.ps +
                                   Network::hops(path) * np.hop_latency_ps;
        EXPECT_GE(at[i], idle) << spec << " message " << i;
        for (const topo::LinkId l : path) {
          expected_bytes[l] += static_cast<double>(carried);
        }
      }
      EXPECT_EQ(model.stats().link_bytes, expected_bytes) << spec;
      EXPECT_EQ(model.stats().messages, m.size());
    }
  }
}

// An all-to-all of 4 kB among `ranks` ranks of the 72-node dragonfly through the engine.
sim::SimResult run_alltoall(Model& model, std::uint32_t ranks) {
  const sim::Schedule schedule = sim::generate("alltoall(algo=linear, size=4KiB)", ranks, 1);
  sim::SimOptions options;
  options.params.gap_per_byte = sim::SimTime{20};  // 50 GB/s NICs: the network decides
  options.network = &model;
  return sim::simulate(schedule, options);
}

TEST(PacketModel, SameSeedSameRun) {
  const auto network = spec_network("dragonfly:g=9,a=4,p=2,h=2", 72);
  for (const Routing routing : {Routing::kValiant, Routing::kUgal}) {
    PacketOptions o;
    o.routing = routing;
    o.seed = 42;
    PacketModel a(network, o);
    PacketModel b(network, o);
    const sim::SimResult ra = run_alltoall(a, 24);
    const sim::SimResult rb = run_alltoall(b, 24);
    ASSERT_TRUE(ra.complete) << to_string(routing);
    ASSERT_TRUE(rb.complete);
    EXPECT_EQ(ra.max_finish.ps, rb.max_finish.ps);
    for (std::size_t r = 0; r < ra.finish.size(); ++r) {
      EXPECT_EQ(ra.finish[r].ps, rb.finish[r].ps);
    }
    EXPECT_EQ(a.stats().link_bytes, b.stats().link_bytes);
    EXPECT_EQ(a.packet_hops(), b.packet_hops());
    // A second run of one model (reusing its pools) is the same run again.
    const sim::SimResult again = run_alltoall(a, 24);
    EXPECT_EQ(again.max_finish.ps, ra.max_finish.ps);
    EXPECT_EQ(a.packet_hops(), b.packet_hops());
    if (routing == Routing::kValiant) {
      // Valiant paths are longer than minimal ones: more packet-hops for the same packets.
      PacketModel minimal(network, PacketOptions{});
      ASSERT_TRUE(run_alltoall(minimal, 24).complete);
      EXPECT_GT(a.packet_hops(), minimal.packet_hops() * 11 / 10);
    }
  }
}

TEST(PacketModel, BothModelsRunTheSameSchedules) {
  // Through the factory the tools use: every schedule completes with the same message counts and
  // the same bytes on the network under both models (minimal routing: the same paths).
  const auto network = spec_network("dragonfly:g=9,a=4,p=2,h=2", 72);
  for (const char* program : {"alltoall(algo=pairwise, size=4KiB)", "allreduce(algo=ring, size=64KiB)",
                              "halo3d(size=8KiB, dims=3x3x4)"}) {
    const sim::Schedule schedule = sim::generate(program, 36, 1);
    std::vector<sim::SimResult> results;
    std::vector<std::unique_ptr<Model>> models;
    for (const ModelKind kind : {ModelKind::kFlow, ModelKind::kPacket}) {
      models.push_back(make_model(kind, network, PacketOptions{}));
      sim::SimOptions options;
      options.network = models.back().get();
      results.push_back(sim::simulate(schedule, options));
      ASSERT_TRUE(results.back().complete) << program << " " << to_string(kind);
    }
    EXPECT_EQ(results[0].messages, results[1].messages) << program;
    EXPECT_EQ(models[0]->stats().messages, models[1]->stats().messages) << program;
    EXPECT_EQ(models[0]->stats().network_messages, models[1]->stats().network_messages) << program;
    EXPECT_DOUBLE_EQ(models[0]->stats().bytes, models[1]->stats().bytes) << program;
    for (std::size_t l = 0; l < models[0]->stats().link_bytes.size(); ++l) {
      EXPECT_DOUBLE_EQ(models[0]->stats().link_bytes[l], models[1]->stats().link_bytes[l]) << program;
    }
    EXPECT_EQ(models[1]->stats().model, "packet");
  }
}

// Issue 26's starvation, on a ring of 6 routers (2 nodes each, 2 dateline channels). A long flow
// Y (router 5 -> 0 -> 1) crosses the wrap-around link, so it leaves router 0 on channel 1; the
// short flow X (router 0 -> 1 -> 2) leaves on channel 0 and then shares the link 1 -> 2 with two
// long flows Z and Z2 (router 1 -> 2). X gets a third of that link but half of the link 0 -> 1,
// so its channel-0 buffer behind the link 0 -> 1 fills and X sometimes has no slot when Y has one.
// The old arbiter then granted Y and kept pointing at Y's place in the request list, where Y
// (asking again at once, its buffer backlogged) stayed: X waited until Y ended (X at 1,001 us,
// after Y's 864 us). Round-robin over the inputs gives X its turn whenever it has a slot: about a
// third of the link 1 -> 2, 3x its time alone (56 us).
TEST(PacketModel, EveryInputGetsItsTurnBesideABackloggedFlowOnAnotherChannel) {
  const auto network = spec_network("torus:6x1x1", 12);
  const std::vector<Message> m{{0, 10, 2, 8'000'001},  // Y
                               {0, 3, 5, 8'000'001},   // Z
                               {0, 2, 5, 8'000'001},   // Z2
                               {0, 0, 4, 524'289}};    // X
  PacketOptions o;
  o.vcs = 2;
  PacketModel alone_model(network, o);
  const std::uint64_t alone = deliveries(alone_model, {m[3]}, bare(), 12)[0];
  PacketModel model(network, o);
  const auto at = deliveries(model, m, bare(), 12);
  EXPECT_LT(at[3], std::min({at[0], at[1], at[2]})) << "X starved until a long flow ended";
  EXPECT_LT(at[3], 4 * alone) << "X alone: " << alone << " ps";
}

TEST(PacketModel, DeadlockFreeWithTheRequiredChannels) {
  // Valiant and UGAL on the dragonfly with 3 channels, the 2x2x8 torus (dateline) with 2 and a
  // tapered fat tree with 1, under an all-to-all that fills every buffer (256 B buffers of 128 B
  // packets): every run completes.
  PacketOptions o;
  o.packet_bytes = 128;
  o.buffer_bytes = 256;
  const sim::Schedule schedule = sim::generate("alltoall(algo=linear, size=1KiB)", 32, 1);
  const std::vector<std::pair<std::string, std::pair<Routing, std::uint32_t>>> cases{
      {"dragonfly:g=9,a=4,p=2,h=2", {Routing::kValiant, 3}},
      {"dragonfly:g=9,a=4,p=2,h=2", {Routing::kUgal, 3}},
      {"dragonfly:g=9,a=4,p=2,h=2", {Routing::kMinimal, 2}},
      {"torus:2x2x8", {Routing::kMinimal, 2}},
      {"fattree:4x8,taper=2", {Routing::kMinimal, 1}}};
  for (const auto& [spec, choice] : cases) {
    o.routing = choice.first;
    o.vcs = choice.second;
    PacketModel model(spec_network(spec, 32), o);
    sim::SimOptions options;
    options.params.gap_per_byte = sim::SimTime{0};
    options.network = &model;
    const sim::SimResult r = sim::simulate(schedule, options);
    EXPECT_TRUE(r.complete) << spec << " " << to_string(choice.first);
    EXPECT_EQ(model.in_flight(), 0U) << spec;
  }
}

// Valiant paths that turn at an intermediate router inside a group change channel there. A
// saturating intra-group pattern (every node of router r to router r+1, 8 messages of 8 kB) with buffers
// of two 128 B packets completes on a 2-group dragonfly with 2 channels and on a 9-group one with
// 3 (every buffer fills; without the change of channel at the turn, the two local hops of the
// paths r -> m -> r+1 close cycles of full buffers on channel 0). One channel fewer is refused,
// with the reason and the count to give.
TEST(PacketModel, IntraGroupValiantIsDeadlockFreeWithTheRequiredChannels) {
  for (const auto& [spec, needed] : std::vector<std::pair<std::string, std::uint32_t>>{
           {"dragonfly:g=2,a=8,p=4,h=1,local=10e9,global=10e9,terminal=10e9", 2},
           {"dragonfly:g=2,a=6,p=2,h=1,intra=2d:2x3", 2},
           {"dragonfly:g=9,a=4,p=2,h=2", 3}}) {
    std::shared_ptr<const topo::Topology> topology = topo::make_topology(spec);
    const auto ranks = static_cast<std::uint32_t>(topology->nodes().size());
    const auto network =
        std::make_shared<Network>(topology, identity_placement(*topology, ranks), NetworkParams{});
    const auto m = next_router_pattern(dynamic_cast<const topo::Dragonfly&>(*topology), 8, 8'193);
    for (const Routing routing : {Routing::kValiant, Routing::kUgal}) {
      EXPECT_EQ(required_vcs(routing, *network), needed) << spec;
      PacketOptions o;
      o.packet_bytes = 128;
      o.buffer_bytes = 256;
      o.routing = routing;
      o.ugal_rule = UgalRule::kHops;  // the rule whose paths need only `needed` channels
      o.vcs = needed;
      PacketModel model(network, o);
      const auto at = deliveries(model, m, bare(), ranks);
      EXPECT_EQ(std::count(at.begin(), at.end(), 0U), 0) << spec << " " << to_string(routing);
      o.vcs = needed - 1;
      try {
        PacketModel refused(network, o);
        ADD_FAILURE() << spec << " " << to_string(routing) << " with " << o.vcs << " channels was accepted";
      } catch (const InputError& e) {
        EXPECT_NE(
            std::string(e.what()).find("could deadlock with " + std::to_string(o.vcs) + " virtual channel"),
            std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("give --vcs " + std::to_string(needed) + " or more"),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

// With no contention and links faster than 1/G, the engine gives the LogGOPS times exactly
// (virtual cut-through: the last packet's tail leaves the receiving NIC (s-1)G after the first
// byte left the sender). Packets that reach one link at the same instant are serialised there,
// which LogGOPS and the flow model (whose flows share a link's spare capacity) do not do: a
// message is then late by at most the other packets' time on that link, so a run of M
// single-packet messages stays within M times the largest packet's time on the slowest link.
void expect_loggops(const sim::Schedule& schedule, const std::string& what, std::uint64_t slack_ps) {
  const sim::SimOptions plain;
  const sim::SimResult expected = sim::simulate(schedule, plain);
  ASSERT_TRUE(expected.complete) << what;
  PacketModel model(spec_network("dragonfly:g=9,a=4,p=2,h=2", schedule.num_ranks()), PacketOptions{});
  sim::SimOptions with = plain;
  with.network = &model;
  const sim::SimResult got = sim::simulate(schedule, with);
  ASSERT_TRUE(got.complete) << what;
  EXPECT_EQ(got.messages, expected.messages) << what;
  for (std::uint32_t r = 0; r < schedule.num_ranks(); ++r) {
    EXPECT_GE(got.finish[r].ps, expected.finish[r].ps) << what << ", rank " << r;
    EXPECT_LE(got.finish[r].ps, expected.finish[r].ps + slack_ps) << what << ", rank " << r;
  }
}

TEST(PacketModel, UncontendedEngineRunsEqualLogGOPS) {
  expect_loggops(sim::parse_goal("num_ranks 2\nrank 0 {\nl1: send 100000b to 1\nl2: recv 8b from 1\n"
                                 "l2 requires l1\n}\nrank 1 {\nl1: recv 100000b from 0\n"
                                 "l2: send 8b to 0\nl2 requires l1\n}\n"),
                 "eager and rendezvous ping-pong", 0);
  for (const char* program :
       {"bcast(algo=binomial, size=32KiB)", "barrier", "allreduce(algo=ring, size=64KiB)"}) {
    expect_loggops(sim::generate(program, 16, 1), program, 0);
  }
  // Recursive doubling's partners on one router pair share its local link at the same instant:
  // 64 messages of one 7-byte packet, at most 1,490 ps each on a 4.7 GB/s global link.
  const sim::Schedule recdoub = sim::generate("allreduce(algo=recdoub, size=8B)", 16, 1);
  expect_loggops(recdoub, "allreduce(algo=recdoub, size=8B)", 64ULL * 1490);
}

}  // namespace
}  // namespace gridlock::net

namespace gridlock::net {
namespace {

// Issue 36: a 1-byte packet in a 4 GiB buffer sized a credit ring of 4 * 2^30 slots per virtual
// channel of every link; packet sizes and buffer depths have bounds, and the model's memory an
// estimate.
TEST(PacketModelBounds, PacketSizeAndBufferDepthAreBounded) {
  const auto network = spec_network("torus:2x2x2", 8);
  PacketOptions options;
  options.packet_bytes = kMaxPacketBytes + 1;
  options.buffer_bytes = 0xFFFFFFFFU;
  EXPECT_THROW(validate(options, *network), InputError);
  options.packet_bytes = 1;
  options.buffer_bytes = kMaxBufferPackets + 1;
  EXPECT_THROW(validate(options, *network), InputError);
  options.buffer_bytes = kMaxBufferPackets;
  EXPECT_NO_THROW(validate(options, *network));
}

TEST(PacketModelBounds, ModelEstimateGrowsWithLinksSlotsAndRanks) {
  PacketOptions options;
  const std::uint64_t base = estimate_model_bytes(ModelKind::kPacket, 100, 10, options);
  EXPECT_GT(estimate_model_bytes(ModelKind::kPacket, 200, 10, options), base);
  EXPECT_GT(estimate_model_bytes(ModelKind::kPacket, 100, 20, options), base);
  options.buffer_bytes *= 4;
  EXPECT_GT(estimate_model_bytes(ModelKind::kPacket, 100, 10, options), base);
  // At least the credit rings: links x VCs x slots x 8 bytes.
  EXPECT_GE(estimate_model_bytes(ModelKind::kPacket, 100, 10, options),
            std::uint64_t{100} * options.vcs * (options.buffer_bytes / options.packet_bytes) * 8);
  EXPECT_LT(estimate_model_bytes(ModelKind::kFlow, 100, 10, options), base);
  EXPECT_EQ(estimate_model_bytes(ModelKind::kFlow, UINT64_MAX, 10, options), UINT64_MAX);
}

}  // namespace
}  // namespace gridlock::net
