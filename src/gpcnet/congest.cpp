#include "gridlock/gpcnet/congest.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/options_json.hpp"
#include "gridlock/gpcnet/table.hpp"

namespace gridlock::gpcnet {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// MiB/s of `bytes` over `seconds` (NaN for an empty interval).
double rate(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / kMiB : std::nan(""); }

// A rate of all the ranks of `s` per rank (NaN without ranks).
double per_rank(double rate, const CongestSeries& s) {
  return s.totals.ranks > 0 ? rate / static_cast<double>(s.totals.ranks) : std::nan("");
}

// The per-rank MiB/s of every full interval of `s` (the last, shorter one when it is the only one).
std::vector<double> full_interval_rates(const CongestReport& report, const CongestSeries& s) {
  std::vector<double> rates;
  const std::size_t n = s.interval_bytes.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double length = congest_interval_length(report, i);
    if (s.totals.ranks > 0 && (length >= report.interval_s * (1 - 1e-9) || n == 1)) {
      rates.push_back(per_rank(rate(s.interval_bytes[i], length), s));
    }
  }
  return rates;
}

}  // namespace

std::string_view congest_stop_key(CongestStop stop) noexcept {
  switch (stop) {
    case CongestStop::kStopFile:
      return "stop-file";
    case CongestStop::kSignal:
      return "signal";
    case CongestStop::kCanaries:
      return "canaries";
    case CongestStop::kCanariesLost:
      return "canaries-lost";
    case CongestStop::kDuration:
      break;
  }
  return "duration";
}

CongestOptions split_congestor_options(const Options& load) {
  CongestOptions options;
  options.base = load;
  options.base.mode = Mode::kCongest;
  options.interval_s = 1.0;
  return options;
}

void finish_congest_options(CongestOptions& options, const OptionsText& base_text, const CongestText& text,
                            const std::set<std::string>& given) {
  options.base.mode = Mode::kCongest;
  finish_options(options.base, base_text, given);
  options.duration_s = parse_duration_seconds(text.duration, "--duration");
  options.interval_s = parse_duration_seconds(text.interval, "--interval");
  if (!(options.duration_s >= 0) || options.duration_s > kMaxRunSeconds) {
    throw InputError(fmt::format("--duration {}: give 0 (none) up to a week (168h)", text.duration));
  }
  if (options.duration_s == 0 && options.stop_file.empty()) {
    throw InputError(
        "gridlock-bench congest needs --duration T, --stop-file F or both (SIGTERM or SIGINT stop it too, "
        "but a run that only a signal ends would never end in a batch script)");
  }
  if (!(options.interval_s >= kMinCongestIntervalS) || options.interval_s > kMaxRunSeconds) {
    throw InputError(
        fmt::format("--interval {}: give at least {}s (e.g. 1s)", text.interval, kMinCongestIntervalS));
  }
  // A run stopped by a file or a signal has no planned end: rank 0 stops it at the last interval
  // (congest_time_limit_s()).
  if (options.duration_s / options.interval_s > static_cast<double>(kMaxCongestIntervals)) {
    throw InputError(
        fmt::format("--interval {} over --duration {} gives more than {} intervals: give a longer "
                    "--interval",
                    text.interval, text.duration, kMaxCongestIntervals));
  }
  if (!options.csv_path.empty() && options.csv_path == options.base.json_path) {
    throw InputError(
        fmt::format("--csv and --json are the same file '{}': give two paths", options.csv_path));
  }
}

double congest_time_limit_s(const CongestOptions& options) {
  const double intervals_limit = static_cast<double>(kMaxCongestIntervals) * options.interval_s;
  return std::min(options.duration_s > 0 ? options.duration_s : kMaxRunSeconds, intervals_limit);
}

double congest_interval_length(const CongestReport& report, std::size_t i) {
  const double start = static_cast<double>(i) * report.interval_s;
  return std::clamp(report.seconds - start, 0.0, report.interval_s);
}

