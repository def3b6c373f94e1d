#pragma once
/// @file
/// Monte-Carlo noise studies: many replicas of one schedule with different per-rank noise phases
/// (Hoefler et al., SC10, §IV), and the box-plot statistics of their completion times.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/noise.hpp"

namespace gridlock::sim {

/// Stream of the user's seed the noise phases come from: phases use derive_seed(seed, stream),
/// random patterns derive_seed(seed, stream + 1) (the schedule generator uses the seed itself).
inline constexpr std::uint64_t kNoiseSeedStream = 0x6e6f697365ULL;  // "noise"

/// Paper §IV-B5: a network `factor` times slower (or faster, < 1) has L, g and G multiplied by
/// it; the CPU overhead o and O stay. Throws InputError unless factor is positive and finite.
[[nodiscard]] LogGOPSParams scale_network(LogGOPSParams params, double factor);

/// Parses `--ranks N` or `--ranks N1,N2,...` (each in [1, kMaxRanks], each at most once, in the
/// order given); empty text gives {}. Throws InputError naming the list otherwise.
[[nodiscard]] std::vector<std::uint32_t> parse_scales(const std::string& text);

/// What run_replicas needs besides the range.
struct ReplicaConfig {
  const noise::DetourPattern* pattern = nullptr;  ///< The noise (not owned, not null).
  std::uint64_t seed = 1;                         ///< Base seed of the phases (printed by callers).
  bool cosched = false;                           ///< Every rank the same phase.
  unsigned threads = 1;                           ///< Worker threads (results do not depend on it).
  /// Called from worker threads with the number of finished replicas (may be empty).
  std::function<void(std::uint64_t)> progress;
};

/// Most replicas per scale: every replica's completion time is kept (8 bytes each, several copies
/// for the statistics) and written to --json, so a mistyped count must not become a run that
/// fills the memory for hours.
inline constexpr std::uint64_t kMaxReplicas = 10'000'000;

/// Throws InputError unless 1 <= `replicas` <= kMaxReplicas (for --replicas).
void check_replica_count(std::uint64_t replicas);

/// Most worker threads of run_replicas (--threads). Each thread simulates whole replicas, so more
/// threads than cores only cost memory; a mistyped count must not start millions of threads.
inline constexpr unsigned kMaxReplicaThreads = 1024;

/// Throws InputError if `threads` > kMaxReplicaThreads (for --threads; 0 is left to the caller).
void check_thread_count(unsigned threads);

/// Completion time (max finish, ps) of replicas [begin, end) of `schedule` with noise; entry i is
/// replica begin + i. Deterministic: replica r's phases depend only on (seed, r, rank). Runs on
/// min(config.threads, end - begin) threads (at least 1). Throws InputError if a replica does not
/// complete (deadlock), if end < begin or the range holds more than kMaxReplicas replicas, or if
/// config.threads > kMaxReplicaThreads.
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
  double whisker_low = 0;               ///< Smallest sample that is not an outlier (Tukey's whisker).
  double whisker_high = 0;              ///< Largest sample that is not an outlier.
};

/// Statistics of `values` (any order; empty gives count 0).
[[nodiscard]] BoxStats box_stats(std::vector<std::uint64_t> values);

/// One scale of a Monte-Carlo study.
struct ScaleResult {
  std::uint32_t ranks = 0;                   ///< Process count.
  std::uint64_t noiseless_ps = 0;            ///< Completion time without noise.
  std::vector<std::uint64_t> completion_ps;  ///< Completion time of every replica, in replica order.
};

/// The header lines of a study's table (`| ranks | noiseless | min | ... |` and its rule), the
/// same in `gridlock sim --replicas` and `gridlock-bench sim-replicas`.
[[nodiscard]] std::string scale_table_header();

/// One scale's table line: ranks, noiseless time (exact, format_time_ps), min, q1, median, q3,
/// max, mean (format_duration_s, the one duration style of tables), the number of outliers and
/// the median slowdown.
[[nodiscard]] std::string scale_table_row(const ScaleResult& scale);

/// CSV columns of a study (one row per scale; times in ps, slowdowns as fractions).
[[nodiscard]] std::vector<std::string> scale_csv_columns();

/// One scale's CSV row, in the order of scale_csv_columns().
[[nodiscard]] std::vector<std::string> scale_csv_row(const ScaleResult& scale);

/// The box plot's title, the same in `gridlock sim --replicas` and `gridlock-bench sim-replicas`:
/// `source` (the program or schedule file) on the first line, the noise model and whether it is
/// co-scheduled on the second.
[[nodiscard]] std::string study_title(const std::string& source, const noise::NoiseSpec& spec,
                                      const noise::DetourPattern& pattern, bool cosched);

/// Slowdown of a completion time relative to the noiseless one: value / noiseless - 1 (0 when the
/// noiseless run takes no time).
[[nodiscard]] double slowdown(double value_ps, double noiseless_ps);

/// Median slowdown of a scale: median completion time / noiseless time - 1 (0 for a schedule that
/// takes no time).
[[nodiscard]] double median_slowdown(const ScaleResult& scale);

/// Where noise becomes the bottleneck in a study over several scales: the paper's "characteristic
/// number of processes where the influence of noise rapidly raises to a very high level" (§IV-B),
/// where the outliers of small runs become the median of large ones. Defined (docs/noise.md) as
/// the smallest scale from which on the median slowdown of every larger scale studied is at least
/// `threshold` (1.0: noise at least doubles the median run).
struct NoiseBottleneck {
  /// Whether and where the threshold is crossed.
  enum class Status {
    kNotReached,         ///< Below the threshold at the largest scale studied.
    kWithin,             ///< Between two scales studied: `below_ranks` and `ranks`.
    kAtOrBelowSmallest,  ///< Already at the smallest scale studied: somewhere at or below it.
  };
  Status status = Status::kNotReached;  ///< See Status.
  double threshold = 1.0;               ///< Median slowdown that makes noise the bottleneck.
  std::uint32_t ranks = 0;              ///< kWithin, kAtOrBelowSmallest: the bottleneck scale.
  double slowdown = 0;                  ///< Median slowdown at `ranks`.
  std::uint32_t below_ranks = 0;        ///< kWithin: the scale studied just below `ranks`.
  double below_slowdown = 0;            ///< kWithin: median slowdown at `below_ranks` (< threshold).
  std::uint32_t max_ranks = 0;  ///< The scale with the largest median slowdown (the smallest on ties).
  double max_slowdown = 0;      ///< That largest median slowdown.
};

/// Throws InputError unless `threshold` (a median slowdown, 1.0 = +100%) is positive and finite.
void check_bottleneck_threshold(double threshold);

/// Finds the noise bottleneck of `scales` (any order). Throws InputError if `scales` is empty or
/// `threshold` is not a positive finite number.
[[nodiscard]] NoiseBottleneck find_noise_bottleneck(const std::vector<ScaleResult>& scales, double threshold);

/// One line for people, e.g. "noise bottleneck (median slowdown >= 100%): at 64 ranks (32 ranks:
/// +0.00%, 64 ranks: +319.85%)".
[[nodiscard]] std::string describe(const NoiseBottleneck& bottleneck);

}  // namespace gridlock::sim
