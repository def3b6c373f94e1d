#include <algorithm>
#include <cmath>
#include <system_error>

#include <fmt/format.h>

#include "detail/capacity.hpp"
#include "detail/text.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/oracle/sources.hpp"

namespace gridlock::oracle {
namespace {

// A sysfs attribute holds one short line; anything longer is not an InfiniBand counter.
constexpr std::uintmax_t kMaxAttributeBytes = std::uintmax_t{64} << 10U;

// The text of a sysfs attribute through the checked input reader, so a FIFO (which would block
// the poll thread forever), a device such as /dev/zero or an oversized file in the tree is an
// error in `error`, not a hang or an unbounded read.
std::optional<std::string> read_text(const std::filesystem::path& path, std::string& error) {
  try {
    return read_input_file(path, "InfiniBand sysfs attribute", "check the sysfs tree", kMaxAttributeBytes);
  } catch (const Error& e) {
    error = e.what();
    return std::nullopt;
  }
}

}  // namespace

double parse_ib_rate_bytes_per_s(std::string_view text) noexcept {
  const auto fields = detail::split_fields(text);
  if (fields.size() < 2) {
    return 0;
  }
  const auto value = detail::to_double(fields[0]);
  if (!value || *value <= 0) {
    return 0;
  }
  if (fields[1] == "Gb/sec") {
    return *value * 1e9 / 8;
  }
  if (fields[1] == "Mb/sec") {
    return *value * 1e6 / 8;
  }
  return 0;
}

XmitWaitUnit XmitWaitUnit::parse(std::string_view text) {
  const auto fail = [&text]() -> XmitWaitUnit {
    throw InputError(
        fmt::format("InfiniBand port_xmit_wait unit '{}': expected bytes or nanoseconds per "
                    "increment, e.g. 8B (NVIDIA Quantum switches) or 4ns",
                    text));
  };
  const bool in_ns = text.ends_with("ns");
  const bool in_bytes = !in_ns && text.ends_with("B");
  if (!in_ns && !in_bytes) {
    return fail();
  }
  const auto value = detail::to_double(text.substr(0, text.size() - (in_ns ? 2 : 1)));
  if (!value || !std::isfinite(*value) || *value <= 0) {
    return fail();
  }
  XmitWaitUnit unit;
  unit.bytes = in_bytes ? *value : 0;
  unit.ns = in_ns ? *value : 0;
  return unit;
}

std::string XmitWaitUnit::to_string() const {
  return bytes > 0 ? fmt::format("{}B", bytes) : fmt::format("{}ns", ns);
}

double XmitWaitUnit::seconds(double increments, double rate_bytes_per_s) const noexcept {
  if (bytes > 0) {
    return rate_bytes_per_s > 0 ? increments * bytes / rate_bytes_per_s : std::nan("");
  }
  return increments * ns * 1e-9;
}

SysfsIbSource::SysfsIbSource(const topo::Topology& topology, topo::NodeId node, SysfsIbOptions options)
    : topology_(topology), node_(node), options_(std::move(options)) {
  (void)topology_.nodes().at(node_);
}

struct SysfsIbSource::PollSums {
  double xmit_bytes = 0;
  double rcv_bytes = 0;
  double wait_s = 0;
  int wait_ports = 0;  // Ports whose wait went into wait_s.
  double interval = 0;
  double rate = 0;
  // A port whose data counter is taken as reset leaves the link's bytes of this interval unknown,
  // and one whose wait counter is, the link's stall.
  bool xmit_skipped = false;
  bool rcv_skipped = false;
  bool wait_skipped = false;
};

void SysfsIbSource::poll(MetricStore& store, double now_s) {
  ++polls_;
  const auto base = options_.sys_root / "class" / "infiniband";
  std::error_code ec;
  std::vector<std::filesystem::path> ports;
  for (const auto& dev : std::filesystem::directory_iterator(base, ec)) {
    std::error_code ec2;
    for (const auto& port : std::filesystem::directory_iterator(dev.path() / "ports", ec2)) {
      ports.push_back(port.path());
    }
  }
  if (ec) {
    ++read_errors_;
    last_error_ = fmt::format("{}: {}", base.string(), ec.message());
    return;
  }
  std::sort(ports.begin(), ports.end());
  PollSums sums;
  for (const auto& port : ports) {
    poll_port(port, store, now_s, sums);
  }
  store_sums(store, now_s, sums);
}

void SysfsIbSource::poll_port(const std::filesystem::path& port, MetricStore& store, double now_s,
                              PollSums& sums) {
  auto& state = ports_
                    .try_emplace(port.string(), PortState{CounterTracker(options_.counter_bits),
                                                          CounterTracker(options_.counter_bits),
                                                          CounterTracker(options_.counter_bits)})
                    .first->second;
  double port_rate = 0;
  std::string error;
  if (const auto text = read_text(port / "rate", error)) {
    port_rate = parse_ib_rate_bytes_per_s(*text);
    sums.rate += port_rate;
  } else if (std::error_code exists_ec; std::filesystem::exists(port / "rate", exists_ec)) {
    // A port without a rate file is allowed (its bytes then have no capacity); one that cannot be read is
    // not.
    ++read_errors_;
    last_error_ = error;
  }
  add_data(port, "port_xmit_data", state.xmit, port_rate, store, now_s, sums, sums.xmit_bytes,
           sums.xmit_skipped);
  add_data(port, "port_rcv_data", state.rcv, port_rate, store, now_s, sums, sums.rcv_bytes, sums.rcv_skipped);
  add_wait(port, state.wait, port_rate, store, now_s, sums);
}

// The counter's increase over the last interval, if there is one; `reset` tells whether it went back.
std::optional<double> SysfsIbSource::read_counter(const std::filesystem::path& port, const char* name,
                                                  CounterTracker& tracker, MetricStore& store, double now_s,
                                                  PollSums& sums, bool& reset) {
  reset = false;
  std::string read_error;
  const auto text = read_text(port / "counters" / name, read_error);
  const auto value = text ? detail::to_u64(*text) : std::nullopt;
  if (!value) {
    ++read_errors_;
    last_error_ = text ? fmt::format("{}: not an integer", (port / "counters" / name).string()) : read_error;
    return std::nullopt;
  }
  const auto delta = tracker.update(now_s, *value);
  store.note_counter_event(delta.event);
  if (delta.event == CounterTracker::Event::kReset) {
    reset = true;
    ++counter_resets_;
    problem(fmt::format("{}: went back to {} (reset); interval skipped", (port / "counters" / name).string(),
                        *value));
  }
  if (delta.event != CounterTracker::Event::kDelta && delta.event != CounterTracker::Event::kWrap) {
    return std::nullopt;
  }
  sums.interval = delta.interval_s;
  return delta.delta;
}

// Bytes of a data counter's increase, checked against the port's rate (detail/capacity.hpp).
void SysfsIbSource::add_data(const std::filesystem::path& port, const char* name, CounterTracker& tracker,
                             double port_rate, MetricStore& store, double now_s, PollSums& sums, double& sum,
                             bool& skipped) {
  bool reset = false;
  const auto d = read_counter(port, name, tracker, store, now_s, sums, reset);
  if (!d) {
    skipped = skipped || reset;
    return;
  }
  const auto check = detail::check_capacity(*d * 4, sums.interval, port_rate);
  if (check.verdict == detail::Verdict::kRejected) {
    store.note_counter_event(CounterTracker::Event::kReset);
    ++counter_resets_;
    skipped = true;
    problem(
        fmt::format("{}: {} rose by {:.4g} bytes in {:.4g} s, {:.4g}% of the port's rate: taken as a "
                    "reset; interval skipped",
                    port.string(), name, *d * 4, sums.interval, check.percent));
    return;
  }
  if (check.verdict == detail::Verdict::kClamped) {
    ++clamped_values_;
    problem(fmt::format("{}: {} is {:.4g}% of the port's rate ({:.4g} B/s); stored as 100%", port.string(),
                        name, check.percent, port_rate));
  }
  sum += check.amount;
}

// The port's stall: port_xmit_wait's increase in seconds, checked against the interval.
void SysfsIbSource::add_wait(const std::filesystem::path& port, CounterTracker& tracker, double port_rate,
                             MetricStore& store, double now_s, PollSums& sums) {
  bool reset = false;
  const auto d = read_counter(port, "port_xmit_wait", tracker, store, now_s, sums, reset);
  sums.wait_skipped = sums.wait_skipped || reset;
  if (!d) {
    return;
  }
  const double seconds = options_.xmit_wait.seconds(*d, port_rate);
  // A port cannot wait for longer than the interval (detail/capacity.hpp), as for data.
  const auto check = detail::check_stall(seconds, sums.interval);
  if (std::isnan(seconds)) {
    ++read_errors_;
    last_error_ = fmt::format("{}: port_xmit_wait counts {} per increment, but the port's rate is unknown",
                              port.string(), options_.xmit_wait.to_string());
  } else if (check.verdict == detail::Verdict::kRejected) {
    store.note_counter_event(CounterTracker::Event::kReset);
    ++counter_resets_;
    sums.wait_skipped = true;
    problem(
        fmt::format("{}: port_xmit_wait rose by {:.4g} s of stall in {:.4g} s, {:.4g}% of the interval: "
                    "taken as a reset; interval skipped (is --ib-xmit-wait-unit {} right?)",
                    port.string(), seconds, sums.interval, check.percent, options_.xmit_wait.to_string()));
  } else {
    if (check.verdict == detail::Verdict::kClamped) {
      ++clamped_values_;
      problem(fmt::format("{}: port_xmit_wait is {:.4g}% of the interval stalled; stored as 100%",
                          port.string(), check.percent));
    }
    sums.wait_s += check.amount;
    ++sums.wait_ports;
  }
}

void SysfsIbSource::store_sums(MetricStore& store, double now_s, const PollSums& sums) {
  const auto inject = topology_.injection_link(node_);
  const auto eject = topology_.ejection_link(node_);
  if (sums.rate > 0) {
    rate_bytes_per_s_ = sums.rate;
    store.set_capacity(inject, sums.rate);
    store.set_capacity(eject, sums.rate);
  }
  if (sums.interval > 0) {
    // The node's link is its ports together: as its bytes are summed against their summed rates,
    // its stall is the ports' mean (two ports 60% stalled each are 60%, not 120% capped at 100%).
    const double stall_s = sums.wait_ports == 0 ? 0 : sums.wait_s / sums.wait_ports;
    if (sums.xmit_skipped && !sums.wait_skipped) {
      store.add_stall(inject, now_s, sums.interval, stall_s);
    } else if (!sums.xmit_skipped && sums.wait_skipped) {
      store.add_bytes(inject, now_s, sums.interval, sums.xmit_bytes);
    } else if (!sums.xmit_skipped) {
      store.add_interval(inject, now_s, sums.interval, sums.xmit_bytes, stall_s);
    }
    if (!sums.rcv_skipped) {
      store.add_bytes(eject, now_s, sums.interval, sums.rcv_bytes);
    }
  }
}

void SysfsIbSource::problem(std::string message) { detail::note_problem(problems_, std::move(message)); }

SourceStatus SysfsIbSource::status() const {
  return {"sysfs_ib",
          {{"sys_root", options_.sys_root.string()},
           {"node", topology_.nodes()[node_].name},
           {"ports", std::uint64_t{ports_.size()}},
           {"polls", polls_},
           {"read_errors", read_errors_},
           {"last_error", last_error_},
           {"counter_resets", counter_resets_},
           {"clamped_values", clamped_values_},
           {"recent_problems", std::vector<std::string>(problems_.begin(), problems_.end())},
           {"rate_bytes_per_s", rate_bytes_per_s_},
           {"xmit_wait_unit", options_.xmit_wait.to_string()}}};
}

}  // namespace gridlock::oracle
