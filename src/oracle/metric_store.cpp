#include "gridlock/oracle/metric_store.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <shared_mutex>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::oracle {

CounterTracker::Delta CounterTracker::update(double time_s, std::uint64_t value) noexcept {
  Delta out;
  if (!has_) {
    has_ = true;
    time_s_ = time_s;
    value_ = value;
    out.event = Event::kFirst;
    return out;
  }
  if (!(time_s > time_s_)) {
    out.event = Event::kOutOfOrder;
    return out;
  }
  out.interval_s = time_s - time_s_;
  if (value >= value_) {
    out.event = Event::kDelta;
    out.delta = static_cast<double>(value - value_);
  } else if (bits_ < 64 && value_ >= (std::uint64_t{1} << (bits_ - 1))) {
    // A narrow counter near the top of its range went back: it wrapped.
    const std::uint64_t range = std::uint64_t{1} << bits_;
    out.event = Event::kWrap;
    out.delta = static_cast<double>(range - value_ + value);
  } else if (bits_ == 64 && value_ >= (std::uint64_t{1} << 63)) {
    out.event = Event::kWrap;
    out.delta = static_cast<double>(std::numeric_limits<std::uint64_t>::max() - value_) +
                static_cast<double>(value) + 1;
  } else {
    out.event = Event::kReset;
  }
  time_s_ = time_s;
  value_ = value;
  return out;
}

struct MetricStore::Impl {
  struct Interval {
    double time_s;
    double bytes;
    double bytes_time_s;  // seconds the bytes were counted over (0: no byte data)
    double stall_s;
    double stall_time_s;  // seconds the stall time was counted over (0: no stall data)
  };
  // Adds one interval; the caller holds the unique lock.
  void add_locked(topo::LinkId link, double time_s, double bytes_interval_s, double bytes,
                  double stall_interval_s, double stall_s);

  mutable std::shared_mutex mutex_;
  std::size_t link_count_ = 0;
  double retention_s_ = 0;
  std::vector<double> capacity_;
  std::vector<std::deque<Interval>> intervals_;
  double newest_s_ = 0;
  bool any_ = false;
  std::uint64_t version_ = 0;
  StoreStats stats_;
};

MetricStore::MetricStore(const topo::Topology& topology, double retention_s)
    : impl_(std::make_unique<Impl>()) {
  impl_->link_count_ = topology.links().size();
  impl_->retention_s_ = retention_s;
  if (!(retention_s > 0) || !std::isfinite(retention_s)) {
    // With no history kept every interval would be dropped as soon as it is added.
    throw InputError(fmt::format(
        "metric store retention {} s: must be a positive number of seconds, e.g. 600", retention_s));
  }
  impl_->capacity_.reserve(impl_->link_count_);
  for (const auto& link : topology.links()) {
    impl_->capacity_.push_back(link.capacity_bytes_per_s);
  }
  impl_->intervals_.resize(impl_->link_count_);
}

void MetricStore::Impl::add_locked(topo::LinkId link, double time_s, double bytes_interval_s, double bytes,
                                   double stall_interval_s, double stall_s) {
  const auto bad = [](double v) { return !std::isfinite(v) || v < 0; };
  if (link >= link_count_ || !std::isfinite(time_s) || bad(bytes_interval_s) || bad(bytes) ||
      bad(stall_interval_s) || bad(stall_s) || !(bytes_interval_s > 0 || stall_interval_s > 0)) {
    ++stats_.rejected;
    return;
  }
  auto& list = intervals_[link];
  if (!list.empty() && time_s < list.back().time_s) {
    ++stats_.rejected;
    return;
  }
  if (!list.empty() && list.back().time_s == time_s) {
    auto& last = list.back();
    last.bytes += bytes;
    last.bytes_time_s = std::max(last.bytes_time_s, bytes_interval_s);
    last.stall_s += stall_s;
    last.stall_time_s = std::max(last.stall_time_s, stall_interval_s);
  } else {
    list.push_back(Interval{time_s, bytes, bytes_interval_s, stall_s, stall_interval_s});
  }
  if (!any_ || time_s > newest_s_) {
    newest_s_ = time_s;
    any_ = true;
  }
  while (!list.empty() && list.front().time_s < newest_s_ - retention_s_) {
    list.pop_front();
  }
  ++stats_.intervals;
  ++version_;
}

