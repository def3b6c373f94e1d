#pragma once
/// @file
/// The LogGOPS options of both simulator tools (`gridlock sim`, `gridlock-bench sim-replicas`) as
/// text, and their one conversion into engine parameters, so that both accept the same options and
/// say the same about bad values.

#include <cstdint>
#include <optional>
#include <string>

#include "gridlock/sim/engine.hpp"

namespace gridlock::sim {

/// The options as given on a command line; an empty optional is an option not given (its value
/// then comes from the base parameters: the defaults or a fit file).
struct LogGOPSText {
  std::optional<std::string> latency;                  ///< -L, e.g. "2.5us".
  std::optional<std::string> overhead;                 ///< -o: o on both sides.
  std::optional<std::string> overhead_send;            ///< --o-send (default: -o).
  std::optional<std::string> overhead_recv;            ///< --o-recv (default: -o).
  std::optional<std::string> gap;                      ///< -g.
  std::optional<std::string> gap_per_byte;             ///< -G (sub-ns allowed, e.g. "0.25ns").
  std::optional<std::string> overhead_per_byte;        ///< -O.
  std::optional<std::uint64_t> eager_threshold_bytes;  ///< -S.
  bool rendezvous_handshake = false;                   ///< --rendezvous-handshake.
  double network_scale = 1.0;                          ///< --network-scale: L, g and G times this.
  std::optional<std::string> noise_rule;               ///< --noise-rule: gridlock or loggopsim.
};

/// The parameters of a command line without LogGOPS options: L 2.5 us, o 1.5 us (both sides),
/// g 1 us, G 6 ns, O 0, S 65535 bytes, no rendezvous handshake.
[[nodiscard]] LogGOPSParams default_loggops();

/// What the options select.
struct LogGOPSChoice {
  LogGOPSParams params;                         ///< Parameters, already scaled by network_scale.
  NoiseRule noise_rule = NoiseRule::kGridlock;  ///< --noise-rule (gridlock when not given).
  double network_scale = 1.0;                   ///< The factor applied (recorded in outputs).
};

/// Converts the text options: every option given replaces its value in `base` (--o-send and
/// --o-recv win over -o for their side), then L, g and G are multiplied by network_scale. Throws
/// InputError naming the option for a value that is not a time (e.g. "-L 'fast': ..."), an
/// unknown --noise-rule, or a --network-scale that is not positive or overflows the time range.
[[nodiscard]] LogGOPSChoice loggops_from_text(const LogGOPSText& text,
                                              const LogGOPSParams& base = default_loggops());

}  // namespace gridlock::sim
