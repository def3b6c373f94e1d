#pragma once
// The packet model's options as the network commands take them (`gridlock predict gpcnet`,
// `predict mapping`, `predict traffic`): added here once, converted and bounded here once; the
// model's own checks (a buffer smaller than a packet, too few virtual channels for the routing)
// stay gridlock::net::validate()'s.

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/net/packet_model.hpp"

namespace gridlock::cli {

using net::kMaxBufferBytes;
using net::kMaxHopLatencyPs;
using net::kMaxPacketBytes;

/// The packet model's options as text.
struct PacketOptionsText {
  std::string routing = "minimal";           ///< --routing.
  std::string packet_size = "2KiB";          ///< --packet-size.
  std::string buffer = "32KiB";              ///< --buffer.
  std::uint32_t vcs = 3;                     ///< --vcs.
  std::string hop_latency = "100ns";         ///< --hop-latency.
  bool congestion_control = false;           ///< --congestion-control.
  std::string terminal_latency = "0ns";      ///< --terminal-latency.
  std::string global_extra_latency = "0ns";  ///< --global-extra-latency.
  std::string credit_latency = "0ns";        ///< --credit-latency.
  std::string vc_turnaround = "0ns";         ///< --vc-turnaround.
  std::string ugal_rule = "hops";            ///< --ugal-rule.
  std::string ugal_threshold = "0B";         ///< --ugal-threshold.
};

/// Adds --routing, --packet-size, --buffer, --vcs (when `with_vcs`), --hop-latency and, when
/// `with_congestion_control`, --congestion-control to `cmd`.
inline void add_packet_model_options(CLI::App& cmd, PacketOptionsText& t, bool with_vcs,
                                     bool with_congestion_control) {
  cmd.add_option("--hop-latency", t.hop_latency, "Latency of each router-to-router hop")
      ->capture_default_str();
  cmd.add_option("--routing", t.routing, "Packet model: minimal, valiant or ugal (dragonfly)")
      ->capture_default_str();
  if (with_congestion_control) {
    cmd.add_flag("--congestion-control,!--no-congestion-control", t.congestion_control,
                 "Packet model: endpoint congestion control (docs/network-models.md); --no-... turns a "
                 "--system preset's off");
  }
  cmd.add_option("--packet-size", t.packet_size, "Packet model: payload bytes per packet")
      ->capture_default_str();
  cmd.add_option("--buffer", t.buffer, "Packet model: buffer per input port and virtual channel")
      ->capture_default_str();
  if (with_vcs) {
    cmd.add_option("--vcs", t.vcs, "Packet model: virtual channels per link, 1 to 8")->capture_default_str();
  }
  cmd.add_option("--terminal-latency", t.terminal_latency,
                 "Packet model: latency of each injection and ejection link (docs/network-models.md)")
      ->capture_default_str();
  cmd.add_option("--global-extra-latency", t.global_extra_latency,
                 "Packet model: latency a dragonfly global link adds to --hop-latency")
      ->capture_default_str();
  cmd.add_option("--credit-latency", t.credit_latency,
                 "Packet model: latency of a credit's way back over a link (flow control)")
      ->capture_default_str();
  cmd.add_option("--vc-turnaround", t.vc_turnaround,
                 "Packet model: time a router's output channel rests after a packet's tail (allocation)")
      ->capture_default_str();
  cmd.add_option("--ugal-rule", t.ugal_rule, "Packet model: UGAL's comparison, hops or booksim")
      ->capture_default_str();
  cmd.add_option("--ugal-threshold", t.ugal_threshold,
                 "Packet model: --ugal-rule booksim's bias to the minimal path, in buffered bytes")
      ->capture_default_str();
}

/// A byte size option within [1, most]; InputError naming the option and the bound otherwise.
inline std::uint32_t bounded_bytes(const std::string& text, const char* option, std::uint64_t most) {
  const std::uint64_t value = parse_byte_size(text, option);
  if (value == 0 || value > most) {
    throw InputError(fmt::format("{} {}: give 1 B to {} (docs/limits.md)", option, text, format_bytes(most)));
  }
  // Fits: most is below 2^32.
  return static_cast<std::uint32_t>(value);
}

/// A latency option in ps, at most kMaxHopLatencyPs; InputError naming the option otherwise.
inline std::uint64_t bounded_latency_ps(const std::string& text, const char* option) {
  const std::uint64_t ps = parse_time_ps(text, option);
  if (ps > kMaxHopLatencyPs) {
    throw InputError(fmt::format(
        "{} {}: at most 1 s per link (routers and cables take about 100ns; docs/limits.md)", option, text));
  }
  return ps;
}

/// The packet options of the text (the seed is the caller's); throws InputError naming the option.
inline net::PacketOptions packet_options_from(const PacketOptionsText& t) {
  net::PacketOptions p;
  p.routing = net::parse_routing(t.routing);
  p.congestion_control = t.congestion_control;
  p.packet_bytes = bounded_bytes(t.packet_size, "--packet-size", kMaxPacketBytes);
  p.buffer_bytes = bounded_bytes(t.buffer, "--buffer", kMaxBufferBytes);
  if (t.vcs == 0 || t.vcs > 8) {
    throw InputError(fmt::format("--vcs {}: give 1 to 8 virtual channels", t.vcs));
  }
  p.vcs = t.vcs;
  p.terminal_latency_ps = bounded_latency_ps(t.terminal_latency, "--terminal-latency");
  p.global_extra_latency_ps = bounded_latency_ps(t.global_extra_latency, "--global-extra-latency");
  p.credit_latency_ps = bounded_latency_ps(t.credit_latency, "--credit-latency");
  p.vc_turnaround_ps = bounded_latency_ps(t.vc_turnaround, "--vc-turnaround");
  if (t.ugal_rule == "booksim") {
    p.ugal_rule = net::UgalRule::kBookSim;
  } else if (t.ugal_rule != "hops") {
    throw InputError(
        fmt::format("--ugal-rule '{}': give hops (queue x hops, Valiant when cheaper) or booksim (BookSim2's "
                    "dragonflynew "
                    "rule)",
                    t.ugal_rule));
  }
  const std::uint64_t threshold = parse_byte_size(t.ugal_threshold, "--ugal-threshold");
  if (threshold > kMaxBufferBytes) {
    throw InputError(fmt::format("--ugal-threshold {}: give at most {} (a buffer's most; docs/limits.md)",
                                 t.ugal_threshold, format_bytes(kMaxBufferBytes)));
  }
  if (threshold != 0 && p.ugal_rule != net::UgalRule::kBookSim) {
    throw InputError(fmt::format("--ugal-threshold {}: only --ugal-rule booksim takes a threshold; add it",
                                 t.ugal_threshold));
  }
  p.ugal_threshold_bytes = threshold;
  return p;
}

/// A --hop-latency text in ps, at most kMaxHopLatencyPs; InputError otherwise.
inline std::uint64_t parse_hop_latency_ps(const std::string& text) {
  const std::uint64_t ps = parse_time_ps(text, "--hop-latency");
  if (ps > kMaxHopLatencyPs) {
    throw InputError(fmt::format(
        "--hop-latency {}: at most 1 s per hop (routers take about 100ns; docs/limits.md)", text));
  }
  return ps;
}

/// --hop-latency in ps, at most kMaxHopLatencyPs.
inline std::uint64_t hop_latency_from(const PacketOptionsText& t) {
  return parse_hop_latency_ps(t.hop_latency);
}

}  // namespace gridlock::cli
