#pragma once
// Event queue for windowed processing (docs/sim-model.md, "Windowed processing").
//
// Time is cut into windows of exactly o_s + L ps, the least time in which an event on
// one host can cause an event on another. Nothing done inside a window reaches another host
// before the next window, so within a window the hosts are independent: the queue serves a window
// host by host (ascending), each host's events in (time, stamp) order. With unsynchronised noise
// nearly every event has its own time, and the global (time, stamp) order visits hosts at random
// (cache misses on every host's state); host by host restores the sweep over per-host state that
// a lock-step collective gets for free.
//
// Stamps are LogGOPSim's global creation counter, exactly. Processed host by host, creation no
// longer follows that counter, so an event created inside the current window first gets a
// provisional stamp (top bit set, then the creation count within the window): larger than every
// final stamp, and ordered like the final stamps among events of one host, which is all the
// order within a host's run needs. When a window is used up, close_window() replays its events in
// LogGOPSim's global order (by time, then stamp; stamps of events created at the same instant
// become known as their creators are replayed), gives each created event its final stamp in that
// order, and rewrites the provisional stamps already queued for later windows. The engine does
// the same for stamps it keeps itself (parked groups), through final_stamp().
//
// Windows are kept in a radix heap on the window index (like EventQueue on the time). A window
// becomes current all at once and is sorted by host (LSD radix sort), then by (time, stamp) in
// each host's run; events a host creates for itself inside the current window go to a small heap
// merged with that run. Anything else landing in the current window (a zero-delay effect on
// another host: a rendezvous completing at its sender) sets failed(), and the engine reruns the
// schedule in global order.

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "radix_buckets.hpp"

namespace gridlock::sim::detail {

struct WindowEvent {
  std::uint64_t time;
  std::uint64_t ts;
  std::uint64_t payload;
  std::uint32_t at;  // The host that processes the event.
};

class WindowQueue {
 public:
  using Stamp = std::uint64_t;
  using Item = WindowEvent;
  static constexpr bool kWindowed = true;
  static constexpr Stamp kProvisional = Stamp{1} << 63U;

  // `lookahead_ps` >= 1: the least delay between an event and an event it causes on another host.
  WindowQueue(std::uint64_t lookahead_ps, std::uint32_t hosts)
      : width_(lookahead_ps),
        time_bits_(static_cast<unsigned>(std::bit_width(lookahead_ps - 1))),
        buckets_(WindowOf{width_}),
        host_bits_(hosts <= 1 ? 1U : static_cast<unsigned>(32 - std::countl_zero(hosts - 1))) {
    assert(lookahead_ps >= 1);
  }

  [[nodiscard]] static bool provisional(Stamp s) noexcept { return (s & kProvisional) != 0; }

  void set_next_ts(std::uint64_t ts) noexcept { next_final_ = ts; }

  // The engine processes the root operations of `host` at time 0, in global order.
  void enter_root(std::uint32_t host) noexcept { host_ = host; }
  // The roots are done: the events they queued for window 0 become the current window.
  void end_roots() {
    rooting_ = false;
    sort_window();
  }

  void push_new(std::uint64_t time, std::uint64_t payload, std::uint32_t at) {
    const Stamp ts = rooting_ ? next_final_++ : kProvisional | next_prov_++;
    push(Item{time, ts, payload, at});
  }
  void push_retry(std::uint64_t time, Stamp ts, std::uint64_t payload, std::uint32_t at) {
    push(Item{time, ts, payload, at});
  }

  // The event being processed changes the state of `host` at the current time.
  void require_local(std::uint32_t host) noexcept {
    if (host != host_) {
      failed_ = true;
    }
  }

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // The lookahead argument did not hold: rerun in global order.
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  // Every event of the current window has been served (the next pop opens the next window).
  [[nodiscard]] bool window_done() const noexcept { return local_.empty() && head_ == current_.size(); }

  // Precondition: !empty(); after window_done(), close_window() was called.
  Item pop() {
    assert(size_ > 0);
    --size_;
    Item e;
    if (!local_.empty() && (head_ == current_.size() || current_[head_].at != host_ ||
                            before(local_.front(), current_[head_]))) {
      std::pop_heap(local_.begin(), local_.end(), after);
      e = local_.back();
      local_.pop_back();
    } else {
      if (head_ == current_.size()) {
        advance();
      }
      e = current_[head_++];
    }
    end_record();
    records_.push_back(Record{e.time, e.ts, static_cast<std::uint32_t>(next_prov_), 0});
    host_ = e.at;
    return e;
  }

