#pragma once
// The packet model's options as the network commands take them (`gridlock predict gpcnet`,
// `predict mapping`, `predict traffic`): declared here once; converted and bounded by
// gridlock::net (net/packet_options_text.hpp).

#include <cstdint>

#include <CLI/CLI.hpp>

#include "gridlock/net/packet_options_text.hpp"

namespace gridlock::cli {

// The text and its conversion are gridlock::net's (net/packet_options_text.hpp).
using net::packet_options_from;
using net::PacketOptionsText;
using net::parse_hop_latency_ps;

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
  cmd.add_option("--ugal-rule", t.ugal_rule,
                 "Packet model: UGAL's comparison, booksim (BookSim2's dragonflynew) or hops (queue x hops); "
                 "a --system preset names its machine's")
      ->default_str("booksim");
  cmd.add_option("--ugal-threshold", t.ugal_threshold,
                 "Packet model: --ugal-rule booksim's bias to the minimal path, in buffered bytes")
      ->capture_default_str();
}

/// --hop-latency in ps, at most kMaxHopLatencyPs.
inline std::uint64_t hop_latency_from(const PacketOptionsText& t) {
  return parse_hop_latency_ps(t.hop_latency);
}

}  // namespace gridlock::cli
