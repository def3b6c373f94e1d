#pragma once
/// @file
/// Noise trace file formats and limits, without the trace itself (gridlock/noise/trace.hpp,
/// whose context block is JSON).
#include <cstdint>
#include <string>
#include <string_view>

namespace gridlock::noise {

/// The longest trace gridlock can simulate: the simulator's time is in ps on 64 bits, so a
/// trace's times must stay below 2^64 ps (about 213 days).
inline constexpr std::uint64_t kMaxTraceNs = ~std::uint64_t{0} / 1000;

/// File formats of noise traces.
enum class TraceFormat {
  kAuto,       ///< Detect from the content (reading only).
  kGridlock,   ///< gridlock's own: magic line, context block, `start_ns,length_ns` CSV.
  kNetgauge,   ///< Netgauge noise output: `start_us length_us`, whitespace, `#` comments.
  kLoggopsim,  ///< LogGOPSim: `start<TAB>duration` in ns, one detour a line.
};

/// Parses `auto`, `gridlock`, `netgauge` or `loggopsim`; throws InputError naming `what`.
[[nodiscard]] TraceFormat parse_trace_format(std::string_view text, std::string_view what);

/// The format's name as parse_trace_format accepts it.
[[nodiscard]] std::string format_name(TraceFormat format);

}  // namespace gridlock::noise
