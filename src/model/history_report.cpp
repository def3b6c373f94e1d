// Text tables of the history, in the `| name | ... |` layout of the other tools.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/output.hpp"
#include "gridlock/model/history.hpp"

namespace gridlock::model {
namespace {

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string number(double v) {
  if (std::isnan(v)) {
    return "-";
  }
  if (std::isinf(v)) {
    return v > 0 ? "inf" : "-inf";
  }
  // Whole numbers (picoseconds, counts, costs) in full; others to 6 significant digits.
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    return fmt::format("{:.0f}", v);
  }
  return fmt::format("{:.6g}", v);
}

std::string percent(double change) {
  if (std::isinf(change)) {
    return change > 0 ? "+inf" : "-inf";
  }
  return fmt::format("{:+.1f}%", 100.0 * change);
}

// The first line of an MPI library string is long ("Open MPI v4.1.4, package: ..."): its start names it.
std::string short_mpi(const std::string& mpi) {
  const std::size_t comma = mpi.find(',');
  return or_dash(comma == std::string::npos ? mpi : mpi.substr(0, comma));
}

}  // namespace

std::string list_table(const std::vector<RunSummary>& runs) {
  std::string out =
      "| id | date | schema | tool | host | mpi | version | git | seed | metrics | file |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const RunSummary& r : runs) {
    const RunContext& c = r.context;
    out += fmt::format("| {} | {} | {} | {}{} | {} | {} | {} | {} | {} | {} | {} |\n", r.id, or_dash(c.date),
                       or_dash(c.schema), or_dash(c.tool), c.mode.empty() ? "" : " " + c.mode,
                       or_dash(c.host), short_mpi(c.mpi_library), or_dash(c.gridlock_version),
                       or_dash(c.git_commit), c.seed ? std::to_string(*c.seed) : "-", r.metrics, r.source);
  }
  return out;
}

std::string run_summary_text(const StoredRun& run) {
  const RunSummary& r = run.summary;
  const RunContext& c = r.context;
  std::string out = fmt::format("run {}: {} (added {})\n", r.id, r.source, r.added);
  out += fmt::format("schema: {} version {}; tool: {}{}\n", or_dash(c.schema), c.schema_version,
                     or_dash(c.tool), c.mode.empty() ? "" : " (" + c.mode + ")");
  out += fmt::format("date: {}; host: {}; ranks: {}; seed: {}\n", or_dash(c.date), or_dash(c.host),
                     c.ranks ? std::to_string(*c.ranks) : "-", c.seed ? std::to_string(*c.seed) : "-");
  out += fmt::format("mpi: {}\n", or_dash(c.mpi_library));
  out += fmt::format("gridlock: {} (commit {}); {} bytes of JSON (`history show {} --json`)\n",
                     or_dash(c.gridlock_version), or_dash(c.git_commit), run.json.size(), r.id);
  if (!r.notes.empty()) {
    out += fmt::format("note: {}\n", r.notes);
  }
  out += fmt::format("\n| metric | value | better |\n| --- | --- | --- |\n");
  for (const Metric& m : run.metrics) {
    out += fmt::format("| {} | {} | {} |\n", m.name, number(m.value), direction_name(m.better));
  }
  return out;
}

std::string trend_csv(const std::filesystem::path& db, std::string_view metric, Direction better,
                      std::size_t last, const std::vector<TrendPoint>& points) {
  Json context = base_context("gridlock history trend", schemas::kHistoryTrend);
  context["db"] = std::filesystem::absolute(db).lexically_normal().string();
  context["metric"] = metric;
  context["better"] = direction_name(better);
  context["parameters"] = {{"last", last}};
  CsvWriter csv(context, {"run_id", "date", "host", "value"});
  for (const TrendPoint& p : points) {
    csv.add_row({std::to_string(p.run_id), p.date, p.host, fmt::format("{:.17g}", p.value)});
  }
  return csv.content();
}

std::string trend_table(std::string_view metric, const std::vector<TrendPoint>& points) {
  std::string out = fmt::format("| run | date | host | {} |\n| --- | --- | --- | --- |\n", metric);
  std::vector<double> values;
  values.reserve(points.size());
  for (const TrendPoint& p : points) {
    out +=
        fmt::format("| {} | {} | {} | {} |\n", p.run_id, or_dash(p.date), or_dash(p.host), number(p.value));
    values.push_back(p.value);
  }
  if (!values.empty()) {
    const double median = median_of(values);
    out += fmt::format("{} run{}; median {}, MAD {}, min {}, max {}\n", values.size(),
                       values.size() == 1 ? "" : "s", number(median), number(mad_of(values, median)),
                       number(*std::min_element(values.begin(), values.end())),
                       number(*std::max_element(values.begin(), values.end())));
  }
  return out;
}

std::string regress_table(const RegressReport& report, bool all_rows) {
  std::string out = report.test_description() + "\n\n";
  out +=
      "| metric | baseline median | MAD | runs | value | change | robust z | verdict |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::size_t skipped = 0;
  std::size_t flagged = 0;
  for (const RegressRow& r : report.rows) {
    if (r.skipped) {
      ++skipped;
      if (!all_rows) {
        continue;
      }
      out += fmt::format("| {} | - | - | {} | {} | - | - | skipped |\n", r.metric, r.baseline_runs,
                         number(r.value));
      continue;
    }
    flagged += r.flagged ? 1 : 0;
    if (!all_rows && !r.flagged) {
      continue;
    }
    out +=
        fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", r.metric, number(r.median), number(r.mad),
                    r.baseline_runs, number(r.value), percent(r.change), number(r.robust_z), r.verdict());
  }
  out += fmt::format("{} metrics: {} flagged ({} regressions), {} skipped (fewer than {} baseline values)\n",
                     report.rows.size(), flagged, report.regressions(), skipped, report.options.min_baseline);
  return out;
}

}  // namespace gridlock::model
