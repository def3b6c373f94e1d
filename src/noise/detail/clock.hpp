#pragma once
// Inline clock reads for the selfish-detour loop. Private to gridlock::noise: they pull in
// <x86intrin.h>, which the public headers must not export; the public out-of-line versions are
// gridlock::noise::read_tsc() and read_monotonic_ns() in gridlock/noise/timer.hpp.

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GRIDLOCK_NOISE_HAVE_TSC 1
#else
#define GRIDLOCK_NOISE_HAVE_TSC 0
#endif

namespace gridlock::noise::detail {

// Inline so the measurement loop has no call.
[[nodiscard]] inline std::uint64_t read_tsc_inline() noexcept {
#if GRIDLOCK_NOISE_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

// Inline so the measurement loop has no extra call.
[[nodiscard]] inline std::uint64_t read_monotonic_ns_inline() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace gridlock::noise::detail