void print_congest_tables(const CongestReport& report, std::FILE* out) {
  print_table_title(out, fmt::format("Congestor throughput per {}s interval", report.interval_s));
  fmt::print(out, "{}\n", kInnerBar);
  fmt::print(out, "| {:>31} | {:>12} | {:>12} | {:>12} |\n", "Name", "Avg", "99%", "Units");
  fmt::print(out, "{}\n", kInnerBar);
  for (const CongestSeries& s : report.congestors) {
    std::vector<double> rates = full_interval_rates(report, s);
    double sum = 0;
    for (const double r : rates) {
      sum += r;
    }
    const double avg = rates.empty() ? std::nan("") : sum / static_cast<double>(rates.size());
    std::sort(rates.begin(), rates.end());
    // Bandwidth's tail is the low side: the rate 99% of the intervals reach (the lower nearest rank
    // of the 1st percentile; with under 101 intervals, the slowest).
    const double tail = rates.empty()
                            ? std::nan("")
                            : rates[static_cast<std::size_t>(0.01 * static_cast<double>(rates.size() - 1))];
    const std::string name = fmt::format("{} ({} nodes)", congestor_title(s.totals.type), s.nodes);
    fmt::print(out, "| {:>31} | {} | {} | {:>12} |\n", name.substr(0, 31), table_cell(avg, 12),
               table_cell(tail, 12), "MiB/s/rank");
    fmt::print(out, "{}\n", kInnerBar);
  }
  double total = 0;
  for (const CongestSeries& s : report.congestors) {
    total += s.totals.mib_per_s_total;
  }
  fmt::print(out, "{:.1f} s in {} interval{}, stopped by {}; all congestors together {:.1f} MiB/s\n",
             report.seconds, report.congestors.empty() ? 0 : report.congestors.front().interval_bytes.size(),
             report.congestors.empty() || report.congestors.front().interval_bytes.size() != 1 ? "s" : "",
             congest_stop_key(report.stop), total);
  for (const std::string& note : report.notes) {
    fmt::print(out, "note: {}\n", note);
  }
  if (!report.error.empty()) {
    fmt::print(out, "error: split launch: {}\n", report.error);
  }
}

Json congest_body(const CongestReport& report) {
  Json congestors = Json::array();
  for (const CongestSeries& s : report.congestors) {
    Json series = Json::array();
    for (std::size_t i = 0; i < s.interval_bytes.size(); ++i) {
      const double length = congest_interval_length(report, i);
      series.push_back(Json{{"start_s", static_cast<double>(i) * report.interval_s},
                            {"seconds", length},
                            {"bytes", s.interval_bytes[i]},
                            {"mib_per_s_total", rate(s.interval_bytes[i], length)}});
    }
    congestors.push_back(Json{{"key", congestor_key(s.totals.type)},
                              {"title", congestor_title(s.totals.type)},
                              {"nodes", s.nodes},
                              {"ranks", s.totals.ranks},
                              {"iterations", s.totals.iterations},
                              {"bytes", s.totals.bytes},
                              {"mib_per_s_total", s.totals.mib_per_s_total},
                              {"mib_per_s_per_rank", s.totals.mib_per_s_per_rank},
                              {"intervals", std::move(series)}});
  }
  Json body{{"stop", congest_stop_key(report.stop)},
            {"seconds", report.seconds},
            {"interval_s", report.interval_s},
            {"congestors", std::move(congestors)},
            {"notes", report.notes}};
  // Only a split launch's congestor job has one, so the body of every other run stays as it was.
  if (!report.error.empty()) {
    body["error"] = report.error;
  }
  return body;
}

std::string congest_csv(const CongestReport& report) {
  CsvWriter csv(report.context, {"congestor", "interval", "start_s", "end_s", "ranks", "mib_per_s_total",
                                 "mib_per_s_per_rank"});
  for (const CongestSeries& s : report.congestors) {
    for (std::size_t i = 0; i < s.interval_bytes.size(); ++i) {
      const double start = static_cast<double>(i) * report.interval_s;
      const double length = congest_interval_length(report, i);
      const double total = rate(s.interval_bytes[i], length);
      csv.add_row({std::string(congestor_key(s.totals.type)), std::to_string(i), fmt::format("{:.6f}", start),
                   fmt::format("{:.6f}", start + length), std::to_string(s.totals.ranks),
                   fmt::format("{:.3f}", total), fmt::format("{:.3f}", per_rank(total, s))});
    }
  }
  return csv.content();
}

}  // namespace gridlock::gpcnet
