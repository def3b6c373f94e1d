#pragma once
/// @file
/// The packet model's options as a command line gives them (`gridlock predict gpcnet`, `predict
/// mapping`, `predict traffic`): text, converted and bounded here once, with messages that name
/// the option. The model's own checks (a buffer smaller than a packet, too few virtual channels
/// for the routing) stay validate()'s (packet_model.hpp).
#include <cstdint>
#include <string>

#include "gridlock/net/packet_model.hpp"

namespace gridlock::net {

/// The packet model's options as text, with the commands' defaults.
struct PacketOptionsText {
  std::string routing = "minimal";           ///< --routing: minimal, valiant or ugal.
  std::string packet_size = "2KiB";          ///< --packet-size.
  std::string buffer = "32KiB";              ///< --buffer.
  std::uint32_t vcs = 3;                     ///< --vcs, 1 to 8.
  std::string hop_latency = "100ns";         ///< --hop-latency.
  bool congestion_control = false;           ///< --congestion-control.
  std::string terminal_latency = "0ns";      ///< --terminal-latency.
  std::string global_extra_latency = "0ns";  ///< --global-extra-latency.
  std::string credit_latency = "0ns";        ///< --credit-latency.
  std::string vc_turnaround = "0ns";         ///< --vc-turnaround.
  /// --ugal-rule: booksim or hops; empty: not given (BookSim2's, or a --system preset's rule).
  std::string ugal_rule;
  std::string ugal_threshold = "0B";  ///< --ugal-threshold (booksim only).
};

/// The packet options of the text (the seed and the hop latency are the caller's); throws
/// InputError naming the option and its bound (docs/limits.md).
[[nodiscard]] PacketOptions packet_options_from(const PacketOptionsText& text);

/// A --ugal-threshold text in bytes, at most kMaxBufferBytes; throws InputError otherwise.
[[nodiscard]] std::uint64_t parse_ugal_threshold(const std::string& text);

/// Throws InputError for UGAL options that would change nothing in `merged` (the options once a
/// --system preset's values are in): --ugal-rule (`rule_given`) or --ugal-threshold
/// (`threshold_given`) where the routing is not ugal, or a threshold with the hops rule.
void check_ugal_options(const PacketOptions& merged, bool rule_given, bool threshold_given);

/// A --hop-latency text in ps, at most kMaxHopLatencyPs; throws InputError otherwise.
[[nodiscard]] std::uint64_t parse_hop_latency_ps(const std::string& text);

}  // namespace gridlock::net
