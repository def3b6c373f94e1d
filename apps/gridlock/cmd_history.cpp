// `gridlock history add|list|show|metrics|trend|regress`: the run history in SQLite
// (docs/model.md, "History"). Parses, calls gridlock::model, prints and writes the outputs.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/model/history.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct HistoryArgs {
  std::string db;
  std::string busy_timeout = "10s";
  bool quiet = false;
  std::vector<std::string> files;
  std::size_t last = 0;
  std::int64_t id = 0;
  bool json = false;
  std::string prefix;
  std::string metric;
  std::string csv;
  std::string baseline = "last:10";
  std::optional<std::int64_t> run;  // default: the newest
  std::vector<std::string> metrics;
  double threshold = 3.0;
  std::string min_change = "5%";
  bool all = false;
  bool fail_on_regression = false;
};

// Bounds of the numeric options (docs/limits.md).
constexpr std::size_t kMaxLast = 1'000'000'000;
constexpr double kMaxThreshold = 1e6;

void check_last(const HistoryArgs& a) {
  if (a.last > kMaxLast) {
    throw InputError(fmt::format("--last {}: give 0 (all runs) to {}", a.last, kMaxLast));
  }
}

model::History open_history(const HistoryArgs& a, bool create) {
  const double timeout_s = parse_duration_seconds(a.busy_timeout, "--busy-timeout");
  if (!(timeout_s >= 0) || timeout_s > 3600) {
    throw InputError(fmt::format("--busy-timeout {}: give 0 to 1h, e.g. --busy-timeout 30s", a.busy_timeout));
  }
  model::HistoryOptions options;
  options.busy_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(timeout_s * 1000)));
  options.create = create;
  // Only `add` writes: the other commands read a read-only database too.
  options.read_only = !create;
  return model::History(a.db, options);
}

void run_add(const HistoryArgs& a) {
  // Every file is read and checked before the database is touched: one bad file adds nothing.
  std::vector<model::ParsedResult> results;
  results.reserve(a.files.size());
  for (const std::string& file : a.files) {
    std::string text = read_input_file(file, "result file");
    results.push_back(model::parse_result(std::move(text), file));
    results.back().source = std::filesystem::absolute(file).lexically_normal().string();
  }
  model::History history = open_history(a, true);
  const model::AddReport report = history.add(results);
  for (std::size_t i = 0; i < report.runs.size(); ++i) {
    const model::AddedRun& run = report.runs[i];
    const model::ParsedResult& r = results[i];
    if (run.duplicate) {
      fmt::print("skipped {}: the same content is already stored as run {}\n", a.files[i], run.id);
      continue;
    }
    fmt::print("added run {}: {} ({}, {} metrics)\n", run.id, a.files[i],
               r.context.schema.empty() ? "no schema" : r.context.schema, run.metrics);
    for (const std::string& note : r.notes) {
      fmt::print("note: {}: {}\n", a.files[i], note);
    }
  }
  if (report.busy_waits > 0 && !a.quiet) {
    fmt::print(stderr, "gridlock history: waited {} times for another writer's lock on {}\n",
               report.busy_waits, a.db);
  }
}

void run_list(const HistoryArgs& a) {
  check_last(a);
  const model::History history = open_history(a, false);
  const std::vector<model::RunSummary> runs = history.list(a.last);
  fmt::print("{}", model::list_table(runs));
  fmt::print("{} of {} runs in {}\n", runs.size(), history.count(), a.db);
}

void run_show(const HistoryArgs& a) {
  if (a.id < 1) {
    throw InputError(fmt::format("run id {}: run ids start at 1; `gridlock history list` shows them", a.id));
  }
  const model::History history = open_history(a, false);
  const std::optional<model::StoredRun> run = history.get(a.id);
  if (!run) {
    throw InputError(fmt::format(
        "history database '{}' has no run {}; `gridlock history list` shows the runs", a.db, a.id));
  }
  if (a.json) {
    fmt::print("{}", run->json);
    if (!run->json.empty() && run->json.back() != '\n') {
      fmt::print("\n");
    }
    return;
  }
  fmt::print("{}", model::run_summary_text(*run));
}

void run_metrics(const HistoryArgs& a) {
  const model::History history = open_history(a, false);
  const auto names = history.metric_names(a.prefix);
  fmt::print("| metric | runs | better |\n| --- | --- | --- |\n");
  for (const auto& [name, runs] : names) {
    fmt::print("| {} | {} | {} |\n", name, runs, model::direction_name(history.direction(name)));
  }
  fmt::print("{} metrics{}\n", names.size(),
             a.prefix.empty() ? "" : fmt::format(" starting with '{}'", a.prefix));
}

void run_trend(const HistoryArgs& a) {
  check_last(a);
  if (!a.csv.empty()) {
    check_output_not_input(a.csv, "--csv", {a.db});
    check_writable(a.csv);
  }
  const std::string metric = model::canonical_metric_name(a.metric);
  const model::History history = open_history(a, false);
  const std::vector<model::TrendPoint> points = history.trend(metric, a.last);
  if (points.empty()) {
    throw InputError(
        fmt::format("no run in '{}' has metric '{}'; `gridlock history metrics PREFIX` lists the "
                    "stored names (docs/model.md, \"Metric names\")",
                    a.db, metric));
  }
  // The CSV first: a closed standard output (`| head`) must not lose it.
  if (!a.csv.empty()) {
    write_file_atomic(a.csv, model::trend_csv(a.db, metric, history.direction(metric), a.last, points));
  }
  fmt::print("{}", model::trend_table(metric, points));
}

