#include "gridlock/noise/timer.hpp"

#include "detail/clock.hpp"

#if GRIDLOCK_NOISE_HAVE_TSC
#include <cpuid.h>
#endif

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::noise {

TimerChoice parse_timer_choice(std::string_view text) {
  if (text == "auto") {
    return TimerChoice::kAuto;
  }
  if (text == "tsc") {
    return TimerChoice::kTsc;
  }
  if (text == "monotonic") {
    return TimerChoice::kMonotonic;
  }
  throw InputError(fmt::format("unknown --timer '{}': use auto, tsc or monotonic", text));
}

bool has_invariant_tsc() noexcept {
#if GRIDLOCK_NOISE_HAVE_TSC
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  // GCC's __get_cpuid_max returns unsigned, clang's int: compared as unsigned on both.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000U, nullptr)) < 0x80000007U) {
    return false;
  }
  __cpuid(0x80000007U, eax, ebx, ecx, edx);
  return (edx & (1U << 8U)) != 0;
#else
  return false;
#endif
}

std::uint64_t read_tsc() noexcept { return detail::read_tsc_inline(); }

std::uint64_t read_monotonic_ns() noexcept { return detail::read_monotonic_ns_inline(); }

std::string Timer::name() const { return kind == TimerKind::kTsc ? "tsc" : "monotonic"; }

Timer make_timer(TimerChoice choice, double calibration_ms) {
  const bool tsc = has_invariant_tsc();
  if (choice == TimerChoice::kTsc && !tsc) {
    throw InputError("--timer tsc: this CPU has no invariant TSC; use --timer monotonic (or auto)");
  }
  Timer timer;
  if (choice == TimerChoice::kMonotonic || !tsc) {
    return timer;
  }
  // Busy-wait rather than sleep: both clocks are read back to back at each end, so the
  // calibration error is two clock reads over `calibration_ms`.
  const std::uint64_t ns0 = detail::read_monotonic_ns_inline();
  const std::uint64_t t0 = detail::read_tsc_inline();
  const auto span_ns = static_cast<std::uint64_t>(calibration_ms * 1e6);
  std::uint64_t ns1 = ns0;
  while (ns1 - ns0 < span_ns) {
    ns1 = detail::read_monotonic_ns_inline();
  }
  const std::uint64_t t1 = detail::read_tsc_inline();
  timer.kind = TimerKind::kTsc;
  timer.ticks_per_ns = static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
  if (!(timer.ticks_per_ns > 0)) {
    throw Error("the TSC did not advance during calibration; use --timer monotonic");
  }
  return timer;
}

}  // namespace gridlock::noise
