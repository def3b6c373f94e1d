#pragma once
/// @file
/// `gridlock-bench sweep`: MPI performance over message sizes, as the Theta study measured it
/// (point-to-point by hop class, one-sided, collectives over communicator sizes), with the method
/// ReproMPI recommends (Hunold and Carpen-Amarie): a documented, selectable synchronisation, many
/// repetitions per size bounded in time, outliers kept and counted, the median with a
/// distribution-free confidence interval, and whole-sweep repeats for run-to-run variability.
/// The result is docs/formats/sweep-json.md (schema `gridlock.sweep`), which `gridlock model` reads.

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"

namespace gridlock::bench {

/// How the calls of a collective are synchronised and timed.
enum class SweepSync : std::uint8_t {
  kBarrier,  ///< MPI_Barrier before each call; time = the slowest rank's local call time.
  kWindow,   ///< Calls start at agreed times of rank 0's clock, one window apart; late starts are invalid.
};

/// Parses `barrier` or `window`; throws InputError listing them.
[[nodiscard]] SweepSync parse_sweep_sync(std::string_view text);
/// The name parse_sweep_sync() reads.
[[nodiscard]] std::string_view to_string(SweepSync sync) noexcept;

/// What an op measures.
enum class SweepKind : std::uint8_t {
  kP2p,         ///< Two-sided point-to-point between a pair of ranks.
  kRma,         ///< One-sided between a pair of ranks.
  kCollective,  ///< A collective over a communicator of the first `ranks` world ranks.
};

/// `p2p`, `rma` or `collective`.
[[nodiscard]] std::string_view to_string(SweepKind kind) noexcept;

/// Every op the sweep knows, in run order: p2p, rma, then the collectives in the paper's
/// call-frequency order (allreduce, bcast, barrier, alltoall, alltoallv, reduce, allgatherv) and
/// the rest.
[[nodiscard]] const std::vector<std::string>& sweep_op_names();
/// The kind of op `name` (one of sweep_op_names()); throws InputError for an unknown name.
[[nodiscard]] SweepKind sweep_op_kind(std::string_view name);
/// True for the ops whose records carry a bandwidth (bw_uni, bw_bi and the one-sided ops).
[[nodiscard]] bool sweep_op_has_bandwidth(std::string_view name) noexcept;
/// The ops the self-consistent guidelines compare (`--guidelines`).
[[nodiscard]] const std::vector<std::string>& sweep_guideline_ops();

/// Parses `--ops`: comma-separated op names, or the groups `all`, `p2p`, `rma`, `collectives`.
/// The result is in run order without duplicates. Throws InputError naming an unknown op and
/// listing the known ones.
[[nodiscard]] std::vector<std::string> parse_sweep_ops(std::string_view text);

/// Largest message size: 1 GiB (every count must fit in an int).
inline constexpr std::uint64_t kMaxSweepSize = std::uint64_t{1} << 30;
/// Largest --reps and --min-reps (all samples of one size are kept in memory).
inline constexpr std::uint64_t kMaxSweepReps = 10'000'000;
/// Largest --window (messages in flight per bandwidth sample).
inline constexpr std::uint32_t kMaxSweepWindow = 65'536;
/// Largest --repeat.
inline constexpr std::uint64_t kMaxSweepRepeat = 10'000;

/// The sizes of a sweep: 0 and the powers of two up to `max_size`, plus `extra` (from `--sizes`);
/// only `extra` when `only_extra`. Sorted, without duplicates. Throws InputError for a size above
/// `max_size` or an empty result.
[[nodiscard]] std::vector<std::uint64_t> sweep_sizes(std::uint64_t max_size,
                                                     const std::vector<std::uint64_t>& extra,
                                                     bool only_extra);

/// Parses a comma-separated list of byte sizes (`4KiB,6KiB,12KiB`) for option `what`.
[[nodiscard]] std::vector<std::uint64_t> parse_size_list(std::string_view text, std::string_view what);

/// A fault to inject (`GRIDLOCK_SWEEP_FAIL=OP:BYTES`): the kernels of that op at that size issue
/// erroneous MPI calls (a count of -1; reductions MPI_OP_NULL) on every rank of the pair or
/// communicator, so that the library's error handler reports a real MPI error.
struct SweepFault {
  std::string op;                ///< One of sweep_op_names().
  std::uint64_t size_bytes = 0;  ///< Message size in bytes.
};

/// Parses `OP:BYTES` (`allreduce:1024`; an empty spec: no fault). Throws InputError naming
/// GRIDLOCK_SWEEP_FAIL for an unknown op or a size that is not a number of bytes.
[[nodiscard]] std::optional<SweepFault> parse_sweep_fault(std::string_view spec);

/// Options of `gridlock-bench sweep`.
struct SweepOptions {
  std::vector<std::string> ops;                      ///< Ops to run, in run order (parse_sweep_ops).
  std::string ops_text = "all";                      ///< --ops as given (for the context block).
  std::vector<std::uint64_t> sizes;                  ///< Point-to-point and one-sided sizes (sweep_sizes).
  std::uint64_t max_size = std::uint64_t{64} << 20;  ///< --max-size (64 MiB).
  std::uint64_t max_coll_size = std::uint64_t{1}
                                << 20;   ///< --max-coll-size (1 MiB): collectives use sizes up to this.
  std::uint64_t ranks_per_step = 0;      ///< Communicator sizes K, 2K, ...; 0: powers of two.
  std::uint64_t reps = 1000;             ///< Most repetitions per size.
  std::uint64_t min_reps = 10;           ///< Fewest repetitions per size.
  double max_time_s = 1.0;               ///< Time budget per size (sets the repetitions).
  std::uint64_t warmup = 2;              ///< Untimed calls before each size.
  std::uint32_t window = 64;             ///< Messages per bandwidth sample.
  SweepSync sync = SweepSync::kBarrier;  ///< Synchronisation of collective calls.
  double window_us = 0;                  ///< --sync window: window per call; 0: automatic.
  std::uint64_t repeat = 1;              ///< Passes of the whole sweep.
  bool quick = false;                    ///< The one-minute profile was applied.
  bool samples = false;                  ///< Keep every sample in the JSON.
  bool guidelines = false;               ///< Measure what `gridlock model check` compares.
  std::string topology;                  ///< Topology spec for the `router` class.
  std::string node_names;                ///< Hostlist of virtual node names (rank r: r / (ranks / names)).
  std::uint64_t virtual_nodes = 0;       ///< --virtual-nodes.
  std::uint64_t ranks_per_node = 0;      ///< --ranks-per-node.
  std::uint64_t seed = 1;                ///< Seed of the buffer contents.
  std::string json_path;                 ///< --json.
  bool quiet = false;                    ///< No progress on stderr.
  std::optional<SweepFault> fault;       ///< Fault injection for tests (GRIDLOCK_SWEEP_FAIL).
};

/// Sets the one-minute profile: a few sizes up to 256 KiB (collectives up to 64 KiB), few
/// repetitions, 20 ms per size, two communicator sizes at most.
void apply_sweep_quick_profile(SweepOptions& options);

/// Throws InputError for options that are wrong on any number of ranks (zero or too many
/// repetitions, sizes beyond kMaxSweepSize, a window of 0, no ops).
void validate(const SweepOptions& options);

/// Summary statistics of one size's samples (microseconds).
struct SweepStats {
  std::uint64_t n = 0;         ///< Samples.
  std::uint64_t outliers = 0;  ///< Samples above Q3 + 3 IQR (kept).
  double mean = 0;             ///< Mean.
  double min = 0;              ///< Smallest.
  double median = 0;           ///< Median.
  double q1 = 0;               ///< First quartile (linear interpolation).
  double q3 = 0;               ///< Third quartile (linear interpolation).
  double p99 = 0;              ///< 99th percentile (nearest rank).
  double max = 0;              ///< Largest.
  double ci_low = 0;           ///< Lower end of the median's confidence interval (an order statistic).
  double ci_high = 0;          ///< Upper end.
  double ci_level = 0;         ///< Its coverage: 0.95 or more, less only for fewer than 6 samples.
};

/// Summarises samples: quartiles, outliers beyond Q3 + 3 IQR, and the distribution-free confidence
/// interval of the median from binomial order statistics (the j-th and (n-j+1)-th smallest samples
/// with j the largest index whose binomial tail P(B <= j-1), B ~ Bin(n, 1/2), is at most 2.5%).
/// Empty input: every figure NaN and n = 0.
[[nodiscard]] SweepStats summarize_sweep_samples(std::vector<double> samples_us);

/// Run-to-run variability of one measurement over the passes of --repeat.
struct SweepVariability {
  std::vector<double> medians_us;  ///< The median of each pass.
  double cv = 0;         ///< Coefficient of variation of the medians (sample standard deviation / mean).
  double iqr_us = 0;     ///< Interquartile range of the medians.
  double median_us = 0;  ///< Median of the medians.
};

/// Variability of per-pass medians (at least two).
[[nodiscard]] SweepVariability sweep_variability(const std::vector<double>& medians_us);

/// What became of one measurement.
enum class SweepStatus : std::uint8_t {
  kOk,       ///< Measured: the statistics are valid.
  kFailed,   ///< An MPI call failed during it: `error` says which, on which rank; no statistics.
  kSkipped,  ///< Not attempted: an earlier size of the same op failed on the same pair or communicator.
};

/// `ok`, `failed` or `skipped`.
[[nodiscard]] std::string_view to_string(SweepStatus status) noexcept;

/// One measurement: an op at one size, communicator size and pair class, in one pass.
struct SweepRecord {
  SweepKind kind = SweepKind::kP2p;       ///< p2p, rma or collective.
  std::string op;                         ///< Op name.
  std::uint64_t size_bytes = 0;           ///< Message size (collectives: per rank).
  int ranks = 2;                          ///< Ranks taking part.
  std::string pair_class;                 ///< node, router or far; empty for collectives.
  std::uint64_t repeat = 0;               ///< Pass.
  SweepStats stats;                       ///< Summary of the valid samples.
  std::uint64_t invalid = 0;              ///< Calls discarded (--sync window: a rank started late).
  double bandwidth_mib_s = 0;             ///< Bandwidth ops: size / median, MiB/s (NaN otherwise).
  std::vector<double> samples_us;         ///< Every valid sample, with --samples.
  SweepStatus status = SweepStatus::kOk;  ///< Measured, failed or skipped (then `stats` is empty).
  std::string error;  ///< Failed: `rank N: MPI_Send: <MPI_Error_string>`; skipped: why not attempted.
};

/// A measurement the job could not make, reported instead of failing.
struct SweepSkip {
  std::string what;    ///< e.g. `pair class router` or `alltoall 1 MiB on 4096 ranks`.
  std::string reason;  ///< Why.
};

/// What world rank 0 reports (other ranks get an empty report but for `failed`).
struct SweepReport {
  Json context;                      ///< Context block.
  std::vector<SweepRecord> records;  ///< In measurement order.
  std::vector<SweepSkip> skipped;    ///< Measurements left out (pair classes, buffers too large).
  bool complete = true;              ///< False while the sweep runs (partial file: status cut_short).
  std::string reason;                ///< Why it is not complete (`in progress: 3 of 20 ops done`).
  std::uint64_t failed = 0;          ///< Failed records, on every rank (sets the exit code).
};

/// Exit code of a sweep that finished and wrote everything but with failed measurements.
inline constexpr int kSweepFailedExitCode = to_int(ExitCode::kMeasurementsFailed);

/// Runs the sweep collectively over `world`; rank 0 gets the report. Needs at least 2 ranks
/// (InputError on every rank otherwise); errors that depend on the job (an unwritable output, a
/// topology that does not know the node names) end every rank with CollectiveError. An MPI call
/// that fails inside a measurement is data: that record is `failed` with the error of the lowest
/// failing rank, the op's larger sizes on that pair or communicator are `skipped`, and the sweep
/// goes on. With --json, rank 0 rewrites the file (atomically, status cut_short) after every op.
[[nodiscard]] SweepReport run_sweep(const SweepOptions& options, MPI_Comm world);

/// Rank 0's output: the tables (one per op, communicator size and pair class) and the JSON file.
/// Collective over `world`; an error on rank 0 ends every rank with CollectiveError.
void write_sweep_outputs(const SweepOptions& options, const SweepReport& report, MPI_Comm world);

/// The JSON body (status, records, variability, skipped) of a report, without the context.
[[nodiscard]] Json sweep_json_body(const SweepOptions& options, const SweepReport& report);

}  // namespace gridlock::bench
