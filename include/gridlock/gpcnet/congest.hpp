#pragma once
/// @file
/// `gridlock-bench congest` (docs/gridlock-bench.md, "Congestors for another job"): the GPCNeT
/// congestors alone, on every node of the job, for a time, until a stop file appears or until
/// SIGTERM/SIGINT, as the load a user puts beside their own application. What the run measures:
/// each congestor type's throughput in every interval of the run. The MPI-free part: options,
/// results, the table, the JSON body and the CSV; gridlock::bench runs it (bench/congest.hpp).
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/results.hpp"

namespace gridlock::gpcnet {

/// Shortest --interval: a bin must hold several stop checks of the slowest congestor.
inline constexpr double kMinCongestIntervalS = 0.01;
/// Most intervals a run may record (--duration / --interval): every rank reduces 8 bytes per
/// interval and congestor type (at most 4 MB with all five types).
inline constexpr std::uint64_t kMaxCongestIntervals = 100'000;

/// Why a congest run ended.
enum class CongestStop : std::uint8_t {
  kDuration,  ///< --duration elapsed.
  kStopFile,  ///< The --stop-file appeared.
  kSignal,    ///< Rank 0 received SIGTERM or SIGINT.
  kCanaries,  ///< A split launch's canary job said stop (split_launch.hpp).
  /// A split launch's canary job stopped beating or gave the directory to another run: the
  /// congestor job ends with an error (CongestReport::error).
  kCanariesLost,
};

/// `duration`, `stop-file`, `signal`, `canaries` or `canaries-lost`.
[[nodiscard]] std::string_view congest_stop_key(CongestStop stop) noexcept;

/// Everything that controls a congest run.
struct CongestOptions {
  /// Node layout, NICs, congestor types and sizes, warm-up and check counts, seed, --json, -q and -v
  /// (mode kCongest; the canary options are unused).
  Options base;
  double duration_s = 0;  ///< Stop after this long (0: only the stop file or a signal stops it).
  std::string stop_file;  ///< Stop when this path exists (empty: none).
  double interval_s = 1;  ///< Width of a throughput interval.
  std::string csv_path;   ///< `--csv FILE`: one row per congestor and interval (empty: none).
};

/// The text options of `congest` that need converting.
struct CongestText {
  std::string duration = "0";   ///< --duration.
  std::string interval = "1s";  ///< --interval.
};

/// Completes `options` after parsing (the gpcnet options as finish_options(), then --duration and
/// --interval) and checks them: a duration, a stop file or both (a signal alone would leave a run
/// nobody stops in a batch script), at most kMaxCongestIntervals intervals in --duration. Throws
/// InputError naming the option.
void finish_congest_options(CongestOptions& options, const OptionsText& base_text, const CongestText& text,
                            const std::set<std::string>& given);

/// One congestor type's throughput over the run.
struct CongestSeries {
  /// Kernel, ranks, iterations, bytes and throughput over the whole run, as load mode reduces them.
  CongestorResult totals;
  std::uint64_t nodes = 0;  ///< Nodes that ran it.
  /// Bytes injected by all its ranks in interval i ([i x interval, (i + 1) x interval) after the
  /// common start; the last one ends with the run).
  std::vector<double> interval_bytes;
};

/// A congest run as seen by rank 0.
struct CongestReport {
  Json context;                               ///< Context block (tool, MPI, ranks, nodes, seed, ...).
  CongestStop stop = CongestStop::kDuration;  ///< What ended it.
  double seconds = 0;                         ///< From the common start to the stop (rank 0's clock).
  double interval_s = 1;                      ///< Width of an interval.
  std::vector<CongestSeries> congestors;      ///< One per type, in --congestors order.
  std::vector<std::string> notes;             ///< Warnings (another job's ranks on our nodes, ...).
  /// A split launch's congestor job: why the canary job was lost (stop kCanariesLost); the report
  /// is written, and the run ends with exit code 1.
  std::string error;
};

/// The congest run of a split launch's congestor job (`gridlock-bench load --role congestors`):
/// `load`'s congestors, sizes, node, NIC and output options, stopped by the canary job (no
/// --duration, no stop file), throughput in 1 s intervals.
[[nodiscard]] CongestOptions split_congestor_options(const Options& load);

/// When rank 0 stops a run at the latest: --duration, else a week or kMaxCongestIntervals
/// intervals, whichever is shorter (a forgotten stop file must not run for ever).
[[nodiscard]] double congest_time_limit_s(const CongestOptions& options);

/// Length of interval `i` of `report`: interval_s, the last one shorter.
[[nodiscard]] double congest_interval_length(const CongestReport& report, std::size_t i);

/// Prints the table (`| name | avg | 99% | units |`: per interval, MiB/s per rank; 99% is the
/// value 99% of the full intervals reach, as GPCNeT's bandwidth tails), the totals and the notes.
void print_congest_tables(const CongestReport& report, std::FILE* out);

/// The JSON body: stop reason, seconds, interval, and per congestor its totals and series.
[[nodiscard]] Json congest_body(const CongestReport& report);

/// The CSV: the context block, then `congestor,interval,start_s,end_s,ranks,mib_per_s_total,
/// mib_per_s_per_rank`, one row per congestor and interval.
[[nodiscard]] std::string congest_csv(const CongestReport& report);

}  // namespace gridlock::gpcnet
