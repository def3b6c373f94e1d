// Repeating programs (generators): a program built once and repeated must give exactly the times
// of the same program unrolled, and the run must stop when the ranks that do not repeat finish.
#include <cstdint>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {
namespace {

using Completion = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>;  // rank, op, time

struct Observed {
  SimResult result;
  std::vector<Completion> done;  // completions of the ranks below `watched`, in event order
};

Observed run(const Schedule& schedule, std::uint32_t watched, SimOptions options = {}) {
  Observed out;
  options.on_op_done = [&out, watched](std::uint32_t rank, std::uint32_t op, SimTime end) {
    if (rank < watched) {
      out.done.emplace_back(rank, op, end.ps);
    }
  };
  if (options.repeat_time_limit.ps == 0) {
    options.repeat_time_limit = SimTime{kPsPerUs * 1000 * 1000};
  }
  out.result = simulate(schedule, options);
  return out;
}

// Rank 1 as an echo server of rank 0: each request (tag 5) answered (tag 6) after a calc of
// `calc_us`. `repeat`: one iteration, repeated; otherwise unrolled `requests` times.
void echo_server(ScheduleBuilder& b, std::uint32_t requests, bool repeat, std::uint64_t bytes,
                 std::uint64_t calc_us) {
  b.begin_rank(1);
  std::uint32_t prev = 0xFFFFFFFFU;
  for (std::uint32_t i = 0; i < (repeat ? 1 : requests); ++i) {
    const std::uint32_t r = b.recv(bytes, 0, 5);
    if (prev != 0xFFFFFFFFU) {
      b.add_requires(r, prev);
    }
    const std::uint32_t c = b.calc(SimTime{calc_us * kPsPerUs});
    b.add_requires(c, r);
    const std::uint32_t s = b.send(bytes, 0, 6);
    b.add_requires(s, c);
    prev = s;
  }
  b.end_rank();
  if (repeat) {
    b.set_repeating(1);
  }
}

// Rank 0 sends `requests` messages to the echo server (rank 1), each after the last reply.
Schedule echo(std::uint32_t requests, bool repeat, std::uint64_t bytes) {
  ScheduleBuilder b(2);
  b.begin_rank(0);
  std::uint32_t prev = 0xFFFFFFFFU;
  for (std::uint32_t i = 0; i < requests; ++i) {
    const std::uint32_t s = b.send(bytes, 1, 5);
    if (prev != 0xFFFFFFFFU) {
      b.add_requires(s, prev);
    }
    const std::uint32_t r = b.recv(bytes, 1, 6);
    b.add_requires(r, s);
    prev = r;
  }
  b.end_rank();
  echo_server(b, requests, repeat, bytes, 3);
  return b.finish();
}

TEST(Repeat, EchoServerRepeatedGivesTheUnrolledTimes) {
  for (const std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{100'000}}) {  // eager and rendezvous
    const Observed unrolled = run(echo(7, false, bytes), 1);
    const Observed repeated = run(echo(7, true, bytes), 1);
    ASSERT_TRUE(unrolled.result.complete);
    ASSERT_TRUE(repeated.result.complete) << stuck_report(repeated.result);
    EXPECT_EQ(repeated.done, unrolled.done) << bytes << " bytes";
    EXPECT_EQ(repeated.result.finish[0], unrolled.result.finish[0]);
    ASSERT_EQ(repeated.result.repeat_cycles.size(), 2U);
    EXPECT_EQ(repeated.result.repeat_cycles[0], 0U);
    EXPECT_EQ(repeated.result.repeat_cycles[1], 7U);
    // Only the rank that does not repeat counts in the totals.
    EXPECT_EQ(repeated.result.ops_total, 14U);
    EXPECT_EQ(repeated.result.ops_completed, 14U);
    EXPECT_TRUE(unrolled.result.repeat_cycles.empty());
  }
}

// Messages that reach a repeating rank before its next iteration has posted the receive wait in
// the unexpected queue and are matched when it does: rank 0 sends all its requests at once.
TEST(Repeat, MessagesAheadOfTheNextIterationAreMatchedFromTheUnexpectedQueue) {
  auto build = [](bool repeat) {
    ScheduleBuilder b(2);
    b.begin_rank(0);
    std::vector<std::uint32_t> sends;
    for (std::uint32_t i = 0; i < 5; ++i) {
      sends.push_back(b.send(8, 1, 5));
    }
    for (std::uint32_t i = 0; i < 5; ++i) {
      const std::uint32_t r = b.recv(8, 1, 6);
      b.add_requires(r, sends.back());
    }
    b.end_rank();
    echo_server(b, 5, repeat, 8, 10);
    return b.finish();
  };
  const Observed unrolled = run(build(false), 1);
  const Observed repeated = run(build(true), 1);
  ASSERT_TRUE(repeated.result.complete) << stuck_report(repeated.result);
  EXPECT_EQ(repeated.done, unrolled.done);
  EXPECT_EQ(repeated.result.repeat_cycles[1], 5U);
}

// A server with two independent chains (one per client, as the RMA root of predict gpcnet):
// each weakly connected part repeats on its own, so a fast client is not held to a slow one.
TEST(Repeat, EachConnectedPartRepeatsOnItsOwn) {
  auto build = [](bool repeat) {
    ScheduleBuilder b(3);
    const std::uint32_t requests[] = {9, 3};
    for (std::uint32_t client = 0; client < 2; ++client) {
      b.begin_rank(client);
      std::uint32_t prev = 0xFFFFFFFFU;
      for (std::uint32_t i = 0; i < requests[client]; ++i) {
        if (client == 1) {
          const std::uint32_t c = b.calc(SimTime{20 * kPsPerUs});  // the slow client
          if (prev != 0xFFFFFFFFU) {
            b.add_requires(c, prev);
          }
          prev = c;
        }
        const std::uint32_t s = b.send(8, 2, 5);
        if (prev != 0xFFFFFFFFU) {
          b.add_requires(s, prev);
        }
        const std::uint32_t r = b.recv(8, 2, 6);
        b.add_requires(r, s);
        prev = r;
      }
      b.end_rank();
    }
    b.begin_rank(2);
    std::uint32_t last[2] = {0xFFFFFFFFU, 0xFFFFFFFFU};
    const std::uint32_t iterations = repeat ? 1 : 9;
    for (std::uint32_t i = 0; i < iterations; ++i) {
      for (std::uint32_t client = 0; client < 2; ++client) {
        if (!repeat && i >= requests[client]) {
          continue;
        }
        const std::uint32_t r = b.recv(8, client, 5);
        if (last[client] != 0xFFFFFFFFU) {
          b.add_requires(r, last[client]);
        }
        const std::uint32_t s = b.send(8, client, 6);
        b.add_requires(s, r);
        last[client] = s;
      }
    }
    b.end_rank();
    if (repeat) {
      b.set_repeating(2);
    }
    return b.finish();
  };
  const Observed unrolled = run(build(false), 2);
  const Observed repeated = run(build(true), 2);
  ASSERT_TRUE(unrolled.result.complete) << stuck_report(unrolled.result);
  ASSERT_TRUE(repeated.result.complete) << stuck_report(repeated.result);
  EXPECT_EQ(repeated.done, unrolled.done);
  // The fewest cycles over the parts: the slow client's 3.
  EXPECT_EQ(repeated.result.repeat_cycles[2], 3U);
}

// A stream between two repeating ranks beside a finite ping-pong: the run ends with the
// ping-pong, and the stream has run all along.
TEST(Repeat, RunStopsWhenTheRanksThatDoNotRepeatFinish) {
  const Schedule schedule = parse_goal(R"(num_ranks 4
rank 0 {
a: send 8b to 1
b: recv 8b from 1
c: send 8b to 1
d: recv 8b from 1
b requires a
c requires b
d requires c
}
rank 1 {
a: recv 8b from 0
b: send 8b to 0
c: recv 8b from 0
d: send 8b to 0
b requires a
c requires b
d requires c
}
rank 2 {
send 1000b to 3
}
rank 3 {
recv 1000b from 2
}
)",
                                       "stream.goal");
  ScheduleBuilder b(4);
  // The same schedule with ranks 2 and 3 repeating: rebuild it op by op.
  for (std::uint32_t r = 0; r < 4; ++r) {
    b.begin_rank(r);
    const Program& p = schedule.program_of(r);
    for (std::uint32_t i = 0; i < p.ops.size(); ++i) {
      const Op& op = p.ops[i];
      if (op.type == OpType::kSend) {
        (void)b.send(op.size, schedule.peer(r, i), op.tag);
      } else {
        (void)b.recv(op.size, schedule.peer(r, i), op.tag);
      }
    }
    for (std::uint32_t i = 0; i < p.ops.size(); ++i) {
      for (std::uint32_t k = p.succ_begin[std::size_t{2} * i]; k < p.succ_begin[std::size_t{2} * i + 1];
           ++k) {
        b.add_requires(p.succ[k], i);
      }
    }
    b.end_rank();
  }
  b.set_repeating(2);
  b.set_repeating(3);
  const Schedule repeating = b.finish();
  EXPECT_TRUE(repeating.has_repeating());
  EXPECT_FALSE(schedule.has_repeating());
  EXPECT_FALSE(repeating.same_as(schedule));
  const Observed out = run(repeating, 2);
  ASSERT_TRUE(out.result.complete) << stuck_report(out.result);
  EXPECT_EQ(out.result.ops_total, 8U);
  EXPECT_EQ(out.result.finish[0], run(schedule, 2).result.finish[0]);
  EXPECT_GT(out.result.repeat_cycles[2], 2U);
  EXPECT_GE(out.result.stopped_at.ps, out.result.finish[0].ps);
  EXPECT_FALSE(out.result.time_limit_reached);
}

Schedule stream_beside(const char* finite_rank0) {
  ScheduleBuilder b(3);
  b.begin_rank(0);
  if (finite_rank0[0] == 'r') {
    (void)b.recv(8, 2, 9);  // never sent: rank 0 waits for ever
  } else {
    (void)b.calc(SimTime{kPsPerUs});
  }
  b.end_rank();
  b.begin_rank(1);
  (void)b.send(64, 2, 1);
  b.end_rank();
  b.begin_rank(2);
  (void)b.recv(64, 1, 1);
  b.end_rank();
  b.set_repeating(1);
  b.set_repeating(2);
  return b.finish();
}

TEST(Repeat, AStuckRankStopsAtTheTimeLimitIncomplete) {
  SimOptions options;
  options.repeat_time_limit = SimTime{500 * kPsPerUs};
  const SimResult r = run(stream_beside("recv"), 1, options).result;
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(r.time_limit_reached);
  EXPECT_LE(r.stopped_at.ps, 500 * kPsPerUs);
  EXPECT_GT(r.repeat_cycles[1], 10U);
  ASSERT_EQ(r.stuck_ranks, 1U);
  EXPECT_EQ(r.stuck.at(0).rank, 0U);
}

TEST(Repeat, RefusesWhatCannotEnd) {
  SimOptions no_limit;
  EXPECT_THROW((void)simulate(stream_beside("calc"), no_limit), InputError);
  SimOptions handshake;
  handshake.repeat_time_limit = SimTime{kPsPerUs};
  handshake.params.rendezvous_handshake = true;
  EXPECT_THROW((void)simulate(stream_beside("calc"), handshake), InputError);
  ScheduleBuilder b(2);
  b.begin_rank(0);
  (void)b.send(8, 1);
  b.end_rank();
  b.begin_rank(1);
  (void)b.recv(8, 0);
  b.end_rank();
  b.set_repeating(0);
  b.set_repeating(1);
  const Schedule all = b.finish();
  SimOptions limited;
  limited.repeat_time_limit = SimTime{kPsPerUs};
  EXPECT_THROW((void)simulate(all, limited), InputError);
  EXPECT_THROW((void)b.set_repeating(7), InputError);
  EXPECT_THROW((void)write_goal(all), InputError);
  EXPECT_THROW((void)write_binary(all, 2), InputError);
}

}  // namespace
}  // namespace gridlock::sim
