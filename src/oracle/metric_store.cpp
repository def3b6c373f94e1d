#include "gridlock/oracle/metric_store.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

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

MetricStore::MetricStore(const topo::Topology& topology, double retention_s)
    : link_count_(topology.links().size()), retention_s_(retention_s) {
  if (!(retention_s > 0) || !std::isfinite(retention_s)) {
    // With no history kept every interval would be dropped as soon as it is added.
    throw InputError(fmt::format(
        "metric store retention {} s: must be a positive number of seconds, e.g. 600", retention_s));
  }
  capacity_.reserve(link_count_);
  for (const auto& link : topology.links()) {
    capacity_.push_back(link.capacity_bytes_per_s);
  }
  intervals_.resize(link_count_);
}

void MetricStore::add_locked(topo::LinkId link, double time_s, double bytes_interval_s, double bytes,
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
  const std::unique_lock lock(mutex_);
  add_locked(link, time_s, interval_s, bytes, interval_s, stall_s);
}

void MetricStore::add_bytes(topo::LinkId link, double time_s, double interval_s, double bytes) {
  const std::unique_lock lock(mutex_);
  if (!(interval_s > 0)) {
    ++stats_.rejected;
    return;
  }
  add_locked(link, time_s, interval_s, bytes, 0, 0);
}

void MetricStore::add_stall(topo::LinkId link, double time_s, double interval_s, double stall_s) {
  const std::unique_lock lock(mutex_);
  if (!(interval_s > 0)) {
    ++stats_.rejected;
    return;
  }
  add_locked(link, time_s, 0, 0, interval_s, stall_s);
}

void MetricStore::add_rates(topo::LinkId link, double time_s, double interval_s, double bytes_per_s,
                            double stall_fraction) {
  add_interval(link, time_s, interval_s, bytes_per_s * interval_s, stall_fraction * interval_s);
}

void MetricStore::note_counter_event(CounterTracker::Event event) {
  const std::unique_lock lock(mutex_);
  if (event == CounterTracker::Event::kWrap) {
    ++stats_.counter_wraps;
  } else if (event == CounterTracker::Event::kReset) {
    ++stats_.counter_resets;
  }
}

void MetricStore::set_capacity(topo::LinkId link, double capacity_bytes_per_s) {
  const std::unique_lock lock(mutex_);
  if (link < link_count_ && capacity_bytes_per_s > 0 && std::isfinite(capacity_bytes_per_s) &&
      capacity_[link] != capacity_bytes_per_s) {
    capacity_[link] = capacity_bytes_per_s;
    ++version_;
  }
}

double MetricStore::capacity(topo::LinkId link) const {
  const std::shared_lock lock(mutex_);
  return capacity_.at(link);
}

Snapshot MetricStore::snapshot(double window_s) const {
  const std::shared_lock lock(mutex_);
  Snapshot snap;
  snap.links.resize(link_count_);
  snap.now_s = newest_s_;
  snap.window_s = window_s;
  snap.version = version_;
  const double start = newest_s_ - window_s;
  for (std::size_t i = 0; i < link_count_; ++i) {
    const auto& list = intervals_[i];
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
      m.used_bw_pct = 100 * m.bytes_per_s / capacity_[i];
    }
    if (stall_time > 0) {
      m.has_data = true;
      m.stall_pct = 100 * stall / stall_time;
    }
  }
  return snap;
}

std::uint64_t MetricStore::version() const {
  const std::shared_lock lock(mutex_);
  return version_;
}

StoreStats MetricStore::stats() const {
  const std::shared_lock lock(mutex_);
  return stats_;
}

}  // namespace gridlock::oracle
