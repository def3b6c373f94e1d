// Engine timings checked against hand-computed LogGOPS (LogGOPSim) results.
#include "gridlock/sim/engine.hpp"

#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {
namespace {

constexpr std::uint64_t kNs = 1000;  // ps per ns
// Defaults: L=2.5us o=1.5us g=1us G=6ns O=0 S=65535.
constexpr std::uint64_t L = 2500 * kNs;
constexpr std::uint64_t o = 1500 * kNs;
constexpr std::uint64_t G = 6 * kNs;

SimResult run(std::string_view text, const LogGOPSParams& params = {}) {
  SimOptions options;
  options.params = params;
  return simulate(parse_goal(text, "test.goal"), options);
}

TEST(Engine, OneEagerMessageCostsTwoOPlusLPlusSevenG) {
  const SimResult r = run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n");
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[0].ps, o);
  EXPECT_EQ(r.finish[1].ps, 2 * o + L + 7 * G);
  EXPECT_EQ(r.max_finish.ps, 2 * o + L + 7 * G);
  EXPECT_EQ(r.max_finish_rank, 1U);
  EXPECT_EQ(r.messages, 1U);
  EXPECT_EQ(r.ops_completed, 2U);
}

TEST(Engine, SubNanosecondPerByteGap) {
  LogGOPSParams p;
  p.gap_per_byte = SimTime{250};  // 0.25 ns per byte
  const SimResult r = run("num_ranks 2\nrank 0 {\nsend 1001b to 1\n}\nrank 1 {\nrecv 1001b from 0\n}\n", p);
  EXPECT_EQ(r.finish[1].ps, 2 * o + L + std::uint64_t{1000} * 250);
}

TEST(Engine, PerByteOverheadUsesTheLargerOfOAndGAtTheReceiver) {
  LogGOPSParams p;
  p.overhead_per_byte = SimTime{10 * kNs};
  const SimResult r = run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", p);
  EXPECT_EQ(r.finish[0].ps, o + 70 * kNs);
  // Message leaves at send start + o + L (O is charged on the CPU, not the wire).
  EXPECT_EQ(r.finish[1].ps, o + L + o + 70 * kNs);
}

TEST(Engine, PingPong) {
  const SimResult r = run(R"(num_ranks 2
rank 0 {
s: send 8b to 1
r: recv 8b from 1
r requires s
}
rank 1 {
r: recv 8b from 0
s: send 8b to 0
s requires r
}
)");
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[0].ps, 2 * (2 * o + L + 7 * G));
  EXPECT_EQ(r.finish[1].ps, (2 * o + L + 7 * G) + o);
}

constexpr std::string_view kRendezvous = R"(num_ranks 2
rank 0 {
s: send 8b to 1
c: calc 100
c requires s
}
rank 1 {
w: calc 10000
r: recv 8b from 0
r requires w
}
)";

TEST(Engine, EagerSendCompletesAfterItsCpuPart) {
  const SimResult r = run(kRendezvous);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[0].ps, o + 100 * kNs);
  // The message waits for the receiver's CPU (busy until 10us), then is handled.
  EXPECT_EQ(r.finish[1].ps, 10000 * kNs + o + 7 * G);
}

TEST(Engine, RendezvousSendCompletesWhenTheReceiveIsPosted) {
  LogGOPSParams p;
  p.eager_threshold_bytes = 4;
  const SimResult r = run(kRendezvous, p);
  ASSERT_TRUE(r.complete);
  // The receive is posted at 10us, so the send completes then and the calc follows.
  EXPECT_EQ(r.finish[0].ps, 10000 * kNs + 100 * kNs);
  EXPECT_EQ(r.finish[1].ps, 10000 * kNs + o + 7 * G);
}

TEST(Engine, RendezvousMatchedByAPostedReceive) {
  LogGOPSParams p;
  p.eager_threshold_bytes = 4;
  const SimResult r = run(R"(num_ranks 2
rank 0 {
s: send 8b to 1
c: calc 100
c requires s
}
rank 1 {
recv 8b from 0
}
)",
                          p);
  // The message is handled at o + L, matching the posted receive: the send completes then.
  EXPECT_EQ(r.finish[0].ps, o + L + 100 * kNs);
  EXPECT_EQ(r.finish[1].ps, 2 * o + L + 7 * G);
}

