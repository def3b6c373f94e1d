#pragma once
// Settings of the OTF2 tracer libgridlock-trace.so (docs/tracing.md), read from the environment.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gridlock::trace {

/// What the tracer records and where; every rank reads the same environment at MPI_Init.
struct TraceConfig {
  /// Archive directory (GRIDLOCK_TRACE_DIR); the anchor file is `<dir>/traces.otf2`.
  std::string dir = "gridlock-trace";
  /// MPI function names left out of the trace (GRIDLOCK_TRACE_FILTER), sorted, unique.
  std::vector<std::string> filter;
  /// Event bytes per rank before events are dropped (GRIDLOCK_TRACE_MAX_BYTES); 0 means no cap.
  std::uint64_t max_bytes = 0;
};

/// The MPI functions the tracer wraps, by their C names (`MPI_Send`, ...), in region order.
[[nodiscard]] std::span<const std::string_view> traced_functions();

/// Parses a byte count such as `4096`, `64KiB`, `1.5MB`, `2G` (K/M/G = powers of 1000 with B,
/// of 1024 with iB or alone). Throws InputError naming `what` when the text is not a size.
[[nodiscard]] std::uint64_t parse_byte_count(std::string_view text, std::string_view what);

/// Parses a comma list of traced MPI function names; throws InputError for a name the tracer
/// does not wrap.
[[nodiscard]] std::vector<std::string> parse_filter(std::string_view list);

/// Builds the configuration from the three variables' values (nullptr: unset).
[[nodiscard]] TraceConfig config_from_values(const char* dir, const char* filter, const char* max_bytes);

}  // namespace gridlock::trace
