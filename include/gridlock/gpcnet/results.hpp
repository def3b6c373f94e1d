#pragma once
/// @file
/// Results of a gridlock-bench run, their JSON form, the GPCNeT-style text tables and the
/// histogram CSV files. Nothing here uses MPI: rank 0 fills a Report and writes it.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/histogram.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/stats.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {

/// Throughput a congestor type achieved while one canary test ran.
struct CongestorResult {
  CongestorType type = CongestorType::kAllToAll;  ///< Kernel.
  std::uint64_t ranks = 0;                        ///< Ranks that ran it.
  std::uint64_t iterations = 0;                   ///< Kernel iterations summed over ranks.
  std::uint64_t bytes = 0;                        ///< Bytes injected, summed over ranks.
  double mib_per_s_total = 0;                     ///< Sum over ranks of bytes / loop time.
  double mib_per_s_per_rank = 0;                  ///< mib_per_s_total / ranks.
  bool timed_out = false;                         ///< Stopped by its own timeout, not by the canaries.
};

/// How a canary of `gridlock predict gpcnet --precision` stopped (docs/predict.md, "Stopping
/// rules"): the 95% confidence intervals of its mean and of its 99% tail against the target.
struct StoppingRule {
  bool active = false;           ///< A stopping rule ran (--precision); false: a fixed count.
  double target = 0;             ///< Target half-width over the estimate (0.05 for 5%).
  std::uint64_t iterations = 0;  ///< Timed iterations every rank completed (the samples used per rank).
  std::uint64_t cap = 0;         ///< Most timed iterations per rank (--max-iterations).
  std::uint64_t fixed = 0;       ///< Timed iterations per rank of the fixed count (rings x iterations).
  double mean_half_width = 0;    ///< Achieved half-width of the mean's interval over the mean.
  double tail_half_width = 0;    ///< Achieved half-width of the tail's interval over the tail.
  bool met = false;              ///< Both half-widths within the target (false: the cap was hit).
};

/// Statistics of one canary test in one state (isolated, or loaded by a set of congestors).
///
/// `fine` summarises the pooled per-iteration samples of every canary rank (one sample per
/// timed kernel iteration: a latency in microseconds, or a bandwidth in MiB/s per rank). The
/// bulk figures come from the bulk timer of each ring block (nI iterations): each rank's bulk
/// mean is the mean over its blocks of the block's per-iteration value; reported are the mean,
/// minimum and maximum of those per-rank means.
struct CanaryResult {
  std::string key;                          ///< Stable identifier, e.g. `rr_two_sided_lat`.
  std::string title;                        ///< Table name, e.g. `RR Two-sided Lat (8 B)`.
  std::string units;                        ///< `usec` or `MiB/s/rank`.
  Better better = Better::kLower;           ///< Direction in which the metric is good.
  Summary fine;                             ///< Pooled per-iteration samples of all ranks.
  LogHistogram histogram;                   ///< The pooled samples themselves (for CSV output).
  double bulk_mean = 0;                     ///< Mean over ranks of per-rank bulk means.
  double bulk_min = 0;                      ///< Smallest per-rank bulk mean.
  double bulk_max = 0;                      ///< Largest per-rank bulk mean.
  std::uint64_t ranks = 0;                  ///< Ranks that measured.
  std::uint64_t blocks_completed = 0;       ///< Ring blocks (m, n) completed by every rank.
  std::uint64_t blocks_planned = 0;         ///< nM x nR.
  bool timed_out = false;                   ///< Cut short by --test-timeout.
  bool skipped = false;                     ///< Not run because --deadline had passed.
  double elapsed_s = 0;                     ///< Wall time of the test on rank 0 of the canaries.
  std::vector<CongestorResult> congestors;  ///< Congestor throughput while this test ran.
  StoppingRule stopping;                    ///< How a simulated canary stopped (predict gpcnet --precision).

  /// The figure in the table's "Avg" column: the block-based mean or the samples' mean.
  [[nodiscard]] double avg(Average average) const noexcept {
    return average == Average::kBlocks ? bulk_mean : fine.mean;
  }
  /// The figure in the table's "99%" column: p99 for latencies, p1 for bandwidths.
  [[nodiscard]] double tail99() const noexcept { return fine.tail99(better); }
};

/// One pass over the canary tests in one state.
struct PhaseResult {
  std::string label;                   ///< `isolated`, `loaded`, or `loaded:<congestor>`.
  std::vector<CongestorType> active;   ///< Congestors that ran (empty when isolated).
  std::vector<CanaryResult> canaries;  ///< One entry per canary test.
};

/// Congestion Impact of one canary in one loaded phase against the isolated baseline.
struct ImpactRow {
  std::string phase;  ///< Loaded phase label.
  std::string key;    ///< Canary key.
  std::string title;  ///< Canary table name.
  double mean = 0;    ///< CI of the table's averages (CanaryResult::avg; unrounded), NaN if unavailable.
  double tail99 = 0;  ///< CI of the 99% tails (p99, or p1 for bandwidth), NaN if unavailable.
};

/// A whole run as seen by rank 0.
struct Report {
  Mode mode = Mode::kLoad;             ///< Suite that ran.
  Average average = Average::kBlocks;  ///< What the "Avg" column and the impact of averages use.
  Json context;  ///< Context block (tool, version, MPI, ranks, nodes, seed, parameters).
  /// Node names of each role, in role order (`canary`, then congestor keys).
  std::vector<std::pair<std::string, std::vector<std::string>>> roles;
  /// Node names of the first random ring of canary slice 0, in ring order (reproducibility check).
  std::vector<std::string> canary_ring0;
  std::vector<PhaseResult> phases;  ///< isolated first, then loaded phases.
  std::vector<std::string> notes;   ///< Timeouts, skipped tests and other warnings.
  /// True when every rank ran on one host: the "network" was shared memory and the cores were
  /// shared, so the tables say so (one_host_explanation).
  bool one_host = false;
  /// A split launch's canary job (split_launch.hpp): `run_id`, `rendezvous`, and the congestor job's
  /// `congestor_job` (its context and results) with its `congestor_table`; null in other runs.
  Json split_launch;
  /// Why a split launch's loaded phase failed (the congestor job died or never ran); empty when it
  /// did not. The report is still written, and the run ends with exit code 1.
  std::string split_error;
};

/// The line printed under the tables when every rank ran on one host.
[[nodiscard]] std::string_view one_host_explanation();

/// How the tables show a Congestion Impact Factor: `2.3X`; below 1 (the congestors sped the
/// canaries up, which is noise, not a measurement) `kWithinNoise`; `-` when undefined. `width`
/// pads on the left. JSON keeps the raw value.
[[nodiscard]] std::string format_impact(double factor, int width);

/// Table text of an impact below 1.
inline constexpr std::string_view kWithinNoise = "within noise";

/// Congestion Impact rows for every loaded phase (needs an `isolated` phase), paper Eq. 1-2.
[[nodiscard]] std::vector<ImpactRow> congestion_impacts(const Report& report);

/// Prints the GPCNeT-style tables (`| name | avg | 99% | units |`) and notes to `out`.
void print_tables(const Report& report, std::FILE* out);

/// Writes one CSV per canary and phase into `dir` (created if missing): the non-empty
/// histogram buckets with their bounds. Returns the paths written. Throws IoError.
std::vector<std::filesystem::path> write_histogram_csvs(const Report& report,
                                                        const std::filesystem::path& dir);

}  // namespace gridlock::gpcnet
