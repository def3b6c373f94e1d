// The trace-to-schedule converter on small traces built in memory (every rule of
// docs/tracing.md "From a trace to a simulation"), and the OTF2 reader on archives written here
// with OTF2's own writer API.
#include <otf2/otf2.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/trace/from_trace.hpp"
#include "gridlock/trace/otf2_reader.hpp"

namespace gridlock::trace {
namespace {

enum RegionId : std::uint32_t {
  kInit,
  kFinalize,
  kSendR,
  kRecvR,
  kIsendR,
  kIrecvR,
  kWaitallR,
  kCollR,
  kUser
};
constexpr std::uint32_t kWorld = 0;
constexpr std::uint32_t kSelf = 1;
constexpr std::uint32_t kSub = 2;

TraceInfo info_of(std::uint32_t ranks, std::vector<std::uint32_t> sub = {}) {
  TraceInfo info;
  info.num_ranks = ranks;
  info.path = "memory";
  Communicator world{"MPI_COMM_WORLD", {}, false};
  for (std::uint32_t r = 0; r < ranks; ++r) {
    world.members.push_back(r);
  }
  info.comms[kWorld] = world;
  info.comms[kSelf] = Communicator{"MPI_COMM_SELF", {}, true};
  if (!sub.empty()) {
    info.comms[kSub] = Communicator{"sub", std::move(sub), false};
  }
  const char* names[] = {"MPI_Init",  "MPI_Finalize", "MPI_Send",      "MPI_Recv", "MPI_Isend",
                         "MPI_Irecv", "MPI_Waitall",  "MPI_Allreduce", "solve"};
  for (std::uint32_t i = 0; i <= kUser; ++i) {
    info.regions[i] = Region{names[i], i != kUser};
  }
  return info;
}

// Builds one rank's events, a call at a time, with a clock that advances 100 ns per event.
class Rank {
 public:
  Rank& call(std::uint32_t region, const std::vector<Event>& inner = {}) {
    events.push_back({.time_ns = tick(), .peer = region, .kind = EventKind::kEnter});
    for (Event e : inner) {
      e.time_ns = tick();
      events.push_back(e);
    }
    events.push_back({.time_ns = tick(), .peer = region, .kind = EventKind::kLeave});
    return *this;
  }
  Rank& compute(std::uint64_t ns) {
    now += ns;
    return *this;
  }
  Rank& init() { return call(kInit); }
  Rank& send(std::uint32_t to, std::uint32_t tag, std::uint64_t bytes, std::uint32_t comm = kWorld) {
    return call(kSendR, {{.bytes = bytes, .comm = comm, .peer = to, .tag = tag, .kind = EventKind::kSend}});
  }
  Rank& recv(std::uint32_t from, std::uint32_t tag, std::uint64_t bytes, std::uint32_t comm = kWorld) {
    return call(kRecvR, {{.bytes = bytes, .comm = comm, .peer = from, .tag = tag, .kind = EventKind::kRecv}});
  }
  Rank& collective(CollectiveOp op, std::uint32_t comm, std::uint64_t sent, std::uint64_t received,
                   std::uint32_t root = kNoRoot) {
    return call(kCollR, {{.kind = EventKind::kCollectiveBegin},
                         {.bytes = sent,
                          .received = received,
                          .comm = comm,
                          .peer = root,
                          .kind = EventKind::kCollectiveEnd,
                          .op = op}});
  }
  std::vector<Event> events;

