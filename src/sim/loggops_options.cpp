#include "gridlock/sim/loggops_options.hpp"

#include "gridlock/core/units.hpp"
#include "gridlock/sim/replicas.hpp"

namespace gridlock::sim {

LogGOPSParams default_loggops() {
  LogGOPSParams p;
  p.latency = SimTime{2'500'000};
  p.overhead_send = SimTime{1'500'000};
  p.overhead_recv = SimTime{1'500'000};
  p.gap = SimTime{1'000'000};
  p.gap_per_byte = SimTime{6'000};
  p.overhead_per_byte = SimTime{0};
  p.eager_threshold_bytes = 65535;
  p.rendezvous_handshake = false;
  return p;
}

LogGOPSChoice loggops_from_text(const LogGOPSText& text, const LogGOPSParams& base) {
  const auto time = [](const std::optional<std::string>& value, SimTime fallback, std::string_view what) {
    return value ? SimTime{parse_time_ps(*value, what)} : fallback;
  };
  LogGOPSChoice c;
  LogGOPSParams& p = c.params;
  p = base;
  p.latency = time(text.latency, base.latency, "-L (latency)");
  if (text.overhead) {
    const SimTime o{parse_time_ps(*text.overhead, "-o (overhead)")};
    p.overhead_send = o;
    p.overhead_recv = o;
  }
  p.overhead_send = time(text.overhead_send, p.overhead_send, "--o-send");
  p.overhead_recv = time(text.overhead_recv, p.overhead_recv, "--o-recv");
  p.gap = time(text.gap, base.gap, "-g (gap)");
  p.gap_per_byte = time(text.gap_per_byte, base.gap_per_byte, "-G (gap per byte)");
  p.overhead_per_byte = time(text.overhead_per_byte, base.overhead_per_byte, "-O (overhead per byte)");
  if (text.eager_threshold_bytes) {
    p.eager_threshold_bytes = *text.eager_threshold_bytes;
  }
  p.rendezvous_handshake = base.rendezvous_handshake || text.rendezvous_handshake;
  p = scale_network(p, text.network_scale);
  c.network_scale = text.network_scale;
  if (text.noise_rule) {
    c.noise_rule = parse_noise_rule(*text.noise_rule, "--noise-rule");
  }
  return c;
}

}  // namespace gridlock::sim
