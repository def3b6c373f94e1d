#pragma once
/// @file
/// Monte-Carlo noise studies: many replicas of one schedule with different per-rank noise phases
/// (Hoefler et al., SC10, §IV), and the box-plot statistics of their completion times.

#include <cstdint>
#include <functional>
#include <vector>

#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/noise.hpp"

namespace gridlock::sim {

/// What run_replicas needs besides the range.
struct ReplicaConfig {
  const noise::DetourPattern* pattern = nullptr;  ///< The noise (not owned, not null).
  std::uint64_t seed = 1;                         ///< Base seed of the phases (printed by callers).
  bool cosched = false;                           ///< Every rank the same phase.
  unsigned threads = 1;                           ///< Worker threads (results do not depend on it).
  /// Called from worker threads with the number of finished replicas (may be empty).
  std::function<void(std::uint64_t)> progress;
};

/// Completion time (max finish, ps) of replicas [begin, end) of `schedule` with noise; entry i is
/// replica begin + i. Deterministic: replica r's phases depend only on (seed, r, rank). Throws
/// InputError if a replica does not complete (deadlock).
[[nodiscard]] std::vector<std::uint64_t> run_replicas(const Schedule& schedule, const SimOptions& options,
                                                      const ReplicaConfig& config, std::uint64_t begin,
                                                      std::uint64_t end);

/// Box-plot statistics (paper Figs. 5–7; Tukey's fences).
struct BoxStats {
  std::uint64_t count = 0;              ///< Samples.
  double min = 0;                       ///< Smallest.
  double q1 = 0;                        ///< First quartile (linear interpolation, R type 7).
  double median = 0;                    ///< Median.
  double q3 = 0;                        ///< Third quartile.
  double max = 0;                       ///< Largest.
  double mean = 0;                      ///< Mean.
  std::vector<std::uint64_t> outliers;  ///< Samples outside [q1 - 1.5 IQR, q3 + 1.5 IQR], ascending.
};

/// Statistics of `values` (any order; empty gives count 0).
[[nodiscard]] BoxStats box_stats(std::vector<std::uint64_t> values);

}  // namespace gridlock::sim
