#pragma once
// Event queue ordered by (time, insertion stamp) for runs with a network model
// (gridlock/sim/network.hpp). The engine has to compare its next event's time with the network
// model's before every step, which the radix heap of event_queue.hpp cannot answer without
// handing over a whole bucket; a binary heap answers it in O(1). A network model costs far more
// per message than this queue does, so the radix heap's speed is not missed here.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "event_queue.hpp"

namespace gridlock::sim::detail {

// The engine's queue interface (see EventQueue) plus next_time().
class HeapQueue {
 public:
  using Item = Event;
  static constexpr bool kWindowed = false;

  void set_next_ts(std::uint64_t ts) noexcept { next_ts_ = ts; }
  void enter_root(std::uint32_t /*host*/) noexcept {}
  void end_roots() noexcept {}

  void push_new(std::uint64_t time, std::uint64_t payload, std::uint32_t /*at*/ = 0) {
    push(Event{time, next_ts_++, payload});
  }
  void push_retry(std::uint64_t time, std::uint64_t ts, std::uint64_t payload, std::uint32_t /*at*/ = 0) {
    push(Event{time, ts, payload});
  }

  void require_local(std::uint32_t /*host*/) noexcept {}
  [[nodiscard]] static bool failed() noexcept { return false; }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  // Precondition: !empty().
  [[nodiscard]] std::uint64_t next_time() const noexcept { return heap_.front().time; }

  // Precondition: !empty().
  Event pop() {
    assert(!heap_.empty());
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Event event = heap_.back();
    heap_.pop_back();
    return event;
  }

 private:
  static bool later(const Event& a, const Event& b) noexcept {
    return a.time != b.time ? a.time > b.time : a.ts > b.ts;
  }
  void push(const Event& event) {
    heap_.push_back(event);
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  std::uint64_t next_ts_ = 0;
  std::vector<Event> heap_;
};

}  // namespace gridlock::sim::detail
