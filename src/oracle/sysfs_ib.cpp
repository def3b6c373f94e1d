#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "detail/text.hpp"
#include "gridlock/oracle/sources.hpp"

namespace gridlock::oracle {
namespace {

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
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

SysfsIbSource::SysfsIbSource(const topo::Topology& topology, topo::NodeId node, SysfsIbOptions options)
    : topology_(topology), node_(node), options_(std::move(options)) {
  (void)topology_.nodes().at(node_);
}

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
  double xmit_bytes = 0;
  double rcv_bytes = 0;
  double wait_s = 0;
  double interval = 0;
  double rate = 0;
  for (const auto& port : ports) {
    auto& state = ports_
                      .try_emplace(port.string(), PortState{CounterTracker(options_.counter_bits),
                                                            CounterTracker(options_.counter_bits),
                                                            CounterTracker(options_.counter_bits)})
                      .first->second;
    if (const auto text = read_text(port / "rate")) {
      rate += parse_ib_rate_bytes_per_s(*text);
    }
    const auto read_counter = [&](const char* name, CounterTracker& tracker, double scale, double& sum) {
      const auto text = read_text(port / "counters" / name);
      const auto value = text ? detail::to_u64(*text) : std::nullopt;
      if (!value) {
        ++read_errors_;
        last_error_ = fmt::format("{}: missing or not an integer", (port / "counters" / name).string());
        return;
      }
      const auto delta = tracker.update(now_s, *value);
      store.note_counter_event(delta.event);
      if (delta.event == CounterTracker::Event::kDelta || delta.event == CounterTracker::Event::kWrap) {
        sum += delta.delta * scale;
        interval = delta.interval_s;
      }
    };
    read_counter("port_xmit_data", state.xmit, 4.0, xmit_bytes);
    read_counter("port_rcv_data", state.rcv, 4.0, rcv_bytes);
    read_counter("port_xmit_wait", state.wait, options_.wait_tick_ns * 1e-9, wait_s);
  }
  const auto inject = topology_.injection_link(node_);
  const auto eject = topology_.ejection_link(node_);
  if (rate > 0) {
    rate_bytes_per_s_ = rate;
    store.set_capacity(inject, rate);
    store.set_capacity(eject, rate);
  }
  if (interval > 0) {
    store.add_interval(inject, now_s, interval, xmit_bytes, std::min(wait_s, interval));
    store.add_bytes(eject, now_s, interval, rcv_bytes);
  }
}

Json SysfsIbSource::status() const {
  return {{"kind", "sysfs_ib"},
          {"sys_root", options_.sys_root.string()},
          {"node", topology_.nodes()[node_].name},
          {"ports", ports_.size()},
          {"polls", polls_},
          {"read_errors", read_errors_},
          {"last_error", last_error_},
          {"rate_bytes_per_s", rate_bytes_per_s_}};
}

}  // namespace gridlock::oracle