LogGOPSParams handshake_params() {
  LogGOPSParams p;
  p.eager_threshold_bytes = 4;
  p.rendezvous_handshake = true;
  return p;
}

TEST(Engine, RendezvousHandshakeCostsASmallMessageRoundTrip) {
  const SimResult r =
      run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", handshake_params());
  ASSERT_TRUE(r.complete);
  // Request-to-send (o+L+o), clear-to-send (o+L+o), then the data (o+L+o+7G): one eager message
  // plus the round trip of two one-byte control messages, 4o + 2L.
  EXPECT_EQ(r.finish[1].ps, 6 * o + 3 * L + 7 * G);
  // The send completes when the data's CPU part ends.
  EXPECT_EQ(r.finish[0].ps, 5 * o + 2 * L);
  EXPECT_EQ(r.messages, 1U);
}

TEST(Engine, RendezvousHandshakeStartsWhenALateReceiveIsPosted) {
  const SimResult r = run(kRendezvous, handshake_params());
  ASSERT_TRUE(r.complete);
  constexpr std::uint64_t kPosted = 10000 * kNs;
  // The request-to-send waits for the receiver's CPU (10us) and is handled by T + o; the receive
  // posted at T matches it, and the clear-to-send leaves when the CPU is free again.
  EXPECT_EQ(r.finish[1].ps, kPosted + 5 * o + 2 * L + 7 * G);
  EXPECT_EQ(r.finish[0].ps, kPosted + 4 * o + L + 100 * kNs);
}

TEST(Engine, RendezvousHandshakeLeavesEagerMessagesAlone) {
  const SimResult r =
      run("num_ranks 2\nrank 0 {\nsend 4b to 1\n}\nrank 1 {\nrecv 4b from 0\n}\n", handshake_params());
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[1].ps, 2 * o + L + 3 * G);
}

TEST(Engine, RendezvousHandshakeWithoutAReceiveIsReported) {
  const SimResult r =
      run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0 tag 5\n}\n", handshake_params());
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.unexpected_left, 1U);
  ASSERT_FALSE(r.stuck.empty());
  EXPECT_NE(r.stuck[0].state.find("rendezvous send"), std::string::npos) << r.stuck[0].state;
}

TEST(Engine, GapThrottlesBackToBackSendsAndReceives) {
  LogGOPSParams p;
  p.gap = SimTime{5000 * kNs};
  const SimResult r = run(R"(num_ranks 2
rank 0 {
send 8b to 1
send 8b to 1
send 8b to 1
}
rank 1 {
recv 8b from 0
recv 8b from 0
recv 8b from 0
}
)",
                          p);
  ASSERT_TRUE(r.complete);
  const std::uint64_t g = 5000 * kNs;
  // Sends start at 0, g, 2g (the NIC gap g + 7G... is shorter than g + G*7 > g? no: g + 7G).
  const std::uint64_t send2 = 2 * (g + 7 * G);
  EXPECT_EQ(r.finish[0].ps, send2 + o);
  // Receiver NIC: each message occupies it for g + 7G; the third arrives at send2 + o + L.
  const std::uint64_t first = o + L;
  const std::uint64_t second = std::max(g + 7 * G + o + L, first + g + 7 * G);
  const std::uint64_t third = std::max(send2 + o + L, second + g + 7 * G);
  EXPECT_EQ(r.finish[1].ps, third + o + 7 * G);
}

TEST(Engine, AnySourceAndAnyTagMatchInPostingOrder) {
  // Rank 2 posts "tag 5 from any" first and "any tag from any" second. The tag-7 message from
  // rank 0 arrives first and can only match the second; rank 1's tag-5 message matches the first.
  const SimResult r = run(R"(num_ranks 3
rank 0 {
send 8b to 2 tag 7
}
rank 1 {
w: calc 1000
s: send 8b to 2 tag 5
s requires w
}
rank 2 {
a: recv 8b from -1 tag 5
b: recv 8b from -1 tag -1
c: calc 10000
c requires a
}
)");
  ASSERT_TRUE(r.complete);
  const std::uint64_t first_done = o + L + o + 7 * G;       // rank 0's message
  const std::uint64_t second_arrival = 1000 * kNs + o + L;  // rank 1's message
  const std::uint64_t second_done = std::max(second_arrival, first_done) + o + 7 * G;
  EXPECT_EQ(r.finish[2].ps, second_done + 10000 * kNs);
}

