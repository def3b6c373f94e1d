#pragma once
/// @file
/// Per-link counters over time and the metrics derived from them over a window.
///
/// Every source turns its raw data into *intervals*: "during the `interval_s` seconds ending at
/// `time_s`, this link carried `bytes` and was stalled for `stall_s` seconds". The store keeps the
/// intervals of the last `retention_s` seconds and derives, over a window ending at the newest
/// sample in the store (not the wall clock, so results are reproducible):
/// - bytes/s = sum(bytes) / sum(interval_s),
/// - used bandwidth % = 100 * bytes/s / link capacity,
/// - stall % = 100 * sum(stall_s) / sum(interval_s).
/// A link without data in the window reports zeros and `has_data = false`.
///
/// Thread safety: all member functions may be called concurrently.
#include <cstdint>
#include <memory>
#include <vector>

#include "gridlock/topo/topology.hpp"

namespace gridlock::oracle {

/// Derived metrics of one link over a window.
struct LinkMetrics {
  double bytes_per_s = 0;  ///< Mean data rate over the window.
  double used_bw_pct = 0;  ///< bytes_per_s as a percentage of the link capacity.
  double stall_pct = 0;    ///< Percentage of the window the link was stalled.
  bool has_data = false;   ///< Whether any interval fell in the window.
};

/// Metrics of every link at one moment, indexed by LinkId.
struct Snapshot {
  std::vector<LinkMetrics> links;  ///< One entry per link.
  double now_s = 0;                ///< Time of the newest sample in the store.
  double window_s = 0;             ///< Window the metrics were averaged over.
  std::uint64_t version = 0;       ///< Store version the snapshot was computed from.
};

/// A cumulative hardware counter that may wrap around or be reset; turns readings into deltas.
class CounterTracker {
 public:
  /// What happened to a reading.
  enum class Event : std::uint8_t {
    kFirst,       ///< First reading: no delta yet.
    kDelta,       ///< A normal increase (or no change).
    kWrap,        ///< The counter wrapped around its width; the delta accounts for it.
    kReset,       ///< The counter went back (reset or restart); this interval is discarded.
    kOutOfOrder,  ///< The time did not advance; the reading is ignored.
  };
  /// Result of one reading.
  struct Delta {
    Event event = Event::kFirst;  ///< Classification.
    double delta = 0;             ///< Counter increase (kDelta, kWrap).
    double interval_s = 0;        ///< Time since the previous reading (kDelta, kWrap).
  };
  /// `counter_bits` is the counter width (64 for modern counters, 32 for legacy ones).
  explicit CounterTracker(unsigned counter_bits = 64) noexcept : bits_(counter_bits) {}
  /// Records a reading at `time_s`.
  Delta update(double time_s, std::uint64_t value) noexcept;

 private:
  unsigned bits_;
  bool has_ = false;
  double time_s_ = 0;
  std::uint64_t value_ = 0;
};

/// Counts of what the store accepted and rejected.
struct StoreStats {
  std::uint64_t intervals = 0;       ///< Intervals stored.
  std::uint64_t rejected = 0;        ///< Intervals with an invalid link, time or value.
  std::uint64_t counter_wraps = 0;   ///< Wrap-arounds reported by sources.
  std::uint64_t counter_resets = 0;  ///< Resets reported by sources.
};

/// Thread-safe store of per-link intervals.
class MetricStore {
 public:
  /// A store for the links of `topology` (capacities are copied), keeping `retention_s` seconds;
  /// throws InputError unless `retention_s` is positive and finite.
  explicit MetricStore(const topo::Topology& topology, double retention_s = 600);

  /// Adds one interval. Invalid input (unknown link, negative or non-finite values, zero interval,
  /// a time before the link's newest interval) is counted in StoreStats::rejected and ignored.
  /// An interval ending at the same time as the link's newest one is merged into it (bytes and
  /// stall time add up): several columns or ports reporting on one link at one time.
  void add_interval(topo::LinkId link, double time_s, double interval_s, double bytes, double stall_s);
  /// Adds only the bytes of an interval (the link's stall time is not known from this reading).
  void add_bytes(topo::LinkId link, double time_s, double interval_s, double bytes);
  /// Adds only the stalled time of an interval.
  void add_stall(topo::LinkId link, double time_s, double interval_s, double stall_s);
  /// Adds an interval given as rates: `bytes_per_s` and the stalled fraction of time (0..1).
  void add_rates(topo::LinkId link, double time_s, double interval_s, double bytes_per_s,
                 double stall_fraction);
  /// Records counter events reported by a source (for the statistics only).
  void note_counter_event(CounterTracker::Event event);
  /// Replaces a link's capacity (e.g. the InfiniBand port rate read from sysfs).
  void set_capacity(topo::LinkId link, double capacity_bytes_per_s);
  /// Capacity of a link in bytes/s.
  [[nodiscard]] double capacity(topo::LinkId link) const;

  /// Metrics of every link over the `window_s` seconds ending at the newest sample;
  /// `window_s <= 0` means the newest interval of each link only.
  [[nodiscard]] Snapshot snapshot(double window_s) const;
  /// Incremented on every change; equal versions mean equal snapshots.
  [[nodiscard]] std::uint64_t version() const;
  /// Statistics so far.
  [[nodiscard]] StoreStats stats() const;
  /// Number of links.
  [[nodiscard]] std::size_t link_count() const noexcept;

  /// Releases the store.
  ~MetricStore();
  MetricStore(const MetricStore&) = delete;             ///< Not copyable (sources hold references).
  MetricStore& operator=(const MetricStore&) = delete;  ///< Not copyable.
  MetricStore(MetricStore&&) = delete;                  ///< Not movable (sources hold references).
  MetricStore& operator=(MetricStore&&) = delete;       ///< Not movable.

 private:
  // The intervals, the lock and the counters live in the .cpp: they are not part of the API.
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gridlock::oracle
