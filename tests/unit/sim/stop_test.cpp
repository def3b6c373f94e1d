// SimOptions::stop_flag: a run stopped on request ends after the event that set the flag, reports
// that it was stopped and is complete ("stopped as asked"), with or without repeating programs.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {
namespace {

// Rank 0 and rank 1 exchange `rounds` messages, each round after the last; rank 1 repeats one
// round when `repeat` (rank 0 then ends the run).
Schedule ping_pong(std::uint32_t rounds, bool repeat) {
  ScheduleBuilder b(2);
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    b.begin_rank(rank);
    const std::uint32_t peer = 1 - rank;
    std::uint32_t prev = 0xFFFFFFFFU;
    const std::uint32_t count = rank == 1 && repeat ? 1 : rounds;
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t first = rank == 0 ? b.send(8, peer, 1) : b.recv(8, peer, 1);
      const std::uint32_t second = rank == 0 ? b.recv(8, peer, 2) : b.send(8, peer, 2);
      if (prev != 0xFFFFFFFFU) {
        b.add_requires(first, prev);
      }
      b.add_requires(second, first);
      prev = second;
    }
    b.end_rank();
    if (rank == 1 && repeat) {
      b.set_repeating(1);
    }
  }
  return b.finish();
}

struct Stopped {
  SimResult result;
  std::uint32_t done_after_stop = 0;  // rank 0's completions after the flag was set
};

// Runs `schedule` and sets the stop flag when rank 0 has completed `stop_after` ops.
Stopped run_until(const Schedule& schedule, std::uint32_t stop_after) {
  Stopped out;
  bool stop = false;
  std::uint32_t done = 0;
  SimOptions options;
  options.repeat_time_limit = SimTime{1000 * kPsPerUs};
  options.stop_flag = &stop;
  options.on_op_done = [&](std::uint32_t rank, std::uint32_t, SimTime) {
    if (rank != 0) {
      return;
    }
    out.done_after_stop += stop ? 1 : 0;
    stop = ++done >= stop_after;
  };
  out.result = simulate(schedule, options);
  return out;
}

TEST(StopFlag, StopsAFiniteRunAsAskedAndSaysSo) {
  const Schedule schedule = ping_pong(100, false);
  const Stopped s = run_until(schedule, 10);
  EXPECT_TRUE(s.result.stopped_by_request);
  EXPECT_TRUE(s.result.complete);
  EXPECT_TRUE(s.result.stuck.empty());
  EXPECT_EQ(s.done_after_stop, 0U);
  EXPECT_LT(s.result.ops_completed, s.result.ops_total);
  EXPECT_GE(s.result.ops_completed, 10U);
  EXPECT_GT(s.result.stopped_at.ps, 0U);
  // Without the flag set the same run completes every op and is not "stopped".
  SimOptions plain;
  bool never = false;
  plain.stop_flag = &never;
  const SimResult full = simulate(schedule, plain);
  EXPECT_TRUE(full.complete);
  EXPECT_FALSE(full.stopped_by_request);
  EXPECT_EQ(full.ops_completed, full.ops_total);
  EXPECT_LT(s.result.stopped_at.ps, full.max_finish.ps);
}

TEST(StopFlag, StopsARunWithRepeatingPrograms) {
  const Stopped s = run_until(ping_pong(100, true), 20);
  EXPECT_TRUE(s.result.stopped_by_request);
  EXPECT_TRUE(s.result.complete);
  EXPECT_FALSE(s.result.time_limit_reached);
  EXPECT_EQ(s.done_after_stop, 0U);
  ASSERT_EQ(s.result.repeat_cycles.size(), 2U);
  EXPECT_GE(s.result.repeat_cycles[1], 9U);
  EXPECT_LT(s.result.repeat_cycles[1], 100U);
}

TEST(StopFlag, AStopFlagKeepsTheTimesOfARunWithout) {
  // The flag only ends the run: the times up to the stop are those of a run without it.
  const Schedule schedule = ping_pong(50, false);
  std::vector<std::uint64_t> with;
  std::vector<std::uint64_t> without;
  bool stop = false;
  SimOptions options;
  options.stop_flag = &stop;
  options.on_op_done = [&](std::uint32_t rank, std::uint32_t, SimTime end) {
    if (rank == 0) {
      with.push_back(end.ps);
      stop = with.size() >= 30;
    }
  };
  (void)simulate(schedule, options);
  SimOptions plain;
  plain.on_op_done = [&](std::uint32_t rank, std::uint32_t, SimTime end) {
    if (rank == 0) {
      without.push_back(end.ps);
    }
  };
  (void)simulate(schedule, plain);
  ASSERT_EQ(with.size(), 30U);
  EXPECT_EQ(with, std::vector<std::uint64_t>(without.begin(), without.begin() + 30));
}

}  // namespace
}  // namespace gridlock::sim
