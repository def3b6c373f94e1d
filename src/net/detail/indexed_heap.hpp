#pragma once
// A binary min-heap of ids (0 .. n-1) keyed by a 64-bit time, with each id's position kept so that
// its key can change or it can leave in O(log n). The flow model keeps one entry per active flow:
// with std::priority_queue every rate change left a stale entry behind, and popping those took
// 60% of a 2,000-flow run. Hand-written (about 60 lines) rather than boost::heap's mutable heaps,
// which would add Boost to the build for this alone.
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

namespace gridlock::net::detail {

class IndexedHeap {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFU;

  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }
  // Precondition: !empty().
  [[nodiscard]] std::uint32_t top() const noexcept { return heap_.front(); }
  [[nodiscard]] std::uint64_t top_key() const noexcept { return key_[heap_.front()]; }
  [[nodiscard]] bool contains(std::uint32_t id) const noexcept {
    return id < pos_.size() && pos_[id] != kAbsent;
  }

  // Inserts `id` with `key`, or moves it to `key` if present. Ties break by id (deterministic).
  void set(std::uint32_t id, std::uint64_t key) {
    if (id >= pos_.size()) {
      pos_.resize(id + 1, kAbsent);
      key_.resize(id + 1, 0);
    }
    if (pos_[id] == kAbsent) {
      key_[id] = key;
      pos_[id] = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(id);
      up(pos_[id]);
      return;
    }
    const std::uint64_t old = key_[id];
    key_[id] = key;
    if (key < old) {
      up(pos_[id]);
    } else {
      down(pos_[id]);
    }
  }

  // Removes `id` if present.
  void erase(std::uint32_t id) {
    if (!contains(id)) {
      return;
    }
    const std::uint32_t at = pos_[id];
    const std::uint32_t last = heap_.back();
    heap_.pop_back();
    pos_[id] = kAbsent;
    if (last == id) {
      return;
    }
    heap_[at] = last;
    pos_[last] = at;
    up(at);
    down(pos_[last]);
  }

 private:
  [[nodiscard]] bool less(std::uint32_t a, std::uint32_t b) const noexcept {
    return key_[a] != key_[b] ? key_[a] < key_[b] : a < b;
  }
  void place(std::uint32_t at, std::uint32_t id) {
    heap_[at] = id;
    pos_[id] = at;
  }
  void up(std::uint32_t at) {
    const std::uint32_t id = heap_[at];
    while (at > 0) {
      const std::uint32_t parent = (at - 1) / 2;
      if (!less(id, heap_[parent])) {
        break;
      }
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, id);
  }
  void down(std::uint32_t at) {
    const std::uint32_t id = heap_[at];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    while (true) {
      std::uint32_t child = 2 * at + 1;
      if (child >= n) {
        break;
      }
      if (child + 1 < n && less(heap_[child + 1], heap_[child])) {
        ++child;
      }
      if (!less(heap_[child], id)) {
        break;
      }
      place(at, heap_[child]);
      at = child;
    }
    place(at, id);
  }

  std::vector<std::uint32_t> heap_;
  std::vector<std::uint32_t> pos_;
  std::vector<std::uint64_t> key_;
};

}  // namespace gridlock::net::detail
