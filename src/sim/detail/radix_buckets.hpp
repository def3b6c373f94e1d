#pragma once
// The buckets of a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) on a 64-bit key, shared by the
// engine's two event queues (key: the time, or the window). Items whose key equals the last key
// taken belong to the caller (its current time or window); an item with a larger key goes into
// bucket i = the highest bit in which the key differs from the last one. take_lowest() makes the
// smallest queued key the last one and hands over its items: the whole bucket in one swap when
// all of them share that key (a lock-step collective, where a million events share one time),
// otherwise after spreading the bucket over lower buckets, each item moving down at most 64
// times in all. Pushing is an append; there is no comparison-based heap over all items.

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

namespace gridlock::sim::detail {

template <class Item, class KeyOf>
class RadixBuckets {
 public:
  // Where a pushed item sits until the next take_lowest().
  struct Slot {
    std::uint32_t bucket;
    std::uint32_t index;
  };

  explicit RadixBuckets(KeyOf key_of = KeyOf{}) : key_of_(key_of) {}

  // The key of the items last handed over (0 at the start).
  [[nodiscard]] std::uint64_t last() const noexcept { return last_; }

  // Precondition: key_of(item) > last().
  void push(const Item& item) { (void)push_to(item); }
  // push(), returning where the item sits (for rewriting it in place before the next take).
  Slot push_slot(const Item& item) {
    const std::size_t b = push_to(item);
    return Slot{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(buckets_[b].size() - 1)};
  }
  [[nodiscard]] Item& at(Slot slot) noexcept { return buckets_[slot.bucket][slot.index]; }

  // Moves the items with the smallest queued key into `out` (empty), in push order, and makes
  // that key last(). Precondition: an item is queued.
  void take_lowest(std::vector<Item>& out) {
    assert(out.empty());
    std::size_t b = lowest_;
    while (buckets_[b].empty()) {
      ++b;
      assert(b < kBuckets);
    }
    std::vector<Item>& from = buckets_[b];
    std::uint64_t smallest = key_of_(from.front());
    std::uint64_t largest = smallest;
    for (const Item& x : from) {
      const std::uint64_t k = key_of_(x);
      smallest = std::min(smallest, k);
      largest = std::max(largest, k);
    }
    last_ = smallest;
    if (smallest == largest) {
      // Hand the vector over, no copy.
      std::swap(out, from);
      set_lowest_from(b + 1);
      return;
    }
    // Every item of bucket b differs from the new key only below bit b-1, so each one goes to a
    // lower bucket or is handed over; the bucket is emptied in one pass.
    std::size_t new_lowest = kBuckets;
    for (const Item& x : from) {
      const std::uint64_t k = key_of_(x);
      if (k == last_) {
        out.push_back(x);
      } else {
        const std::size_t to = bucket_of(k);
        buckets_[to].push_back(x);
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
  }

 private:
  static constexpr std::size_t kBuckets = 65;

  std::size_t push_to(const Item& item) {
    const std::size_t b = bucket_of(key_of_(item));
    assert(b > 0);
    buckets_[b].push_back(item);
    lowest_ = std::min(lowest_, b);
    return b;
  }
  [[nodiscard]] std::size_t bucket_of(std::uint64_t key) const noexcept {
    return key == last_ ? 0 : static_cast<std::size_t>(64 - std::countl_zero(key ^ last_));
  }
  void set_lowest_from(std::size_t b) {
    while (b < kBuckets - 1 && buckets_[b].empty()) {
      ++b;
    }
    lowest_ = b;
  }

  KeyOf key_of_;
  std::uint64_t last_ = 0;
  std::size_t lowest_ = 1;                           // No non-empty bucket below this one.
  std::array<std::vector<Item>, kBuckets> buckets_;  // buckets_[0] unused: key last() is the caller's.
};

}  // namespace gridlock::sim::detail
