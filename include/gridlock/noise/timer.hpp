#pragma once
/// @file
/// High-resolution timers for the selfish-detour loop: the invariant TSC where the CPU has one,
/// `clock_gettime(CLOCK_MONOTONIC)` otherwise.

#include <cstdint>
#include <string>
#include <string_view>

namespace gridlock::noise {

/// Which clock a measurement reads.
enum class TimerKind {
  kTsc,        ///< The x86 time-stamp counter (only if it is invariant), calibrated to ns.
  kMonotonic,  ///< clock_gettime(CLOCK_MONOTONIC), ticks are ns.
};

/// What the user asked for with `--timer`.
enum class TimerChoice {
  kAuto,       ///< The TSC if it is invariant, else the monotonic clock.
  kTsc,        ///< The TSC; an error if the CPU has no invariant TSC.
  kMonotonic,  ///< The monotonic clock.
};

/// Parses `auto`, `tsc` or `monotonic`; throws InputError naming `--timer` otherwise.
[[nodiscard]] TimerChoice parse_timer_choice(std::string_view text);

/// True if this CPU has an invariant TSC (CPUID 0x80000007 EDX bit 8); false on non-x86.
[[nodiscard]] bool has_invariant_tsc() noexcept;

/// Reads the TSC (0 where there is none). Out of line: the measurement loop itself uses an
/// inline private copy, so this one is for callers outside gridlock::noise.
[[nodiscard]] std::uint64_t read_tsc() noexcept;

/// Reads CLOCK_MONOTONIC in ns.
[[nodiscard]] std::uint64_t read_monotonic_ns() noexcept;

/// A chosen, calibrated timer: its kind and how many ticks make one nanosecond.
struct Timer {
  TimerKind kind = TimerKind::kMonotonic;  ///< Which clock.
  double ticks_per_ns = 1.0;               ///< 1 for the monotonic clock; TSC GHz for the TSC.

  /// "tsc" or "monotonic".
  [[nodiscard]] std::string name() const;
  /// Converts a tick count to ns.
  [[nodiscard]] double to_ns(std::uint64_t ticks) const noexcept {
    return static_cast<double>(ticks) / ticks_per_ns;
  }
};

/// Picks and calibrates a timer. The TSC is calibrated against CLOCK_MONOTONIC over
/// `calibration_ms` milliseconds. Throws InputError if `choice` is kTsc and there is no
/// invariant TSC.
[[nodiscard]] Timer make_timer(TimerChoice choice, double calibration_ms = 100.0);

}  // namespace gridlock::noise