// Receives posted at the start are matched out of order, so the posted queue must skip the
// matched ones and still find every unmatched one (and keep them ahead of later receives).
TEST(Engine, ReceivesPostedAtTheStartMatchInAnyOrder) {
  const std::uint32_t order[] = {5, 1, 6, 0, 7, 3, 2, 4};
  std::string text = "num_ranks 2\nrank 0 {\n";
  for (std::uint32_t i = 0; i < 8; ++i) {
    text += fmt::format("s{}: send 8b to 1 tag {}\n", i, order[i]);
    if (i > 0) {
      text += fmt::format("s{} requires s{}\n", i, i - 1);
    }
  }
  text += "late: send 8b to 1 tag 0\nlate requires s7\n}\nrank 1 {\n";
  for (std::uint32_t tag = 0; tag < 8; ++tag) {
    text += fmt::format("r{}: recv 8b from 0 tag {}\n", tag, tag);
  }
  // Posted after r0 completes: it must not take a message meant for a root receive.
  text += "any: recv 8b from -1 tag -1\nany requires r0\n}\n";
  const SimResult r = run(text);
  ASSERT_TRUE(r.complete) << stuck_report(r);
  EXPECT_EQ(r.unexpected_left, 0U);
  EXPECT_EQ(r.ops_completed, 18U);
  // A message leaves every o; handling one takes o + 7G > o, so the receiver's CPU is the
  // bottleneck from the first arrival (o + L) on: nine handlings back to back.
  EXPECT_EQ(r.finish[1].ps, o + L + 9 * (o + 7 * G));
}

TEST(Engine, IrequiresOverlapsWithAPendingReceive) {
  const std::string_view overlap = R"(num_ranks 2
rank 0 {
send 8b to 1
}
rank 1 {
r: recv 8b from 0
c: calc 10000
c irequires r
}
)";
  const SimResult r = run(overlap);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[1].ps, 10000 * kNs + o + 7 * G);  // message handled after the calc
  std::string blocking(overlap);
  blocking.replace(blocking.find("irequires"), 9, "requires");
  const SimResult b = run(blocking);
  EXPECT_EQ(b.finish[1].ps, 2 * o + L + 7 * G + 10000 * kNs);
}

TEST(Engine, SendsRunBeforeCalcsThatBecomeReadyTogether) {
  // LogGOPSim order: the send (type 1) runs before the calc (type 3) although defined later.
  const SimResult r = run("num_ranks 2\nrank 0 {\ncalc 100\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n");
  EXPECT_EQ(r.finish[1].ps, 2 * o + L + 7 * G);
  EXPECT_EQ(r.finish[0].ps, o + 100 * kNs);
}

TEST(Engine, SeparateSendAndReceiveOverheads) {
  LogGOPSParams p;
  p.overhead_send = SimTime{1000 * kNs};
  p.overhead_recv = SimTime{3000 * kNs};
  const SimResult r = run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", p);
  EXPECT_EQ(r.finish[1].ps, 1000 * kNs + L + 3000 * kNs + 7 * G);
}

TEST(Engine, CpuAndNicIndicesAreSeparateResources) {
  // Two calcs on different CPUs run in parallel; on the same CPU they serialise.
  const SimResult par = run("num_ranks 1\nrank 0 {\ncalc 100 cpu 0\ncalc 100 cpu 1\n}\n");
  EXPECT_EQ(par.finish[0].ps, 100 * kNs);
  const SimResult ser = run("num_ranks 1\nrank 0 {\ncalc 100\ncalc 100\n}\n");
  EXPECT_EQ(ser.finish[0].ps, 200 * kNs);
}

TEST(Engine, OpOnAnIdleSecondCpuStartsWhenItBecomesReady) {
  // Regression: the calc on CPU 1 becomes ready when the receive on CPU 0 completes; it was
  // queued at CPU 1's free time (0), i.e. in the past, and ran before its dependency finished.
  const SimResult r =
      run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\n"
          "rank 1 {\nr: recv 8b from 0 cpu 0\nc: calc 1000000ps cpu 1\nc requires r\n}\n");
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[1].ps, 2 * o + L + 7 * G + 1'000'000);
}

