#pragma once
// Event queue ordered by (time, insertion stamp), LogGOPSim's strict order.
//
// New events always carry the largest stamp so far, so the new events of one time form a FIFO:
// they are kept in per-time buckets (a vector each) and only the distinct times live in a heap.
// Retried events keep their old stamp and go to a small ordinary heap. In lock-step collectives
// a million events share one time, so most pushes and pops are vector appends and reads.

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gridlock::sim::detail {

struct Event {
  std::uint64_t time;
  std::uint64_t ts;
  std::uint64_t payload;
};

class EventQueue {
 public:
  void set_next_ts(std::uint64_t ts) noexcept { next_ts_ = ts; }

  void push_new(std::uint64_t time, std::uint64_t payload) {
    const std::uint64_t ts = next_ts_++;
    if (last_ != kNil && buckets_[last_].time == time) {
      buckets_[last_].items.push_back(Item{ts, payload});
      return;
    }
    const auto found = index_.find(time);
    std::uint32_t id = 0;
    if (found != index_.end()) {
      id = found->second;
    } else {
      if (!free_.empty()) {
        id = free_.back();
        free_.pop_back();
      } else {
        id = static_cast<std::uint32_t>(buckets_.size());
        buckets_.emplace_back();
      }
      buckets_[id].time = time;
      buckets_[id].head = 0;
      index_.emplace(time, id);
      times_.emplace_back(time, id);
      std::push_heap(times_.begin(), times_.end(), std::greater<>());
    }
    buckets_[id].items.push_back(Item{ts, payload});
    last_ = id;
  }

  void push_retry(std::uint64_t time, std::uint64_t ts, std::uint64_t payload) {
    retry_.push_back(Event{time, ts, payload});
    std::push_heap(retry_.begin(), retry_.end(), later);
  }

  [[nodiscard]] bool empty() const noexcept { return times_.empty() && retry_.empty(); }

  // Precondition: !empty().
  Event pop() {
    if (!times_.empty()) {
      const std::uint32_t id = times_.front().second;
      Bucket& bucket = buckets_[id];
      const Item& item = bucket.items[bucket.head];
      const bool take_retry =
          !retry_.empty() && (retry_.front().time < bucket.time ||
                              (retry_.front().time == bucket.time && retry_.front().ts < item.ts));
      if (!take_retry) {
        const Event event{bucket.time, item.ts, item.payload};
        if (++bucket.head == bucket.items.size()) {
          std::pop_heap(times_.begin(), times_.end(), std::greater<>());
          times_.pop_back();
          index_.erase(bucket.time);
          bucket.items.clear();
          if (bucket.items.capacity() > (std::size_t{1} << 20U)) {
            bucket.items.shrink_to_fit();
          }
          bucket.head = 0;
          free_.push_back(id);
          if (last_ == id) {
            last_ = kNil;
          }
        }
        return event;
      }
    }
    std::pop_heap(retry_.begin(), retry_.end(), later);
    const Event event = retry_.back();
    retry_.pop_back();
    return event;
  }

 private:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFU;
  struct Item {
    std::uint64_t ts;
    std::uint64_t payload;
  };
  struct Bucket {
    std::uint64_t time = 0;
    std::vector<Item> items;
    std::size_t head = 0;
  };
  static bool later(const Event& a, const Event& b) noexcept {
    return a.time > b.time || (a.time == b.time && a.ts > b.ts);
  }

  std::uint64_t next_ts_ = 0;
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> times_;  // min-heap of bucket times
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::uint32_t last_ = kNil;
  std::vector<Event> retry_;  // min-heap by (time, ts)
};

}  // namespace gridlock::sim::detail
