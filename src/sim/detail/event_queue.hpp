#pragma once
// Event queue ordered by (time, insertion stamp), LogGOPSim's strict order.
//
// A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) on the time: the simulator never queues an
// event earlier than the last one popped, so an event goes into bucket i = the highest bit in
// which its time differs from that last time (bucket 0: the same time). Pushing is an append; a
// pop that finds the current time used up takes the lowest non-empty bucket, makes its smallest
// time the current one and spreads its events over lower buckets, each event moving down at
// most 64 times in all. This serves both shapes of traffic the engine sees:
// - lock-step collectives, where a million events share one time: they all land in one bucket
//   and become the current time together, already in stamp order (one pass, no comparisons);
// - noisy or irregular runs, where nearly every event has its own time: no hashing and no
//   comparison-based heap over all events.
// Events of the current time are served in stamp order: new events have the largest stamps so
// far and are appended to a sorted FIFO; the few that come with an older stamp (a retry or a
// group wake-up at the current time) wait in a small heap beside it.

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <functional>
#include <vector>

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
  using Stamp = std::uint64_t;
  using Item = Event;
  static constexpr bool kWindowed = false;

  [[nodiscard]] static Stamp stamp_of(const Item& e) noexcept { return e.ts; }
  [[nodiscard]] static Stamp root_stamp(std::uint64_t index, std::uint32_t /*host*/) noexcept {
    return index;
  }
  [[nodiscard]] static bool earlier(Stamp a, Stamp b) noexcept { return a < b; }

  void set_next_ts(std::uint64_t ts) noexcept { next_ts_ = ts; }
  void enter_root(std::uint32_t /*host*/) noexcept {}
  void end_roots() noexcept {}

  // A new event: it gets the next stamp, larger than every stamp so far.
  void push_new(std::uint64_t time, std::uint64_t payload, std::uint32_t /*at*/ = 0) {
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
  static constexpr std::size_t kBuckets = 65;

  static bool later_stamp(const Event& a, const Event& b) noexcept { return a.ts > b.ts; }

  [[nodiscard]] std::size_t bucket_of(std::uint64_t time) const noexcept {
    return time == now_ ? 0 : static_cast<std::size_t>(64 - std::countl_zero(time ^ now_));
  }

  void push(const Event& event) {
    assert(event.time >= now_);
    ++size_;
    if (event.time != now_) {
      const std::size_t b = bucket_of(event.time);
      buckets_[b].push_back(event);
      lowest_ = std::min(lowest_, b);
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
    std::size_t b = lowest_;
    while (buckets_[b].empty()) {
      ++b;
      assert(b < kBuckets);
    }
    std::vector<Event>& from = buckets_[b];
    std::uint64_t smallest = from.front().time;
    std::uint64_t largest = smallest;
    for (const Event& e : from) {
      smallest = std::min(smallest, e.time);
      largest = std::max(largest, e.time);
    }
    now_ = smallest;
    if (smallest == largest) {
      // Lock step: the whole bucket is the new current time; hand the vector over, no copy.
      std::swap(current_, from);
      set_lowest_from(b + 1);
      sort_current();
      return;
    }
    // Every event of bucket b differs from the new time only below bit b-1, so each one goes to
    // a lower bucket or becomes current; the bucket is emptied in one pass.
    std::size_t new_lowest = kBuckets;
    for (const Event& e : from) {
      if (e.time == now_) {
        current_.push_back(e);
      } else {
        const std::size_t to = bucket_of(e.time);
        buckets_[to].push_back(e);
        new_lowest = std::min(new_lowest, to);
      }
    }
    from.clear();
    if (from.capacity() > (std::size_t{1} << 22U)) {
      from.shrink_to_fit();
    }
    if (new_lowest < kBuckets) {
      lowest_ = new_lowest;
    } else {
      set_lowest_from(b + 1);
    }
    sort_current();
  }

  void set_lowest_from(std::size_t b) {
    while (b < kBuckets - 1 && buckets_[b].empty()) {
      ++b;
    }
    lowest_ = b;
  }

  // Events reach a bucket in push order, which is stamp order except for retries; restore it.
  void sort_current() {
    const auto by_stamp = [](const Event& x, const Event& y) { return x.ts < y.ts; };
    if (!std::is_sorted(current_.begin(), current_.end(), by_stamp)) {
      std::sort(current_.begin(), current_.end(), by_stamp);
    }
  }

  std::uint64_t next_ts_ = 0;
  std::uint64_t now_ = 0;       // Time of the events being served.
  std::uint64_t size_ = 0;      // Events queued.
  std::size_t lowest_ = 1;      // No non-empty bucket below this one (other than bucket 0).
  std::vector<Event> current_;  // Events at now_, sorted by stamp; served from head_.
  std::size_t head_ = 0;
  std::vector<Event> late_;  // Events at now_ that arrived out of stamp order (min-heap by stamp).
  std::array<std::vector<Event>, kBuckets> buckets_;  // buckets_[0] unused: time now_ is current_.
};

}  // namespace gridlock::sim::detail