TEST(Engine, OpOnASecondCpuWaitsForAnUnexpectedMessageToBeHandled) {
  // The message arrives at o+L while CPU 0 computes until 10 us; it is handled from 10 us to
  // 10 us + o + 7G. The receive, posted at 10 us, completes only then, and the calc on CPU 1 after it.
  const SimResult r =
      run("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\n"
          "rank 1 {\nw: calc 10000000ps cpu 0\nr: recv 8b from 0 cpu 0\nr requires w\n"
          "c: calc 1000000ps cpu 1\nc requires r\n}\n");
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.finish[1].ps, 10'000'000 + o + 7 * G + 1'000'000);
}

TEST(Engine, DeadlockIsReportedWithLabelsAndLines) {
  const SimResult r = run(R"(num_ranks 2
rank 0 {
a: recv 8b from 1
b: send 8b to 1
b requires a
}
rank 1 {
c: recv 8b from 0
d: send 8b to 0
d requires c
}
)");
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.stuck_ranks, 2U);
  ASSERT_EQ(r.stuck.size(), 2U);
  EXPECT_EQ(r.stuck[0].rank, 0U);
  EXPECT_NE(r.stuck[0].description.find("label a"), std::string::npos) << r.stuck[0].description;
  EXPECT_NE(r.stuck[0].description.find("line 3"), std::string::npos) << r.stuck[0].description;
  EXPECT_NE(r.stuck[1].description.find("label c"), std::string::npos);
  const std::string report = stuck_report(r);
  EXPECT_NE(report.find("deadlocked"), std::string::npos);
}

// `gridlock sim` reads GOAL text without sources (faster) and describes a deadlock again from
// the file read with them: the report is the same as if the sources had been kept.
TEST(Engine, StuckOpsAreDescribedAgainFromASourcedSchedule) {
  const std::string text = "num_ranks 2\nrank 0 {\na: recv 8b from 1\n}\nrank 1 {\n}\n";
  const Schedule bare = parse_goal(text, "t.goal", /*keep_sources=*/false);
  SimResult r = simulate(bare, SimOptions{});
  ASSERT_FALSE(r.complete);
  ASSERT_EQ(r.stuck.size(), 1U);
  EXPECT_EQ(r.stuck[0].description.find("line"), std::string::npos) << r.stuck[0].description;
  describe_stuck_ops(r, parse_goal(text, "t.goal"));
  EXPECT_NE(r.stuck[0].description.find("(label a) at line 3"), std::string::npos) << r.stuck[0].description;
}

TEST(Engine, UnmatchedMessageIsReported) {
  const SimResult r = run("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 3\n}\nrank 1 {\n}\n");
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.unexpected_left, 1U);
  ASSERT_EQ(r.stuck.size(), 1U);
  EXPECT_NE(r.stuck[0].state.find("never received"), std::string::npos);
}

TEST(Engine, TimeOverflowIsAnInputError) {
  const Schedule s =
      parse_goal("num_ranks 1\nrank 0 {\ncalc 18446744073709551ps\ncalc 18446744073709551ps\n}\n");
  EXPECT_NO_THROW((void)simulate(s, SimOptions{}));
  const Schedule big = parse_goal("num_ranks 2\nrank 0 {\nsend 18446744073709551615b to 1\n}\nrank 1 {\n}\n");
  EXPECT_THROW((void)simulate(big, SimOptions{}), InputError);
}

TEST(Engine, TimelineRecordsSlices) {
  SimOptions options;
  options.record_timeline = true;
  const SimResult r =
      simulate(parse_goal("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n"), options);
  // send CPU + send NIC on rank 0, receive CPU + receive NIC on rank 1.
  ASSERT_EQ(r.timeline.size(), 4U);
  EXPECT_EQ(r.timeline[0].rank, 0U);
  EXPECT_EQ(r.timeline[0].end.ps, o);
}

// ---- Closed forms on generated collectives (eager, O=0, g + (s-1)G <= o). ----

std::uint64_t cost(std::uint64_t bytes) { return 2 * o + L + (bytes - 1) * G; }

SimResult run_generated(std::string_view spec, std::uint32_t ranks) {
  return simulate(generate(spec, ranks, 1), SimOptions{});
}

TEST(ClosedForm, DisseminationTakesCeilLog2PRounds) {
  for (const std::uint32_t p : {2U, 3U, 5U, 7U, 8U, 16U, 33U, 100U}) {
    const SimResult r = run_generated("dissemination(size=8B)", p);
    ASSERT_TRUE(r.complete) << p;
    std::uint64_t rounds = 0;
    while ((1ULL << rounds) < p) {
      ++rounds;
    }
    for (std::uint32_t k = 0; k < p; ++k) {
      EXPECT_EQ(r.finish[k].ps, rounds * cost(8)) << "P=" << p << " rank " << k;
    }
  }
}

