#pragma once
// Event queue ordered by (time, insertion stamp), LogGOPSim's strict order.
//
// A radix heap on the time (radix_buckets.hpp): the simulator never queues an event earlier than
// the last one popped. A pop that finds the current time used up takes the smallest queued time
// with all its events. This serves both shapes of traffic the engine sees:
// - lock-step collectives, where a million events share one time: they all land in one bucket
//   and become the current time together, already in stamp order (one pass, no comparisons);
// - noisy or irregular runs, where nearly every event has its own time: no hashing and no
//   comparison-based heap over all events.
// Events of the current time are served in stamp order: new events have the largest stamps so
// far and are appended to a sorted FIFO; the few that come with an older stamp (a retry or a
// group wake-up at the current time) wait in a small heap beside it.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "radix_buckets.hpp"

namespace gridlock::sim::detail {

struct Event {
  std::uint64_t time;
  std::uint64_t ts;
  std::uint64_t payload;
};

// The engine is written against this interface and WindowQueue's (window_queue.hpp); the host
// arguments and the checks only matter there.
class EventQueue {
 public:
  using Item = Event;
  static constexpr bool kWindowed = false;

  void set_next_ts(std::uint64_t ts) noexcept { next_ts_ = ts; }
  void enter_root(std::uint32_t /*host*/) noexcept {}
  void end_roots() noexcept {}

  // A new event: it gets the next stamp, larger than every stamp so far.
  [[gnu::always_inline]] void push_new(std::uint64_t time, std::uint64_t payload, std::uint32_t /*at*/ = 0) {
    push(Event{time, next_ts_++, payload});
  }

  // An event that keeps its old stamp (a retry, or a wake-up carrying a waiting event's stamp).
  void push_retry(std::uint64_t time, std::uint64_t ts, std::uint64_t payload, std::uint32_t /*at*/ = 0) {
    push(Event{time, ts, payload});
  }

  void require_local(std::uint32_t /*host*/) noexcept {}
  [[nodiscard]] static bool failed() noexcept { return false; }

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

  // Precondition: !empty().
  Event pop() {
    assert(size_ > 0);
    if (head_ == current_.size() && late_.empty()) {
      advance();
    }
    --size_;
    if (!late_.empty() && (head_ == current_.size() || late_.front().ts < current_[head_].ts)) {
      std::pop_heap(late_.begin(), late_.end(), later_stamp);
      const Event event = late_.back();
      late_.pop_back();
      return event;
    }
    return current_[head_++];
  }

 private:
  static bool later_stamp(const Event& a, const Event& b) noexcept { return a.ts > b.ts; }

  // Inlined into every caller, as before the buckets were shared with WindowQueue: one push per
  // event, on the hottest path of lock-step runs.
  [[gnu::always_inline]] void push(const Event& event) {
    assert(event.time >= buckets_.last());
    ++size_;
    if (event.time != buckets_.last()) {
      buckets_.push(event);
      return;
    }
    if (head_ == current_.size() || current_.back().ts < event.ts) {
      current_.push_back(event);
    } else {
      late_.push_back(event);
      std::push_heap(late_.begin(), late_.end(), later_stamp);
    }
  }

  // The current time is used up: move to the smallest queued time.
  void advance() {
    current_.clear();
    head_ = 0;
    buckets_.take_lowest(current_);
    sort_current();
  }

  // Events reach a bucket in push order, which is stamp order except for retries; restore it.
  void sort_current() {
    const auto by_stamp = [](const Event& x, const Event& y) { return x.ts < y.ts; };
    if (!std::is_sorted(current_.begin(), current_.end(), by_stamp)) {
      std::sort(current_.begin(), current_.end(), by_stamp);
    }
  }

  std::uint64_t next_ts_ = 0;
  std::uint64_t size_ = 0;      // Events queued.
  std::vector<Event> current_;  // Events at the current time, sorted by stamp; served from head_.
  std::size_t head_ = 0;
  std::vector<Event> late_;  // Events at the current time out of stamp order (min-heap by stamp).
  struct TimeOf {
    std::uint64_t operator()(const Event& e) const noexcept { return e.time; }
  };
  RadixBuckets<Event, TimeOf> buckets_;  // Events later than the current time, buckets_.last().
};

}  // namespace gridlock::sim::detail