void run_regress(const HistoryArgs& a) {
  model::RegressOptions options;
  options.baseline = model::parse_baseline(a.baseline);
  if (!(a.threshold > 0) || a.threshold > kMaxThreshold) {
    throw InputError(
        fmt::format("--threshold {}: give a positive number of robust standard deviations up to {:g}, e.g. 3",
                    a.threshold, kMaxThreshold));
  }
  options.threshold = a.threshold;
  options.min_change = model::parse_min_change(a.min_change);
  if (a.run.has_value()) {
    // --run 0 or -1 used to check the newest run as if --run had been left out.
    if (*a.run < 1) {
      throw InputError(
          fmt::format("--run {}: run ids start at 1; `gridlock history list` shows them", *a.run));
    }
    options.run = *a.run;
  }
  for (const std::string& m : a.metrics) {
    options.metrics.push_back(model::canonical_metric_name(m));
  }
  const model::History history = open_history(a, false);
  const model::RegressReport report = history.regress(options);
  fmt::print("{}", model::regress_table(report, a.all));
  if (a.fail_on_regression && report.regressions() > 0) {
    throw Error(
        fmt::format("run {}: {} metrics regressed (--fail-on-regression)", report.run, report.regressions()));
  }
}

CLI::App* add_history_subcommand(CLI::App* history, const std::shared_ptr<HistoryArgs>& args,
                                 const char* name, const char* description) {
  auto* cmd = history->add_subcommand(name, description);
  cmd->add_option("--db", args->db, "History database (SQLite); default: $GRIDLOCK_HISTORY_DB")
      ->envname("GRIDLOCK_HISTORY_DB")
      ->required();
  cmd->add_option("--busy-timeout", args->busy_timeout,
                  "How long to wait for another writer's lock before giving up (e.g. 10s)")
      ->capture_default_str();
  return cmd;
}

}  // namespace

void add_history_command(CLI::App& app) {
  auto args = std::make_shared<HistoryArgs>();
  auto* history = app.add_subcommand(
      "history",
      "Store gridlock results in an SQLite run history; trends and regression checks (docs/model.md)");
  history->require_subcommand(1);

  auto* add = add_history_subcommand(
      history, args, "add", "Store result files (any gridlock JSON output) with their context and metrics");
  add->add_option("files", args->files, "Result JSON files")->required();
  add->add_flag("-q,--quiet", args->quiet, "No note on lock waits");
  add->callback([args] { run_add(*args); });

  auto* list = add_history_subcommand(history, args, "list", "List the stored runs");
  list->add_option("--last", args->last, "Only the newest N runs (0: all; at most 10^9)")
      ->capture_default_str();
  list->callback([args] { run_list(*args); });

  auto* show = add_history_subcommand(history, args, "show", "Show one run: its context and metrics");
  show->add_option("id", args->id, "Run id (see list)")->required();
  show->add_flag("--json", args->json, "Print the stored JSON as it was added");
  show->callback([args] { run_show(*args); });

  auto* metrics = add_history_subcommand(history, args, "metrics", "List the stored metric names");
  metrics->add_option("prefix", args->prefix, "Only names starting with this, e.g. sweep.allreduce");
  metrics->callback([args] { run_metrics(*args); });

  auto* trend = add_history_subcommand(history, args, "trend", "One metric over the runs, oldest first");
  trend->add_option("--metric", args->metric, "Metric name, e.g. sweep.allreduce.1MiB.median")->required();
  trend->add_option("--last", args->last, "Only the newest N runs (0: all; at most 10^9)")
      ->capture_default_str();
  trend->add_option("--csv", args->csv, "Also write the trend as CSV (with a context block)");
  output_file(trend->get_option("--csv"));
  trend->callback([args] { run_trend(*args); });

  auto* regress = add_history_subcommand(
      history, args, "regress",
      "Flag a run's metrics outside the baseline's distribution (robust z-score and minimal change)");
  regress->add_option("--baseline", args->baseline, "Baseline runs: last:N (N >= 3) or all")
      ->capture_default_str();
  regress->add_option("--run", args->run, "Run to check (default: the newest)");
  regress->add_option("--metric", args->metrics,
                      "Only these metrics (repeatable; default: all of the run's)");
  regress->add_option("--threshold", args->threshold, "k: flag when |x - median| > k x 1.4826 x MAD")
      ->capture_default_str();
  regress->add_option("--min-change", args->min_change, "And when |x - median| / |median| exceeds this")
      ->capture_default_str();
  regress->add_flag("--all", args->all, "Print every metric, not only the flagged ones");
  regress->add_flag("--fail-on-regression", args->fail_on_regression,
                    "Exit with code 1 when a metric is worse (or changed with no known direction)");
  regress->callback([args] { run_regress(*args); });
}

}  // namespace gridlock::cli
