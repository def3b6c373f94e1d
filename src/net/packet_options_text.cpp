#include "gridlock/net/packet_options_text.hpp"

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/net/network.hpp"

namespace gridlock::net {
namespace {

/// A byte size option within [1, most]; InputError naming the option and the bound otherwise.
std::uint32_t bounded_bytes(const std::string& text, const char* option, std::uint64_t most) {
  const std::uint64_t value = parse_byte_size(text, option);
  if (value == 0 || value > most) {
    throw InputError(fmt::format("{} {}: give 1 B to {} (docs/limits.md)", option, text, format_bytes(most)));
  }
  // Fits: most is below 2^32.
  return static_cast<std::uint32_t>(value);
}

/// A latency option in ps, at most kMaxHopLatencyPs; InputError naming the option otherwise.
std::uint64_t bounded_latency_ps(const std::string& text, const char* option) {
  const std::uint64_t ps = parse_time_ps(text, option);
  if (ps > kMaxHopLatencyPs) {
    throw InputError(fmt::format(
        "{} {}: at most 1 s per link (routers and cables take about 100ns; docs/limits.md)", option, text));
  }
  return ps;
}

}  // namespace

PacketOptions packet_options_from(const PacketOptionsText& text) {
  PacketOptions p;
  p.routing = parse_routing(text.routing);
  p.congestion_control = text.congestion_control;
  p.packet_bytes = bounded_bytes(text.packet_size, "--packet-size", kMaxPacketBytes);
  p.buffer_bytes = bounded_bytes(text.buffer, "--buffer", kMaxBufferBytes);
  if (text.vcs == 0 || text.vcs > 8) {
    throw InputError(fmt::format("--vcs {}: give 1 to 8 virtual channels", text.vcs));
  }
  p.vcs = text.vcs;
  p.terminal_latency_ps = bounded_latency_ps(text.terminal_latency, "--terminal-latency");
  p.global_extra_latency_ps = bounded_latency_ps(text.global_extra_latency, "--global-extra-latency");
  p.credit_latency_ps = bounded_latency_ps(text.credit_latency, "--credit-latency");
  p.vc_turnaround_ps = bounded_latency_ps(text.vc_turnaround, "--vc-turnaround");
  if (!text.ugal_rule.empty()) {
    p.ugal_rule = parse_ugal_rule(text.ugal_rule);
  }
  p.ugal_threshold_bytes = parse_ugal_threshold(text.ugal_threshold);
  return p;
}

std::uint64_t parse_ugal_threshold(const std::string& text) {
  const std::uint64_t threshold = parse_byte_size(text, "--ugal-threshold");
  if (threshold > kMaxBufferBytes) {
    throw InputError(fmt::format("--ugal-threshold {}: give at most {} (a buffer's most; docs/limits.md)",
                                 text, format_bytes(kMaxBufferBytes)));
  }
  return threshold;
}

void check_ugal_options(const PacketOptions& merged, bool rule_given, bool threshold_given) {
  if ((rule_given || threshold_given) && merged.routing != Routing::kUgal) {
    throw InputError(fmt::format("{} applies to ugal routing, not {}: give --routing ugal or drop it",
                                 rule_given ? fmt::format("--ugal-rule {}", to_string(merged.ugal_rule))
                                            : std::string("--ugal-threshold"),
                                 to_string(merged.routing)));
  }
  if (threshold_given && merged.ugal_rule != UgalRule::kBookSim) {
    throw InputError(
        fmt::format("--ugal-threshold {} B: only --ugal-rule booksim takes a threshold, and the rule is hops "
                    "({}): give --ugal-rule booksim or drop the threshold",
                    merged.ugal_threshold_bytes, rule_given ? "--ugal-rule" : "the --system preset's"));
  }
}

std::uint64_t parse_hop_latency_ps(const std::string& text) {
  const std::uint64_t ps = parse_time_ps(text, "--hop-latency");
  if (ps > kMaxHopLatencyPs) {
    throw InputError(fmt::format(
        "--hop-latency {}: at most 1 s per hop (routers take about 100ns; docs/limits.md)", text));
  }
  return ps;
}

}  // namespace gridlock::net