  // The window is used up: gives every event created in it its final stamp, in LogGOPSim's order,
  // and rewrites the copies queued for later windows. final_stamp() then maps the window's
  // provisional stamps until the next close.
  void close_window() {
    if (records_.empty()) {
      return;
    }
    end_record();
    final_.assign(next_prov_, kUnset);
    sort_records_by_time();
    for (std::size_t a = 0; a < records_.size();) {
      std::size_t b = a + 1;
      while (b < records_.size() && records_[b].time == records_[a].time) {
        ++b;
      }
      replay_instant(a, b);
      a = b;
    }
    for (const Slot slot : patch_) {
      Stamp& ts = buckets_.at(slot).ts;
      ts = final_stamp(ts);
    }
    patch_.clear();
    records_.clear();
    next_prov_ = 0;
  }

  [[nodiscard]] Stamp final_stamp(Stamp s) const noexcept {
    if (!provisional(s)) {
      return s;
    }
    assert((s & ~kProvisional) < final_.size() && final_[s & ~kProvisional] != kUnset);
    return final_[s & ~kProvisional];
  }

 private:
  static constexpr Stamp kUnset = ~Stamp{0};

  // An event served in the current window and the provisional stamps its processing handed out.
  struct Record {
    std::uint64_t time;
    Stamp ts;
    std::uint32_t prov_begin;
    std::uint32_t prov_end;
  };
  struct WindowOf {
    std::uint64_t width;
    std::uint64_t operator()(const Item& e) const noexcept { return e.time / width; }
  };
  using Buckets = RadixBuckets<Item, WindowOf>;
  using Slot = Buckets::Slot;

  // The last event served is done: keep its record only if it created events (only creators'
  // order decides stamps).
  void end_record() noexcept {
    if (records_.empty()) {
      return;
    }
    Record& last = records_.back();
    last.prov_end = static_cast<std::uint32_t>(next_prov_);
    if (last.prov_end == last.prov_begin) {
      records_.pop_back();
    }
  }

  // Order within one host's run of a window.
  [[nodiscard]] static bool before(const Item& a, const Item& b) noexcept {
    return a.time != b.time ? a.time < b.time : a.ts < b.ts;
  }
  [[nodiscard]] static bool after(const Item& a, const Item& b) noexcept { return before(b, a); }

  [[nodiscard]] std::uint64_t window_of(std::uint64_t time) const noexcept { return time / width_; }

  void push(const Item& e) {
    ++size_;
    const std::uint64_t w = window_of(e.time);
    assert(w >= buckets_.last());
    if (w == buckets_.last()) {
      if (rooting_) {
        current_.push_back(e);
        return;
      }
      // Only the host being processed may add to the current window (the lookahead argument).
      if (e.at != host_) {
        failed_ = true;
      }
      local_.push_back(e);
      std::push_heap(local_.begin(), local_.end(), after);
      return;
    }
    if (provisional(e.ts)) {
      patch_.push_back(buckets_.push_slot(e));
    } else {
      buckets_.push(e);
    }
  }

  // Replays records [a, b), all at one time, in LogGOPSim's order: by stamp, where the stamps of
  // events created at this very instant become known as their creators are replayed (and are
  // larger than every stamp known before).
  void replay_instant(std::size_t a, std::size_t b) {
    if (b - a == 1) {
      hand_out(records_[a]);
      return;
    }
    pending_.clear();
    for (std::size_t i = a; i < b; ++i) {
      pending_.push_back(static_cast<std::uint32_t>(i));
    }
    while (!pending_.empty()) {
      ready_.clear();
      std::size_t keep = 0;
      for (const std::uint32_t i : pending_) {
        if (known(records_[i].ts)) {
          ready_.push_back(i);
        } else {
          pending_[keep++] = i;
        }
      }
      pending_.resize(keep);
      assert(!ready_.empty());
      std::sort(ready_.begin(), ready_.end(), [this](std::uint32_t x, std::uint32_t y) {
        return final_stamp(records_[x].ts) < final_stamp(records_[y].ts);
      });
      for (const std::uint32_t i : ready_) {
        hand_out(records_[i]);
      }
    }
  }
  [[nodiscard]] bool known(Stamp s) const noexcept {
    return !provisional(s) || final_[s & ~kProvisional] != kUnset;
  }
  void hand_out(const Record& r) {
    for (std::uint32_t k = r.prov_begin; k < r.prov_end; ++k) {
      final_[k] = next_final_++;
    }
  }