TEST(ClosedForm, BinomialBroadcastPowersOfTwo) {
  for (const std::uint32_t p : {2U, 4U, 8U, 16U, 64U}) {
    const SimResult r = run_generated("bcast(algo=binomial, size=8B)", p);
    ASSERT_TRUE(r.complete);
    std::uint64_t depth = 0;
    while ((1ULL << depth) < p) {
      ++depth;
    }
    // Largest subtree first: the last rank is reached after depth hops, each a full message.
    EXPECT_EQ(r.max_finish.ps, depth * cost(8)) << p;
    EXPECT_EQ(r.finish[p - 1].ps, depth * cost(8)) << p;
  }
}

TEST(ClosedForm, BinomialBroadcastSixRanks) {
  // Root sends to 4, 2, 1 at 0, o, 2o; 4 forwards to 5; 2 forwards to 3 (hand-derived).
  // A rank's finish time includes its forwarding sends' CPU overhead.
  const SimResult r = run_generated("bcast(size=8B)", 6);
  const std::uint64_t c = cost(8);
  EXPECT_EQ(r.finish[4].ps, c + o);
  EXPECT_EQ(r.finish[2].ps, o + c + o);
  EXPECT_EQ(r.finish[1].ps, 2 * o + c);
  EXPECT_EQ(r.finish[5].ps, 2 * c);
  EXPECT_EQ(r.finish[3].ps, o + 2 * c);
  EXPECT_EQ(r.finish[0].ps, 3 * o);
  EXPECT_EQ(r.max_finish.ps, o + 2 * c);
}

TEST(ClosedForm, BinomialBroadcastNonZeroRoot) {
  const SimResult r = run_generated("bcast(size=8B, root=3)", 6);
  const std::uint64_t c = cost(8);
  EXPECT_EQ(r.finish[(3 + 3) % 6].ps, o + 2 * c);  // vrank 3
  EXPECT_EQ(r.finish[3].ps, 3 * o);
}

TEST(ClosedForm, RingAllreduceTakesTwoPMinusOneSteps) {
  for (const std::uint32_t p : {2U, 3U, 4U, 7U}) {
    const SimResult r = run_generated("allreduce(algo=ring, size=4000B)", p);
    ASSERT_TRUE(r.complete);
    const std::uint64_t chunk = (4000 + p - 1) / p;
    EXPECT_EQ(r.max_finish.ps, 2ULL * (p - 1) * cost(chunk)) << p;
  }
}

TEST(ClosedForm, RingAllgatherTakesPMinusOneSteps) {
  const SimResult r = run_generated("allgather(algo=ring, size=100B)", 5);
  EXPECT_EQ(r.max_finish.ps, 4 * cost(100));
}

TEST(ClosedForm, RecursiveDoublingPowerOfTwo) {
  // Each of the log2 P exchanges: send and receive become ready together; the send's CPU part
  // (o) runs first, the partner's message arrives at o + L and is handled by o + L + o + 7G.
  const SimResult r = run_generated("allreduce(algo=recdoub, size=8B)", 8);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.max_finish.ps, 3 * cost(8));
}

TEST(ClosedForm, RecursiveDoublingFoldsExtraRanks) {
  // P=6 (hand-derived): ranks 4,5 exchange at once (done at c); ranks 1,3 fold in (c), then
  // exchange (sent at c). Rank 1 receives rank 3's and rank 4's messages both at c + o + L,
  // handles one until 2c and the other until 2c + o + 7G, then sends to rank 4 and finally
  // folds out to rank 0 at 2c + 2o + 7G, which finishes at 3c + 2o + 7G.
  const SimResult r = run_generated("allreduce(algo=recdoub, size=8B)", 6);
  ASSERT_TRUE(r.complete);
  const std::uint64_t c = cost(8);
  EXPECT_EQ(r.finish[0].ps, 3 * c + 2 * o + 7 * G);
  EXPECT_EQ(r.max_finish.ps, 3 * c + 2 * o + 7 * G);
  EXPECT_EQ(r.messages, 2U + 4U * 2U + 2U);
}