 private:
  std::uint64_t tick() { return now += 100; }
  std::uint64_t now = 0;
};

ConvertedTrace convert(const TraceInfo& info, const std::vector<Rank>& ranks,
                       const ConvertOptions& options = {}) {
  std::vector<std::vector<Event>> events;
  events.reserve(ranks.size());
  for (const Rank& r : ranks) {
    events.push_back(r.events);
  }
  MemoryTrace trace(info, std::move(events));
  return convert_trace(trace, options);
}

sim::SimResult run(const sim::Schedule& schedule) {
  sim::SimOptions options;
  return sim::simulate(schedule, options);
}

std::uint64_t count(const sim::Schedule& s, std::uint32_t rank, sim::OpType type) {
  std::uint64_t n = 0;
  for (const sim::Op& op : s.program_of(rank).ops) {
    n += op.type == type ? 1 : 0;
  }
  return n;
}

TEST(FromTrace, PingPongWithComputeRunsInTheSimulator) {
  std::vector<Rank> ranks(2);
  ranks[0].init().compute(5000).send(1, 7, 1024).recv(1, 7, 1024).call(kFinalize);
  ranks[1].init().recv(0, 7, 1024).send(0, 7, 1024).call(kFinalize);
  const ConvertedTrace c = convert(info_of(2), ranks);
  EXPECT_EQ(c.schedule.num_ranks(), 2U);
  EXPECT_EQ(c.report.sends, 2U);
  EXPECT_EQ(c.report.recvs, 2U);
  EXPECT_EQ(count(c.schedule, 0, sim::OpType::kSend), 1U);
  EXPECT_EQ(count(c.schedule, 0, sim::OpType::kRecv), 1U);
  // Rank 0 computed 5 us (plus the 100 ns between its calls) before its send.
  EXPECT_GE(c.report.compute_ns[0], 5000U);
  EXPECT_EQ(c.report.compute_ps, (c.report.compute_ns[0] + c.report.compute_ns[1]) * 1000);
  const sim::SimResult r = run(c.schedule);
  ASSERT_TRUE(r.complete) << sim::stuck_report(r);
  EXPECT_EQ(r.messages, 2U);
  // The round trip follows the compute: rank 0 ends after 5 us plus two messages.
  EXPECT_GT(r.finish[0].ps, 5'000'000U + 2 * sim::LogGOPSParams{}.latency.ps);
}

TEST(FromTrace, ComputeScaleAndNoCompute) {
  std::vector<Rank> ranks(2);
  ranks[0].init().compute(10'000).send(1, 0, 8);
  ranks[1].init().recv(0, 0, 8);
  ConvertOptions twice;
  twice.compute_scale = 2.0;
  const ConvertedTrace a = convert(info_of(2), ranks);
  const ConvertedTrace b = convert(info_of(2), ranks, twice);
  EXPECT_EQ(b.report.compute_ps, 2 * a.report.compute_ps);
  ConvertOptions none;
  none.compute = false;
  const ConvertedTrace c = convert(info_of(2), ranks, none);
  EXPECT_EQ(c.report.calcs, 0U);
  EXPECT_EQ(count(c.schedule, 0, sim::OpType::kCalc), 0U);
  ConvertOptions bad;
  bad.compute_scale = 0;
  EXPECT_THROW((void)convert(info_of(2), ranks, bad), InputError);
}

TEST(FromTrace, UserRegionsAreComputeNotCalls) {
  std::vector<Rank> ranks(2);
  ranks[0].init().call(kUser).send(1, 0, 8);
  ranks[1].init().recv(0, 0, 8);
  const ConvertedTrace c = convert(info_of(2), ranks);
  // Init's leave to Send's enter spans the user region's two events: 300 ns of compute.
  EXPECT_EQ(c.report.compute_ns[0], 300U);
}

TEST(FromTrace, NonblockingReceivesMatchTheSendersTheyHadInTheTrace) {
  // Rank 0 posts two MPI_ANY_SOURCE receives; the first completed with rank 2's message, the
  // second with rank 1's. The schedule receives from 2 then 1, both before the Waitall's end.
  std::vector<Rank> ranks(3);
  ranks[0].init();
  ranks[0].call(kIrecvR, {{.request = 1, .kind = EventKind::kIrecvRequest}});
  ranks[0].call(kIrecvR, {{.request = 2, .kind = EventKind::kIrecvRequest}});
  ranks[0].compute(1000);
  ranks[0].call(
      kWaitallR,
      {{.bytes = 64, .request = 1, .comm = kWorld, .peer = 2, .tag = 3, .kind = EventKind::kIrecv},
       {.bytes = 32, .request = 2, .comm = kWorld, .peer = 1, .tag = 3, .kind = EventKind::kIrecv}});
  ranks[0].send(1, 9, 8);
  ranks[1].init().send(0, 3, 32).recv(0, 9, 8);
  ranks[2].init();
  ranks[2].call(
      kIsendR, {{.bytes = 64, .request = 1, .comm = kWorld, .peer = 0, .tag = 3, .kind = EventKind::kIsend}});
  ranks[2].call(kWaitallR, {{.request = 1, .kind = EventKind::kIsendComplete}});
  const ConvertedTrace c = convert(info_of(3), ranks);
  const sim::Schedule& s = c.schedule;
  std::vector<std::uint32_t> recv_peers;
  const auto ops = s.program_of(0).ops;
  for (std::uint32_t i = 0; i < ops.size(); ++i) {
    if (ops[i].type == sim::OpType::kRecv) {
      recv_peers.push_back(s.peer(0, i));
      EXPECT_EQ(ops[i].size, s.peer(0, i) == 2 ? 64U : 32U);
    }
  }
  EXPECT_EQ(recv_peers, (std::vector<std::uint32_t>{2, 1}));
  const sim::SimResult r = run(s);
  ASSERT_TRUE(r.complete) << sim::stuck_report(r);
  EXPECT_EQ(r.messages, 3U);
}

TEST(FromTrace, SubCommunicatorCollectiveRunsOnItsMembers) {
  // Ranks 0 and 2 form the sub-communicator; rank 1 takes no part in its allreduce.
  std::vector<Rank> ranks(3);
  ranks[0].init().collective(CollectiveOp::kAllreduce, kSub, 800, 800);
  ranks[1].init();
  ranks[2].init().collective(CollectiveOp::kAllreduce, kSub, 800, 800);
  const ConvertedTrace c = convert(info_of(3, {0, 2}), ranks);
  const sim::Schedule& s = c.schedule;
  EXPECT_EQ(count(s, 1, sim::OpType::kSend), 0U);
  ASSERT_EQ(count(s, 0, sim::OpType::kSend), 1U);
  for (std::uint32_t i = 0; i < s.program_of(0).ops.size(); ++i) {
    if (s.program_of(0).ops[i].type != sim::OpType::kCalc) {
      EXPECT_EQ(s.peer(0, i), 2U);
      EXPECT_EQ(s.program_of(0).ops[i].size, 800U);
    }
  }
  EXPECT_EQ(c.report.collectives.at("MPI_Allreduce"), 2U);
  const sim::SimResult r = run(s);
  ASSERT_TRUE(r.complete) << sim::stuck_report(r);
}

TEST(FromTrace, WorldCollectivesUseTheChosenAlgorithm) {
  std::vector<Rank> ranks(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    ranks[r]
        .init()
        .collective(CollectiveOp::kAllreduce, kWorld, 4096, 4096)
        .collective(CollectiveOp::kBcast, kWorld, r == 1 ? 100 : 0, r == 1 ? 0 : 100, 1);
  }
  ConvertOptions ring;
  ring.algorithms = parse_algorithms("allreduce=ring");
  const ConvertedTrace c = convert(info_of(4), ranks, ring);
  // Ring allreduce: 2(P-1) sends per rank; binomial bcast from rank 1: rank 1 sends twice.
  EXPECT_EQ(count(c.schedule, 0, sim::OpType::kSend), 6U);
  EXPECT_EQ(count(c.schedule, 1, sim::OpType::kSend), 6U + 2U);
  const sim::SimResult r = run(c.schedule);
  ASSERT_TRUE(r.complete) << sim::stuck_report(r);
}

TEST(FromTrace, UnmatchedSendIsRefusedOrDropped) {
  std::vector<Rank> ranks(2);
  ranks[0].init().send(1, 0, 8).send(1, 0, 8);
  ranks[1].init().recv(0, 0, 8);  // the run aborted before the second receive
  try {
    (void)convert(info_of(2), ranks);
    FAIL() << "an unmatched send was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 -> rank 1 (tag 0 on MPI_COMM_WORLD): 2 sends, 1 receives"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--drop-unmatched"), std::string::npos);
  }
  ConvertOptions drop;
  drop.drop_unmatched = true;
  const ConvertedTrace c = convert(info_of(2), ranks, drop);
  EXPECT_EQ(c.report.sends, 1U);
  EXPECT_EQ(c.report.skipped.at("unmatched message (dropped)"), 1U);
  const sim::SimResult r = run(c.schedule);
  EXPECT_TRUE(r.complete) << sim::stuck_report(r);
}

TEST(FromTrace, CollectiveNotCalledByEveryMemberIsRefusedOrDropped) {
  std::vector<Rank> ranks(2);
  ranks[0].init().collective(CollectiveOp::kBarrier, kWorld, 0, 0);
  ranks[1].init();
  EXPECT_THROW((void)convert(info_of(2), ranks), InputError);
  ConvertOptions drop;
  drop.drop_unmatched = true;
  const ConvertedTrace c = convert(info_of(2), ranks, drop);
  EXPECT_EQ(c.report.skipped.at("collective not called by every member (dropped)"), 1U);
  EXPECT_TRUE(run(c.schedule).complete);
}

TEST(FromTrace, DifferentCollectivesOnOneCommunicatorAreRefused) {
  std::vector<Rank> ranks(2);
  ranks[0].init().collective(CollectiveOp::kBarrier, kWorld, 0, 0);
  ranks[1].init().collective(CollectiveOp::kAllreduce, kWorld, 8, 8);
  try {
    (void)convert(info_of(2), ranks);
    FAIL() << "different collectives were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_Barrier on rank 0 but MPI_Allreduce on rank 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(FromTrace, UndefinedCommunicatorsAndPeersAreRefused) {
  std::vector<Rank> ranks(2);
  ranks[0].init().send(1, 0, 8, 42);
  ranks[1].init();
  EXPECT_THROW((void)convert(info_of(2), ranks), InputError);
  std::vector<Rank> far(2);
  far[0].init().send(5, 0, 8);
  far[1].init();
  EXPECT_THROW((void)convert(info_of(2), far), InputError);
}

// The tests below come from the fuzzer (tests/fuzz/trace_fuzz.cpp); each failed before its fix.

// Throws unless `f` throws InputError whose message contains `part`.
template <typename F>
void expect_input_error(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no InputError (expected one mentioning '" << part << "')";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(FromTrace, CorruptCommunicatorMembersAreRefusedWhereUsed) {
  // Rank 5 of a 2-rank trace (read out of bounds before), rank 1 twice; a self communicator's
  // member list is ignored.
  for (const std::vector<std::uint32_t>& sub : {std::vector<std::uint32_t>{0, 5}, {0, 1, 1}}) {
    TraceInfo info = info_of(2, sub);
    info.comms[kSelf].members = {7};
    std::vector<Rank> ranks(2);
    ranks[0].init().collective(CollectiveOp::kBarrier, kSub, 0, 0);
    ranks[1].init().collective(CollectiveOp::kBarrier, kSub, 0, 0);
    expect_input_error([&] { (void)convert(info, ranks); }, "communicator 2 ('sub'): member");
    std::vector<Rank> unused(2);
    unused[0].init().send(1, 0, 8).collective(CollectiveOp::kBarrier, kSelf, 0, 0);
    unused[1].init().recv(0, 0, 8);
    EXPECT_EQ(convert(info, unused).report.sends, 1U);
  }
}

TEST(FromTrace, CollectiveOfANonMemberIsRefused) {
  std::vector<Rank> ranks(3);
  ranks[0].init().collective(CollectiveOp::kAllreduce, kSub, 8, 8);
  ranks[1].init().collective(CollectiveOp::kAllreduce, kSub, 8, 8);
  ranks[2].init();
  expect_input_error([&] { (void)convert(info_of(3, {0, 2}), ranks); }, "not a member");
}

TEST(FromTrace, RequestIdOfAReceiveAndANonblockingCollectiveAreKeptApart) {
  // Rank 0 reuses request 1 for an ibarrier after its irecv (threw std::out_of_range before).
  std::vector<Rank> ranks(2);
  ranks[0].init();
  ranks[0].call(kIrecvR, {{.request = 1, .kind = EventKind::kIrecvRequest}});
  ranks[0].call(
      kWaitallR,
      {{.bytes = 16, .request = 1, .comm = kWorld, .peer = 1, .tag = 5, .kind = EventKind::kIrecv}});
  ranks[0].call(kCollR, {{.request = 1, .kind = EventKind::kNonblockingCollective}});
  ranks[0].call(kWaitallR, {{.request = 1,
                             .comm = kWorld,
                             .peer = 0,
                             .kind = EventKind::kNonblockingCollectiveComplete,
                             .op = CollectiveOp::kBarrier}});
  ranks[1].init().send(0, 5, 16).collective(CollectiveOp::kBarrier, kWorld, 0, 0);
  const ConvertedTrace c = convert(info_of(2), ranks);
  EXPECT_EQ(c.report.recvs, 1U);
  EXPECT_EQ(c.report.collectives.at("MPI_Barrier"), 2U);
  const sim::SimResult r = run(c.schedule);
  EXPECT_TRUE(r.complete) << sim::stuck_report(r);
}

TEST(FromTrace, ReceiveCompletedWithoutItsRequestIsUnmatched) {
  // Counted as a receive but not converted before: a schedule whose send never matched.
  std::vector<Rank> ranks(2);
  ranks[0].init().call(kWaitallR,
                       {{.bytes = 8, .request = 3, .comm = kWorld, .peer = 1, .kind = EventKind::kIrecv}});
  ranks[1].init().send(0, 0, 8);
  expect_input_error([&] { (void)convert(info_of(2), ranks); }, "not complete");
  ConvertOptions drop;
  drop.drop_unmatched = true;
  const ConvertedTrace c = convert(info_of(2), ranks, drop);
  EXPECT_EQ(c.report.sends, 0U);
  EXPECT_EQ(c.report.recvs, 0U);
  EXPECT_TRUE(run(c.schedule).complete);
}

TEST(FromTrace, RanksSubsetKeepsTheirMessagesAndCollectives) {
  std::vector<Rank> ranks(3);
  for (std::uint32_t r = 0; r < 3; ++r) {
    ranks[r].init().collective(CollectiveOp::kAllreduce, kWorld, 8, 8);
  }
  ranks[0].send(1, 0, 8).send(2, 0, 8);
  ranks[1].recv(0, 0, 8);
  ranks[2].recv(0, 0, 8);
  ConvertOptions subset;
  subset.ranks = parse_rank_list("0-1", 3);
  const ConvertedTrace c = convert(info_of(3), ranks, subset);
  EXPECT_EQ(c.schedule.num_ranks(), 2U);
  EXPECT_EQ(c.report.skipped.at("message to or from a rank outside --ranks-subset"), 1U);
  EXPECT_EQ(c.report.sends, 1U);
  EXPECT_TRUE(run(c.schedule).complete);
}

TEST(FromTrace, UnconvertedCollectivesAreCountedAndLeftOut) {
  std::vector<Rank> ranks(2);
  for (Rank& r : ranks) {
    r.init()
        .collective(CollectiveOp::kAlltoallw, kWorld, 16, 16)
        .collective(CollectiveOp::kAllgatherv, kWorld, 8, 16);
  }
  const ConvertedTrace c = convert(info_of(2), ranks);
  EXPECT_EQ(c.report.skipped.at("MPI_Alltoallw: not converted"), 2U);
  EXPECT_EQ(c.report.collectives.at("MPI_Allgatherv"), 2U);
  EXPECT_TRUE(run(c.schedule).complete);
  ConvertOptions no_coll;
  no_coll.collectives = false;
  EXPECT_EQ(convert(info_of(2), ranks, no_coll).report.collectives.size(), 0U);
}

TEST(FromTrace, ExtrapolateReplicatesLocalPatternsAndSpansWorldCollectives) {
  // A ring exchange on 4 ranks and an allreduce on all of them, extrapolated to 12 ranks.
  std::vector<Rank> ranks(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    ranks[r]
        .init()
        .send((r + 1) % 4, 0, 64)
        .recv((r + 3) % 4, 0, 64)
        .collective(CollectiveOp::kAllreduce, kWorld, 8, 8);
  }
  ConvertOptions three;
  three.extrapolate = 3;
  const ConvertedTrace c = convert(info_of(4), ranks, three);
  EXPECT_EQ(c.schedule.num_ranks(), 12U);
  EXPECT_EQ(c.report.copies, 3U);
  // Rank 5 (rank 1 of the second copy) sends its ring message within its copy, to rank 6.
  const auto ops = c.schedule.program_of(5).ops;
  const auto send =
      std::find_if(ops.begin(), ops.end(), [](const sim::Op& op) { return op.type == sim::OpType::kSend; });
  ASSERT_NE(send, ops.end());
  EXPECT_EQ(c.schedule.peer(5, static_cast<std::uint32_t>(send - ops.begin())), 6U);
  const sim::SimResult r = run(c.schedule);
  ASSERT_TRUE(r.complete) << sim::stuck_report(r);
  // 12 ring messages plus one allreduce over all 12 ranks.
  EXPECT_EQ(r.messages, 12U + sim::generate("allreduce(size=8B)", 12, 1).total_sends());
}

TEST(FromTrace, ExtrapolateRefusesGlobalPatterns) {
  std::vector<Rank> ranks(4);
  ranks[0].init().recv(1, 0, 8).recv(2, 0, 8).recv(3, 0, 8);  // a master
  for (std::uint32_t w = 1; w < 4; ++w) {
    ranks[w].init().send(0, 0, 8);
  }
  ConvertOptions two;
  two.extrapolate = 2;
  try {
    (void)convert(info_of(4), ranks, two);
    FAIL() << "a master-worker pattern was extrapolated";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not extrapolable: rank 0"), std::string::npos) << e.what();
  }
  std::vector<Rank> pair(2);
  pair[0].init().send(1, 0, 8);
  pair[1].init().recv(0, 0, 8);
  EXPECT_THROW((void)convert(info_of(2), pair, two), InputError);
  ConvertOptions zero;
  zero.extrapolate = 0;
  EXPECT_THROW((void)convert(info_of(2), pair, zero), InputError);
}

TEST(FromTrace, OptionParsers) {
  EXPECT_EQ(parse_algorithms("allreduce=ring, bcast=chain").at("bcast"), "chain");
  EXPECT_THROW((void)parse_algorithms("allreduce"), InputError);
  EXPECT_THROW((void)parse_algorithms("allreduce=fast"), InputError);
  EXPECT_THROW((void)parse_algorithms("scan=ring"), InputError);
  EXPECT_THROW((void)parse_algorithms("bcast=binary,bcast=chain"), InputError);
  EXPECT_EQ(parse_rank_list("3,0-1,1", 4), (std::vector<std::uint32_t>{0, 1, 3}));
  EXPECT_THROW((void)parse_rank_list("0-4", 4), InputError);
  EXPECT_THROW((void)parse_rank_list("2-1", 4), InputError);
  EXPECT_THROW((void)parse_rank_list("a", 4), InputError);
  EXPECT_THROW((void)parse_rank_list("1,,2", 4), InputError);
}

// ---- OTF2 archives written with OTF2's writer ----

OTF2_FlushType pre_flush(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/, void* /*cb*/,
                         bool /*final*/) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/) { return 0; }

// A two-rank ping-pong archive in `dir`; with `definitions` false, no global definitions (a run
// that ended without MPI_Finalize).
void write_archive(const std::filesystem::path& dir, bool definitions = true) {
  std::filesystem::remove_all(dir);
  OTF2_Archive* archive =
      OTF2_Archive_Open(dir.string().c_str(), "traces", OTF2_FILEMODE_WRITE, 1024ULL * 1024,
                        4ULL * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(archive, nullptr);
  OTF2_FlushCallbacks flush{pre_flush, post_flush};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "from_trace_test");
  OTF2_Archive_OpenEvtFiles(archive);
  for (std::uint64_t loc = 0; loc < 2; ++loc) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, loc);
    const std::uint32_t peer = 1 - static_cast<std::uint32_t>(loc);
    OTF2_EvtWriter_Enter(w, nullptr, 1000, 0);
    OTF2_EvtWriter_Leave(w, nullptr, 2000, 0);
    OTF2_EvtWriter_Enter(w, nullptr, 12000, loc == 0 ? 1 : 2);  // 10 us of compute
    if (loc == 0) {
      OTF2_EvtWriter_MpiSend(w, nullptr, 12100, peer, 0, 4, 256);
    } else {
      OTF2_EvtWriter_MpiRecv(w, nullptr, 12100, peer, 0, 4, 256);
    }
    OTF2_EvtWriter_Leave(w, nullptr, 13000, loc == 0 ? 1 : 2);
    OTF2_EvtWriter_Enter(w, nullptr, 14000, 3);
    OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, 14100);
    OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, 15000, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                    OTF2_COLLECTIVE_ROOT_NONE, 8, 8);
    OTF2_EvtWriter_Leave(w, nullptr, 15100, 3);
    OTF2_Archive_CloseEvtWriter(archive, w);
  }
  OTF2_Archive_CloseEvtFiles(archive);
  if (definitions) {
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, 20000, OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"",     "MPI_Init", "MPI_Send",      "MPI_Recv", "MPI_Allreduce",
                             "node", "rank",     "MPI_COMM_WORLD"};
    for (std::uint32_t i = 0; i < 8; ++i) {
      OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    }
    for (std::uint32_t r = 0; r < 4; ++r) {
      OTF2_GlobalDefWriter_WriteRegion(g, r, r + 1, r + 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                       OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 5, 5, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (std::uint64_t loc = 0; loc < 2; ++loc) {
      OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(loc), 6,
                                              OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                              OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation(g, loc, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 8,
                                         static_cast<OTF2_LocationGroupRef>(loc));
    }
    const std::uint64_t members[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  }
  OTF2_Archive_Close(archive);
}

std::filesystem::path temp_dir(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("gridlock_from_trace_" + name + "_" + std::to_string(::getpid()));
}

TEST(Otf2Reader, ReadsAnArchiveAndItConvertsAndSimulates) {
  const std::filesystem::path dir = temp_dir("ok");
  write_archive(dir);
  const std::unique_ptr<TraceReader> trace = open_otf2(dir);
  EXPECT_EQ(trace->info().num_ranks, 2U);
  EXPECT_EQ(trace->info().creator, "from_trace_test");
  EXPECT_EQ(trace->info().comms.at(0).members, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_TRUE(is_otf2_path(dir));
  const ConvertedTrace c = convert_trace(*trace, {});
  EXPECT_EQ(c.report.sends, 1U);
  EXPECT_EQ(c.report.recvs, 1U);
  EXPECT_EQ(c.report.collectives.at("MPI_Allreduce"), 2U);
  EXPECT_EQ(c.report.compute_ns[0], 10'000U + 1000U);
  const sim::SimResult r = run(c.schedule);
  ASSERT_TRUE(r.complete) << sim::stuck_report(r);
  EXPECT_EQ(r.messages, 3U);
  std::filesystem::remove_all(dir);
}

TEST(Otf2Reader, RefusesWhatIsNotACompleteArchive) {
  EXPECT_THROW((void)open_otf2(temp_dir("missing")), InputError);
  const std::filesystem::path dir = temp_dir("nodefs");
  write_archive(dir, false);
  try {
    (void)open_otf2(dir);
    FAIL() << "an archive without definitions was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
  // A truncated event file: the archive opens, reading rank 1's events fails with its name.
  write_archive(dir);
  const std::filesystem::path events = dir / "traces" / "1.evt";
  ASSERT_TRUE(std::filesystem::exists(events));
  std::filesystem::resize_file(events, std::filesystem::file_size(events) / 2);
  const std::unique_ptr<TraceReader> trace = open_otf2(dir);
  try {
    (void)convert_trace(*trace, {});
    FAIL() << "a truncated archive was converted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
  // An anchor file that is not OTF2.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "traces.otf2") << "not an archive\n";
  EXPECT_THROW((void)open_otf2(dir), InputError);
  std::filesystem::remove_all(dir);
}

// What the tracer leaves of a run that ended without MPI_Finalize: event files, no anchor file.
TEST(Otf2Reader, NamesARunWithoutFinalize) {
  const std::filesystem::path dir = temp_dir("nofinalize");
  write_archive(dir);
  ASSERT_TRUE(std::filesystem::exists(dir / "traces" / "0.evt"));
  std::filesystem::remove(dir / "traces.otf2");
  for (const std::filesystem::path& given : {dir, dir / "traces.otf2"}) {
    try {
      (void)open_otf2(given);
      FAIL() << "an archive without its anchor file was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("ended without MPI_Finalize"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

// OTF2 opens the archive's files itself: a FIFO among them blocked the read forever, a link to
// /dev/zero read without end (issue 36). Each is refused with its name and kind before OTF2 opens it.
TEST(Otf2Reader, ChecksEveryFileOfTheArchiveFirst) {
  const std::filesystem::path dir = temp_dir("special");
  const auto expect_refused = [&](const std::string& what) {
    try {
      const std::unique_ptr<TraceReader> trace = open_otf2(dir);
      (void)convert_trace(*trace, {});
      FAIL() << "an archive with a special file was read";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  for (const char* file : {"traces/1.evt", "traces.def", "traces.otf2", "traces/0.def"}) {
    write_archive(dir);
    std::filesystem::remove(dir / file);
    ASSERT_EQ(::mkfifo((dir / file).c_str(), 0600), 0);
    expect_refused(std::string(file) + "': it is a FIFO");
  }
  write_archive(dir);
  std::filesystem::remove(dir / "traces" / "0.evt");
  std::filesystem::create_symlink("/dev/zero", dir / "traces" / "0.evt");
  expect_refused("OTF2 event file '" + (dir / "traces" / "0.evt").string() + "': it is a character device");
  write_archive(dir);
  std::filesystem::resize_file(dir / "traces.def", (std::uintmax_t{1} << 30U) + 1);
  EXPECT_THROW((void)open_otf2(dir), InputError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gridlock::trace