  // Stable LSD radix sort of the records on their time within the window.
  void sort_records_by_time() {
    const std::size_t n = records_.size();
    if (n < 256 || time_bits_ > 32) {
      std::stable_sort(records_.begin(), records_.end(),
                       [](const Record& x, const Record& y) { return x.time < y.time; });
      return;
    }
    // Times in one window are less than its width past its start.
    const std::uint64_t start = buckets_.last() * width_;
    radix_sort(records_, record_scratch_, count_, time_bits_,
               [start](const Record& r) { return r.time - start; });
  }

  // Stable LSD radix sort of `v` on the low `bits` bits of key(element), at most 11 bits a pass.
  template <class T, class Key>
  static void radix_sort(std::vector<T>& v, std::vector<T>& scratch, std::vector<std::size_t>& count,
                         unsigned bits, Key key) {
    const unsigned passes = (bits + 10) / 11;
    if (passes == 0) {
      return;
    }
    const unsigned digit = (bits + passes - 1) / passes;
    const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
    scratch.resize(v.size());
    count.resize(std::size_t{1} << digit);
    for (unsigned p = 0; p < passes; ++p) {
      const unsigned shift = p * digit;
      std::fill(count.begin(), count.end(), 0);
      for (const T& x : v) {
        ++count[(key(x) >> shift) & mask];
      }
      std::size_t sum = 0;
      for (std::size_t& c : count) {
        const std::size_t here = c;
        c = sum;
        sum += here;
      }
      for (const T& x : v) {
        scratch[count[(key(x) >> shift) & mask]++] = x;
      }
      std::swap(v, scratch);
    }
  }

  // The current window is used up: the lowest queued window becomes current.
  void advance() {
    assert(records_.empty() && "close_window() before opening the next window");
    current_.clear();
    head_ = 0;
    buckets_.take_lowest(current_);
    sort_window();
  }

  // Sorts the current window by host, then by (time, stamp) within each host.
  void sort_window() {
    const std::size_t n = current_.size();
    if (n < 256) {
      std::sort(current_.begin(), current_.end(),
                [](const Item& a, const Item& b) { return a.at != b.at ? a.at < b.at : before(a, b); });
      return;
    }
    radix_sort(current_, scratch_, count_, host_bits_, [](const Item& e) { return std::uint64_t{e.at}; });
    // Each host has a handful of events in a window: insertion sort its run.
    for (std::size_t i = 1; i < n; ++i) {
      if (current_[i].at != current_[i - 1].at || !before(current_[i], current_[i - 1])) {
        continue;
      }
      const Item item = current_[i];
      std::size_t j = i;
      while (j > 0 && current_[j - 1].at == item.at && before(item, current_[j - 1])) {
        current_[j] = current_[j - 1];
        --j;
      }
      current_[j] = item;
    }
  }

  std::uint64_t width_;  // Of a window: the lookahead.
  unsigned time_bits_;   // Bits of a time's offset within its window.
  Buckets buckets_;      // Windows after the current one (buckets_.last()).
  unsigned host_bits_;
  bool rooting_ = true;
  bool failed_ = false;
  std::uint64_t next_final_ = 0;  // The next final stamp (LogGOPSim's counter).
  std::uint64_t next_prov_ = 0;   // The next provisional stamp of the current window.
  std::uint32_t host_ = 0;        // Host of the event being processed.
  std::uint64_t size_ = 0;
  std::vector<Item> current_;  // The current window, sorted by host then (time, stamp); from head_.
  std::size_t head_ = 0;
  std::vector<Item> local_;  // Events the current host added to the current window (min-heap).
  std::vector<Item> scratch_;
  std::vector<std::size_t> count_;
  std::vector<Record> records_;  // Events served in the current window, in service order.
  std::vector<Record> record_scratch_;
  std::vector<Stamp> final_;  // Final stamp of each provisional one of the last closed window.
  std::vector<Slot> patch_;   // Queued events of later windows holding a provisional stamp.
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> ready_;
};

}  // namespace gridlock::sim::detail