TEST(ClosedForm, ReductionComputeCostIsChargedPerByte) {
  const SimResult plain = run_generated("allreduce(algo=dissemination, size=100B)", 4);
  const SimResult costly = run_generated("allreduce(algo=dissemination, size=100B, compute=1ns)", 4);
  EXPECT_EQ(costly.max_finish.ps, plain.max_finish.ps + 200 * kNs);
}

TEST(ClosedForm, EveryPatternCompletes) {
  for (const char* spec :
       {"bcast(algo=binary)", "bcast(algo=chain, size=64KiB, segment=8KiB)", "reduce(size=1KiB, compute=1ns)",
        "allgather(algo=bruck)", "alltoall", "alltoall(algo=pairwise)", "gather(root=2)", "scatter(root=1)",
        "barrier", "randomring(size=1KiB)", "halo3d(size=1KiB)", "halo3d(dims=2x3x2, periodic=1)",
        "3x[allreduce; calc(time=1us); barrier]"}) {
    for (const std::uint32_t p : {1U, 2U, 3U, 12U}) {
      if (std::string_view(spec).find("root=") != std::string_view::npos && p < 3) {
        continue;
      }
      if (std::string_view(spec).find("dims=2x3x2") != std::string_view::npos && p != 12) {
        continue;
      }
      const SimResult r = run_generated(spec, p);
      EXPECT_TRUE(r.complete) << spec << " P=" << p << "\n" << stuck_report(r);
    }
  }
}

TEST(ClosedForm, ChainBroadcastPipelinesSegments) {
  // 3 ranks, 4 segments of 1 byte: the last rank receives segment i at c + (i) * o + c?
  // Hand-derived: the root sends segments at 0, o, 2o, 3o; rank 1 handles segment i at
  // i*o + o + L (its CPU alternates handling and forwarding).
  const SimResult r = run_generated("bcast(algo=chain, size=4B, segment=1B)", 2);
  ASSERT_TRUE(r.complete);
  // Rank 1 only receives: segments arrive every o and each takes o to handle.
  EXPECT_EQ(r.finish[1].ps, 3 * o + o + L + o);
}

TEST(Engine, Deterministic) {
  const Schedule s = generate("3x[randomring(size=1KiB); allreduce(algo=recdoub)]", 37, 9);
  const SimResult a = simulate(s, SimOptions{});
  const SimResult b = simulate(s, SimOptions{});
  ASSERT_EQ(a.finish.size(), b.finish.size());
  for (std::size_t i = 0; i < a.finish.size(); ++i) {
    EXPECT_EQ(a.finish[i], b.finish[i]);
  }
  EXPECT_EQ(a.events, b.events);
}

// Progress reports (SimOptions::progress, for long runs on a terminal) come every
// progress_every_events events, count up, and leave the result alone.
TEST(Engine, ProgressReportsCountUpAndDoNotChangeTheResult) {
  const Schedule s = generate("dissemination(size=8B)", 256, 1);
  const SimResult plain = simulate(s, SimOptions{});
  std::vector<SimProgress> reports;
  SimOptions options;
  options.progress_every_events = 100;
  options.progress = [&reports](const SimProgress& p) { reports.push_back(p); };
  const SimResult reported = simulate(s, options);
  EXPECT_EQ(reported.max_finish, plain.max_finish);
  EXPECT_EQ(reported.finish, plain.finish);
  EXPECT_EQ(reported.events, plain.events);
  ASSERT_GE(reports.size(), 10U);
  EXPECT_GT(reports.front().events, 0U);
  EXPECT_LE(reports.back().events, plain.events);
  EXPECT_GT(reports.back().events + 100, plain.events);  // none is skipped at the end either
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].ops_total, plain.ops_total);
    EXPECT_LE(reports[i].ops_completed, plain.ops_total);
    EXPECT_LE(reports[i].now, plain.max_finish);
    EXPECT_FALSE(reports[i].rerun);
    if (i > 0) {
      EXPECT_EQ(reports[i].events, reports[i - 1].events + 100) << i;
      EXPECT_GE(reports[i].ops_completed, reports[i - 1].ops_completed) << i;
      EXPECT_GE(reports[i].now, reports[i - 1].now) << i;  // global order: time never goes back
    }
  }
  EXPECT_GT(reports.back().ops_completed, reports.front().ops_completed);
}

}  // namespace
}  // namespace gridlock::sim