void MetricStore::add_interval(topo::LinkId link, double time_s, double interval_s, double bytes,
                               double stall_s) {
  const std::unique_lock lock(impl_->mutex_);
  impl_->add_locked(link, time_s, interval_s, bytes, interval_s, stall_s);
}

void MetricStore::add_bytes(topo::LinkId link, double time_s, double interval_s, double bytes) {
  const std::unique_lock lock(impl_->mutex_);
  if (!(interval_s > 0)) {
    ++impl_->stats_.rejected;
    return;
  }
  impl_->add_locked(link, time_s, interval_s, bytes, 0, 0);
}

void MetricStore::add_stall(topo::LinkId link, double time_s, double interval_s, double stall_s) {
  const std::unique_lock lock(impl_->mutex_);
  if (!(interval_s > 0)) {
    ++impl_->stats_.rejected;
    return;
  }
  impl_->add_locked(link, time_s, 0, 0, interval_s, stall_s);
}

void MetricStore::add_rates(topo::LinkId link, double time_s, double interval_s, double bytes_per_s,
                            double stall_fraction) {
  add_interval(link, time_s, interval_s, bytes_per_s * interval_s, stall_fraction * interval_s);
}

void MetricStore::note_counter_event(CounterTracker::Event event) {
  const std::unique_lock lock(impl_->mutex_);
  if (event == CounterTracker::Event::kWrap) {
    ++impl_->stats_.counter_wraps;
  } else if (event == CounterTracker::Event::kReset) {
    ++impl_->stats_.counter_resets;
  }
}

void MetricStore::set_capacity(topo::LinkId link, double capacity_bytes_per_s) {
  const std::unique_lock lock(impl_->mutex_);
  if (link < impl_->link_count_ && capacity_bytes_per_s > 0 && std::isfinite(capacity_bytes_per_s) &&
      impl_->capacity_[link] != capacity_bytes_per_s) {
    impl_->capacity_[link] = capacity_bytes_per_s;
    ++impl_->version_;
  }
}

double MetricStore::capacity(topo::LinkId link) const {
  const std::shared_lock lock(impl_->mutex_);
  return impl_->capacity_.at(link);
}

Snapshot MetricStore::snapshot(double window_s) const {
  const std::shared_lock lock(impl_->mutex_);
  Snapshot snap;
  snap.links.resize(impl_->link_count_);
  snap.now_s = impl_->newest_s_;
  snap.window_s = window_s;
  snap.version = impl_->version_;
  const double start = impl_->newest_s_ - window_s;
  for (std::size_t i = 0; i < impl_->link_count_; ++i) {
    const auto& list = impl_->intervals_[i];
    if (list.empty()) {
      continue;
    }
    double bytes = 0;
    double bytes_time = 0;
    double stall = 0;
    double stall_time = 0;
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (window_s > 0 ? !(it->time_s > start) : (bytes_time > 0 || stall_time > 0)) {
        break;
      }
      bytes += it->bytes;
      bytes_time += it->bytes_time_s;
      stall += it->stall_s;
      stall_time += it->stall_time_s;
    }
    auto& m = snap.links[i];
    if (bytes_time > 0) {
      m.has_data = true;
      m.bytes_per_s = bytes / bytes_time;
      m.used_bw_pct = 100 * m.bytes_per_s / impl_->capacity_[i];
    }
    if (stall_time > 0) {
      m.has_data = true;
      m.stall_pct = 100 * stall / stall_time;
    }
  }
  return snap;
}

std::uint64_t MetricStore::version() const {
  const std::shared_lock lock(impl_->mutex_);
  return impl_->version_;
}

StoreStats MetricStore::stats() const {
  const std::shared_lock lock(impl_->mutex_);
  return impl_->stats_;
}

std::size_t MetricStore::link_count() const noexcept { return impl_->link_count_; }

MetricStore::~MetricStore() = default;

}  // namespace gridlock::oracle
