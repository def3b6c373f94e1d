#pragma once
/// @file
/// The run history: gridlock result files stored in an SQLite database with their context and
/// named metrics, for trends over time and regression checks against a baseline (docs/model.md,
/// "History").

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gridlock::model {

/// The version of the database layout this gridlock writes; older databases are migrated on open.
inline constexpr int kHistorySchemaVersion = 4;

/// `PRAGMA application_id` of a history database ("GLHS"): a database with another id is refused.
inline constexpr std::int32_t kHistoryApplicationId = 0x474C4853;

/// Which direction of a metric is good.
enum class Direction { kUnknown, kLower, kHigher };

/// "lower", "higher" or "unknown".
[[nodiscard]] std::string_view direction_name(Direction direction) noexcept;

/// One named number taken from a result file (docs/model.md, "Metric names").
struct Metric {
  std::string name;                        ///< e.g. `sweep.allreduce.1MiB.median`.
  double value = 0;                        ///< In the unit the name implies (us, MiB/s, ...).
  Direction better = Direction::kUnknown;  ///< Which way is good, when known.
};

/// The context block fields the history keeps in columns (the rest stays in the stored JSON).
struct RunContext {
  std::string schema;                  ///< e.g. `gridlock.sweep`; "" when the context has none.
  int schema_version = 0;              ///< The result format's version; 0 when absent.
  std::string tool;                    ///< e.g. `gridlock-bench sweep`.
  std::string mode;                    ///< `load` / `network` for gridlock.bench; else "".
  std::string host;                    ///< Host of the run (rank 0).
  std::string date;                    ///< UTC, ISO 8601, as the file says.
  std::string mpi_library;             ///< MPI library version line; "" when the tool used none.
  std::string gridlock_version;        ///< Version of the tool that wrote the file.
  std::string git_commit;              ///< Its git commit.
  std::optional<std::uint64_t> seed;   ///< The run's seed, when it has one.
  std::optional<std::uint64_t> ranks;  ///< MPI ranks (`ranks` or `mpi_ranks`), when given.
};

/// A result file read and checked, ready to be stored.
struct ParsedResult {
  std::string source;              ///< Where it came from (the path as given), for messages.
  std::string json;                ///< The file's text, stored as is.
  std::uint64_t content_hash = 0;  ///< FNV-1a 64 of `json`: finds the same file added twice.
  RunContext context;              ///< Columns taken from the context block.
  std::vector<Metric> metrics;     ///< Named numbers; names are unique, in name order.
  std::vector<std::string> notes;  ///< e.g. "unknown schema 'x': stored without metrics".
};

/// Reads a result file's text: throws InputError naming `source` when it is not JSON, not an
/// object, or has no `context` object ("not a gridlock result"), or when a known schema's body is
/// malformed. Unknown schemas are accepted with no metrics and a note.
[[nodiscard]] ParsedResult parse_result(std::string json, std::string source);

/// The metric names of one parsed result's document, for tests and tools; see parse_result().
[[nodiscard]] std::vector<Metric> result_metrics(std::string_view json, std::string_view source);

/// The canonical size label of a metric name: the largest of GiB, MiB, KiB that divides
/// `bytes` exactly, else bytes: `0B`, `8B`, `1536B`, `8KiB`, `1MiB`, `3MiB`.
[[nodiscard]] std::string size_label(std::uint64_t bytes);

/// A metric name as the history stores it: size parts of `sweep.` names written in any form
/// parse_byte_size() accepts (`1M`, `1048576`, `1024KiB`) become size_label()'s. Throws
/// InputError on an empty name or empty parts.
[[nodiscard]] std::string canonical_metric_name(std::string_view name);

/// The direction of a metric from its name alone (the last part: latencies and times lower,
/// `bw_mib_s` higher, ...); kUnknown when the name does not tell.
[[nodiscard]] Direction direction_from_name(std::string_view name) noexcept;

/// 64-bit FNV-1a of `bytes`.
[[nodiscard]] std::uint64_t fnv1a64(std::string_view bytes) noexcept;

/// How to open a history database.
struct HistoryOptions {
  /// How long a writer waits for another writer's lock before giving up with an error.
  std::chrono::milliseconds busy_timeout{10000};
  /// Create the database when the file does not exist (or is empty); else that is an error.
  bool create = false;
  /// Open for reading only (list, show, metrics, trend, regress): a read-only file, or one in a
  /// read-only directory, can be read. A database that needs creating or migrating first is then
  /// opened for writing as without this option, if it can be; otherwise an InputError says so.
  bool read_only = false;
};

/// What add() did with one result.
struct AddedRun {
  std::string source;       ///< The result's source.
  std::int64_t id = 0;      ///< Its run id (the existing one for a duplicate).
  bool duplicate = false;   ///< Already stored (same content): skipped.
  std::size_t metrics = 0;  ///< Metrics stored (0 for a duplicate).
};

/// What add() did with a batch.
struct AddReport {
  std::vector<AddedRun> runs;    ///< One per result, in order.
  std::uint64_t busy_waits = 0;  ///< Times this connection waited for another writer's lock.
};

/// One row of list().
struct RunSummary {
  std::int64_t id = 0;      ///< Run id, increasing in order of adding.
  std::string added;        ///< When it was added (UTC, ISO 8601).
  std::string source;       ///< The file it came from (absolute path when added by the CLI).
  RunContext context;       ///< Its context columns.
  std::size_t metrics = 0;  ///< Number of metrics stored.
  std::string notes;        ///< Notes from adding, joined by "; ".
};

/// A stored run: its summary, its metrics and the JSON as added.
struct StoredRun {
  RunSummary summary;           ///< As in list().
  std::vector<Metric> metrics;  ///< In name order.
  std::string json;             ///< The file's text.
};

/// One point of a trend.
struct TrendPoint {
  std::int64_t run_id = 0;  ///< The run.
  std::string date;         ///< The run's date (from its context block).
  std::string host;         ///< The run's host.
  double value = 0;         ///< The metric's value.
};

/// The runs a regression check compares against.
struct Baseline {
  /// Runs before the candidate that have the metric: the last `last` of them (0: all).
  std::size_t last = 10;
};

/// Parses `--baseline`: `last:N` (N >= 3) or `all`. Throws InputError.
[[nodiscard]] Baseline parse_baseline(std::string_view text);

/// Parses `--min-change`: a percentage from 0 to 1000 with an optional `%` ("5%", "2.5"), as a
/// fraction (0.05, 0.025). Throws InputError.
[[nodiscard]] double parse_min_change(std::string_view text);

/// Options of regress().
struct RegressOptions {
  std::optional<std::int64_t> run;   ///< The candidate run; default: the newest.
  std::vector<std::string> metrics;  ///< Only these (canonical names); empty: all of the candidate's.
  Baseline baseline;                 ///< The runs compared against.
  double threshold = 3.0;            ///< k of |x - median| > k * 1.4826 * MAD.
  double min_change = 0.05;          ///< Minimal relative change |x - median| / |median|.
  std::size_t min_baseline = 3;      ///< Fewer baseline values: the metric is skipped.
};

/// The verdict on one metric.
struct RegressRow {
  std::string metric;             ///< Its name.
  double value = 0;               ///< The candidate's value.
  std::size_t baseline_runs = 0;  ///< Baseline values found.
  double median = 0;              ///< Baseline median.
  double mad = 0;                 ///< Baseline median absolute deviation (unscaled).
  double robust_z = 0;            ///< (x - median) / (1.4826 MAD); +-inf when MAD is 0 and x differs.
  double change = 0;              ///< (x - median) / |median|; +-inf when the median is 0 and x differs.
  Direction better = Direction::kUnknown;  ///< The metric's direction.
  bool skipped = false;                    ///< Too few baseline values: no verdict.
  bool flagged = false;                    ///< Outside the baseline's distribution by both tests.
  /// "ok", "better", "worse", "changed" (flagged, direction unknown) or "skipped".
  [[nodiscard]] std::string_view verdict() const noexcept;
  /// True for a flagged metric that is worse, or changed with no known direction.
  [[nodiscard]] bool regression() const noexcept;
};

/// The result of regress().
struct RegressReport {
  std::int64_t run = 0;          ///< The candidate run.
  RegressOptions options;        ///< As used.
  std::vector<RegressRow> rows;  ///< One per metric, in name order.
  /// Number of rows that are regressions.
  [[nodiscard]] std::size_t regressions() const noexcept;
  /// One line stating the test and threshold, for the report's head.
  [[nodiscard]] std::string test_description() const;
};

/// An open history database. Not thread-safe: one object per thread (SQLite serialises writers
/// across connections and processes).
class History {
 public:
  /// Opens (or, with options.create, creates) the database at `path`: sets WAL mode and the busy
  /// timeout, refuses a file that is not SQLite, a database of another application or schema, or
  /// one written by a newer gridlock, and migrates an older layout. Throws IoError / InputError
  /// naming the file.
  explicit History(const std::filesystem::path& path, HistoryOptions options = {});
  History(const History&) = delete;
  History& operator=(const History&) = delete;
  /// Movable.
  History(History&&) noexcept;
  /// Movable.
  History& operator=(History&&) noexcept;
  /// Closes the database.
  ~History();

  /// The database file.
  [[nodiscard]] const std::filesystem::path& path() const noexcept;
  /// The layout version of the open database (kHistorySchemaVersion after open).
  [[nodiscard]] int schema_version() const;
  /// The layout version the database had when opened (before migration).
  [[nodiscard]] int opened_schema_version() const noexcept;

  /// Stores `results` in one transaction (all or none); a result whose text is already stored is
  /// skipped and reported as a duplicate. Throws IoError when the lock is held beyond the timeout.
  [[nodiscard]] AddReport add(const std::vector<ParsedResult>& results);
  /// The newest `limit` runs (0: all), oldest first.
  [[nodiscard]] std::vector<RunSummary> list(std::size_t limit = 0) const;
  /// Number of runs stored.
  [[nodiscard]] std::size_t count() const;
  /// One run, or nullopt.
  [[nodiscard]] std::optional<StoredRun> get(std::int64_t id) const;
  /// Every value of `metric` (a canonical name), oldest run first; the last `limit` (0: all).
  [[nodiscard]] std::vector<TrendPoint> trend(std::string_view metric, std::size_t limit = 0) const;
  /// The distinct metric names stored that start with `prefix`, with their run counts.
  [[nodiscard]] std::vector<std::pair<std::string, std::size_t>> metric_names(std::string_view prefix) const;
  /// The direction recorded for `metric` when it was added, else direction_from_name().
  [[nodiscard]] Direction direction(std::string_view metric) const;
  /// Flags the candidate's metrics outside the baseline's distribution (robust z-score and
  /// minimal relative change, both required). Throws InputError when there is no run.
  [[nodiscard]] RegressReport regress(const RegressOptions& options) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The list as a text table `| id | date | schema | host | ... |`.
[[nodiscard]] std::string list_table(const std::vector<RunSummary>& runs);
/// A run's summary: context lines and its metrics as a table.
[[nodiscard]] std::string run_summary_text(const StoredRun& run);
/// A trend as a text table `| run | date | host | value |` with its median and MAD.
[[nodiscard]] std::string trend_table(std::string_view metric, const std::vector<TrendPoint>& points);
/// A trend as CSV (`gridlock history trend --csv`, docs/model.md): a context block naming the
/// database `db` (made absolute), the metric, which way is `better` and `last` (the runs asked for,
/// 0: all), then `run_id,date,host,value` rows, values to 17 significant digits.
[[nodiscard]] std::string trend_csv(const std::filesystem::path& db, std::string_view metric,
                                    Direction better, std::size_t last,
                                    const std::vector<TrendPoint>& points);
/// A regression report as text: the test, then `| metric | baseline median | ... | verdict |` for
/// the flagged metrics (every metric with `all_rows`), then the counts.
[[nodiscard]] std::string regress_table(const RegressReport& report, bool all_rows = false);

/// The median of `values` (NaN when empty); `values` is reordered.
[[nodiscard]] double median_of(std::vector<double> values);
/// The median absolute deviation from `median` (unscaled).
[[nodiscard]] double mad_of(const std::vector<double>& values, double median);

}  // namespace gridlock::model
