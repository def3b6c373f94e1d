#pragma once
/// @file
/// Noise injection into the LogGOPS engine and Monte-Carlo replicas (docs/sim-model.md, "Noise").

#include <cstdint>
#include <functional>
#include <vector>

#include "gridlock/noise/pattern.hpp"

namespace gridlock::sim {

/// Noise for one simulation: a detour pattern and every rank's phase in it.
struct NoiseInjection {
  const noise::DetourPattern* pattern = nullptr;  ///< The detours (not owned); null: no noise.
  /// Phase of each rank in the pattern (ps, < period): one entry per rank, or a single entry
  /// shared by every rank (co-scheduled noise).
  std::vector<std::uint64_t> offset_ps;

  /// The phase of `rank`.
  [[nodiscard]] std::uint64_t offset_of(std::uint32_t rank) const noexcept {
    return offset_ps.size() == 1 ? offset_ps[0] : offset_ps[rank];
  }
};

/// Phases for replica `replica` of a run with base `seed`: rank r's phase is uniform in
/// [0, period) from `derive_seed(derive_seed(seed, replica), r)`; with `cosched` every rank gets
/// the phase `derive_seed(seed, replica)` gives. The same (seed, replica, rank) always gives the
/// same phase, so replicas can be split over threads or processes in any way.
[[nodiscard]] NoiseInjection make_noise_injection(const noise::DetourPattern& pattern, std::uint32_t ranks,
                                                  std::uint64_t seed, std::uint64_t replica, bool cosched);

}  // namespace gridlock::sim
