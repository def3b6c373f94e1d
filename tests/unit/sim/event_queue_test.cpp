// The engine's event queue against a plain priority queue on (time, stamp), under the usage the
// engine makes of it: times never below the last one popped, new events with rising stamps,
// retries and wake-ups with old stamps, bursts of one time (lock step) and scattered times (noise).
#include "detail/event_queue.hpp"
#include "detail/window_queue.hpp"

#include <gtest/gtest.h>

#include <queue>
#include <tuple>
#include <vector>

#include "gridlock/core/rng.hpp"

namespace gridlock::sim::detail {
namespace {

struct Later {
  bool operator()(const Event& a, const Event& b) const noexcept {
    return std::tie(a.time, a.ts) > std::tie(b.time, b.ts);
  }
};

void check_against_reference(std::uint64_t seed, std::uint64_t time_spread, std::uint64_t burst) {
  Rng rng(seed);
  EventQueue queue;
  std::priority_queue<Event, std::vector<Event>, Later> reference;
  std::uint64_t next_ts = 0;
  std::uint64_t now = 0;
  std::uint64_t payload = 0;
  const auto push_new = [&](std::uint64_t time) {
    queue.push_new(time, payload);
    reference.push(Event{time, next_ts++, payload++});
  };
  const auto push_old = [&](std::uint64_t time, std::uint64_t ts) {
    queue.push_retry(time, ts, payload);
    reference.push(Event{time, ts, payload++});
  };
  for (std::uint64_t i = 0; i < burst; ++i) {
    push_new(uniform_below(rng, 2) == 0 ? 0 : uniform_below(rng, time_spread));
  }
  std::uint64_t popped = 0;
  while (!reference.empty()) {
    ASSERT_FALSE(queue.empty());
    const Event want = reference.top();
    reference.pop();
    const Event got = queue.pop();
    ASSERT_EQ(got.time, want.time) << "pop " << popped << ", seed " << seed;
    ASSERT_EQ(got.ts, want.ts) << "pop " << popped << ", seed " << seed;
    ASSERT_EQ(got.payload, want.payload) << "pop " << popped << ", seed " << seed;
    ASSERT_GE(got.time, now);
    now = got.time;
    ++popped;
    if (popped > 20'000) {
      continue;  // drain
    }
    // The popped event may come back once with its own stamp (stamps stay unique, as in the
    // engine): as a retry at a later time, or as a group wake-up at the current time.
    switch (uniform_below(rng, 4)) {
      case 0:
        push_old(now + 1 + uniform_below(rng, time_spread), got.ts);
        break;
      case 1:
        push_old(now, got.ts);
        break;
      default:
        break;
    }
    const std::uint64_t pushes = uniform_below(rng, 3);
    for (std::uint64_t k = 0; k < pushes; ++k) {
      if (uniform_below(rng, 3) == 0) {
        push_new(now);  // a ready op at the current time
      } else {          // a message or op in the future, sometimes far away
        push_new(now + (uniform_below(rng, 8) == 0 ? uniform_below(rng, std::uint64_t{1} << 40U)
                                                   : uniform_below(rng, time_spread)));
      }
    }
  }
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, MatchesAPriorityQueueOnScatteredTimes) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    check_against_reference(seed, 1'000'000, 50);
  }
}

TEST(EventQueue, MatchesAPriorityQueueOnFewDistinctTimes) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    check_against_reference(seed, 4, 200);
  }
}

TEST(EventQueue, LockStepBurstComesOutInStampOrder) {
  EventQueue queue;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    queue.push_new(7'000, i);
  }
  queue.push_retry(7'000, 0, 999'999);  // an older stamp than all of them but the first
  std::uint64_t last_ts = 0;
  for (std::uint64_t i = 0; i <= 100'000; ++i) {
    const Event e = queue.pop();
    EXPECT_EQ(e.time, 7'000U);
    if (i > 0) {
      EXPECT_GE(e.ts, last_ts);
    }
    last_ts = e.ts;
  }
  EXPECT_TRUE(queue.empty());
}

// A queue with a lookahead of 3,000 ps on 4 hosts, serving the one root event (host 0, time 0).
WindowQueue queue_serving_one_root() {
  WindowQueue queue(3'000, 4);
  queue.set_next_ts(1);
  queue.enter_root(0);
  queue.push_new(0, 100, 0);
  queue.end_roots();
  EXPECT_EQ(queue.pop().payload, 100U);
  return queue;
}

// A window is exactly the lookahead wide, not the power of two below it: with a lookahead of
// 3,000 ps, times 3,000 and 5,999 share window 1 and are served host by host (host 1's later
// event first); a message created at time 0 for another host at exactly the lookahead is legal.
TEST(WindowQueue, WindowsAreExactlyTheLookaheadWide) {
  WindowQueue queue = queue_serving_one_root();
  queue.push_new(5'999, 101, 1);
  queue.push_new(3'000, 102, 2);
  EXPECT_FALSE(queue.failed());
  ASSERT_TRUE(queue.window_done());
  queue.close_window();
  const WindowEvent first = queue.pop();
  const WindowEvent second = queue.pop();
  EXPECT_EQ(first.payload, 101U);
  EXPECT_EQ(first.at, 1U);
  EXPECT_EQ(second.payload, 102U);
  EXPECT_EQ(second.at, 2U);
  EXPECT_TRUE(queue.window_done());
  EXPECT_TRUE(queue.empty());
  // Stamps: the two were created in this order by the one root event.
  EXPECT_LT(first.ts, second.ts);
  EXPECT_FALSE(queue.failed());
}

// Less than the lookahead later on another host breaks the lookahead argument: the queue says so.
TEST(WindowQueue, AnEventForAnotherHostInsideTheWindowFailsTheWindowedRun) {
  WindowQueue queue = queue_serving_one_root();
  queue.push_new(2'999, 101, 1);
  EXPECT_TRUE(queue.failed());
}

}  // namespace
}  // namespace gridlock::sim::detail
