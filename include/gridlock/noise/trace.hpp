#pragma once
/// @file
/// Noise traces: a list of detours (start, length) over a measured span, and the three file
/// formats gridlock reads and writes (docs/formats/noise-trace.md).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/noise/trace_format.hpp"

namespace gridlock::noise {

/// One detour: the CPU was away from the measuring loop from `start_ns` for `length_ns`.
struct Detour {
  std::uint64_t start_ns = 0;   ///< Start, ns since the start of the measurement.
  std::uint64_t length_ns = 0;  ///< Length in ns.
  /// Detours compare equal when start and length are.
  friend bool operator==(const Detour&, const Detour&) = default;
};

/// A noise trace: detours sorted by start, not overlapping, all inside [0, duration_ns).
struct NoiseTrace {
  std::vector<Detour> detours;    ///< Sorted, non-overlapping detours.
  std::uint64_t duration_ns = 0;  ///< Measured span; the trace repeats with this period.
  Json context = Json::object();  ///< Context block (gridlock format only; empty otherwise).
  /// The format the trace was read from (kAuto for a trace built in memory).
  TraceFormat format = TraceFormat::kAuto;
  /// Detours the measurement left out of the list (its --max-detours cap; gridlock format's
  /// `detours_not_listed` context line). Such a trace holds less noise than was measured.
  std::uint64_t detours_not_listed = 0;

  /// Total detour time in ns.
  [[nodiscard]] std::uint64_t total_detour_ns() const noexcept;
  /// Total detour time / duration (0 for an empty duration).
  [[nodiscard]] double noise_fraction() const noexcept { return noise_fraction(duration_ns); }
  /// Total detour time / `span_ns` (0 for an empty span).
  [[nodiscard]] double noise_fraction(std::uint64_t span_ns) const noexcept;
  /// Where the last detour ends, in ns (0 without detours): the period of a trace in a format
  /// that stores no duration.
  [[nodiscard]] std::uint64_t last_detour_end_ns() const noexcept;
};

/// Parses a trace from `text`; `source` names it in errors (`file:line: what; fix`). A UTF-8
/// byte-order mark at the start is skipped. Throws InputError for garbage, negative values, unsorted or
/// overlapping detours.
[[nodiscard]] NoiseTrace parse_trace(std::string_view text, TraceFormat format, std::string_view source);

/// Reads a trace file (IoError if it cannot be read; InputError with file:line if malformed).
[[nodiscard]] NoiseTrace read_trace(const std::filesystem::path& path, TraceFormat format);

/// Renders a trace in `format` (not kAuto). The gridlock format writes `context` (with
/// duration_ns added); the other two formats have no header and lose the duration.
[[nodiscard]] std::string format_trace(const NoiseTrace& trace, TraceFormat format);

/// Writes format_trace() atomically to `path`.
void write_trace(const std::filesystem::path& path, const NoiseTrace& trace, TraceFormat format);

/// Throws InputError naming `source` unless the detours are sorted, non-overlapping and inside
/// the duration.
void validate_trace(const NoiseTrace& trace, std::string_view source);

}  // namespace gridlock::noise
