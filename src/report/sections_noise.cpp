// Noise sections (Hoefler et al., SC'10): gridlock-bench noise (per-node table, outlier nodes),
// gridlock noise measure (the detour summary) and gridlock noise traces (detour time series and
// length histogram).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report::detail {
namespace {

// Points per detour chart at most: a trace may list a million detours; the page stays small
// (issue 27: a demo report under 2 MB), and the tallest detour of each time slot is kept.
constexpr std::size_t kMaxTracePoints = 2000;

std::string percent(const Json& fraction) {
  return fraction.is_number() ? fmt::format("{:.4f}%", 100.0 * fraction.get<double>()) : "-";
}

void detour_summary_rows(Table& table, const std::string& label, const Json& s) {
  table.row({label, format_cell(field(s, "count")), format_number(field(s, "min")),
             format_number(field(s, "median")), format_number(field(s, "p99")),
             format_number(field(s, "p99_9")), format_number(field(s, "max"))});
}

}  // namespace

Section bench_noise_section(const Json& document) {
  Section s;
  s.title = "gridlock-bench noise: noise per node";
  const Json& nodes = field(document, "nodes");
  if (!nodes.is_array() || nodes.empty()) {
    s.notes.emplace_back("This result lists no nodes: nothing to chart.");
    return s;
  }
  Table table("Noise per node (selfish detour; OUTLIER: noise avg > median + k x MAD over nodes)",
              {"node", "ranks", "noise avg", "noise max", "detours/s", "99% detour (ns)", "max detour (ns)",
               "outlier"});
  Json chart = make_chart("bar", "Noise fraction per node", "node", "noise fraction (%)");
  Json avg = Json::array();
  Json max = Json::array();
  Json labels = Json::array();
  Json outliers = Json::array();
  for (const Json& n : nodes) {
    const bool outlier = field(n, "outlier").is_boolean() && field(n, "outlier").get<bool>();
    table.row({text(n, "name"), format_cell(field(n, "ranks")), percent(field(n, "noise_fraction")),
               percent(field(n, "max_noise_fraction")), format_number(field(n, "detours_per_s")),
               format_number(field(n, "p99_detour_ns")), format_number(field(n, "max_detour_ns")),
               outlier ? "OUTLIER" : ""});
    labels.push_back(text(n, "name") + (outlier ? " (outlier)" : ""));
    avg.push_back(finite_or_null(100.0 * number(n, "noise_fraction").value_or(NAN)));
    max.push_back(finite_or_null(100.0 * number(n, "max_noise_fraction").value_or(NAN)));
    if (outlier) {
      outliers.push_back(text(n, "name"));
    }
  }
  chart["labels"] = labels;
  add_series(chart, "noise avg (ranks of the node)", std::move(avg));
  add_series(chart, "noise max (worst rank)", std::move(max));
  if (const auto threshold = number(document, "outlier_threshold")) {
    chart["reference"] = 100.0 * *threshold;
    chart["reference_label"] = "outlier threshold";
  }
  s.body_html += table.html();
  s.body_html += fmt::format(
      "<p>Median noise fraction {}, MAD {}, outlier threshold {}: {} node(s) flagged.</p>\n",
      percent(field(document, "median_noise_fraction")), percent(field(document, "mad_noise_fraction")),
      percent(field(document, "outlier_threshold")), outliers.size());
  s.data["outlier_nodes"] = std::move(outliers);
  s.data["charts"] = Json::array({std::move(chart)});
  for (const Json& w : field(document, "warnings")) {
    if (w.is_string()) {
      s.notes.push_back(w.get<std::string>());
    }
  }
  return s;
}

Section noise_measure_section(const Json& document) {
  Section s;
  s.title = "gridlock noise measure: selfish detour on one core";
  Table summary("Summary", {"t_min (ns)", "sampling rate (MHz)", "measured (s)", "detours", "detours/s",
                            "noise fraction", "noise without outliers"});
  summary.row({format_number(field(document, "t_min_ns")),
               number(document, "sampling_rate_hz")
                   ? format_number(*number(document, "sampling_rate_hz") / 1e6)
                   : "-",
               format_number(field(document, "measured_s")), format_cell(field(document, "detours")),
               format_number(field(document, "detours_per_s")), percent(field(document, "noise_fraction")),
               percent(field(document, "noise_fraction_without_outliers"))});
  s.body_html += summary.html();
  Table lengths("Detour lengths (ns)", {"detours", "count", "min", "median", "99%", "99.9%", "max"});
  detour_summary_rows(lengths, "all", field(document, "detour_length_ns"));
  detour_summary_rows(lengths, "without outliers", field(document, "detour_length_without_outliers_ns"));
  s.body_html += lengths.html();
  Json chart = make_chart("bar", "Detour length percentiles", "statistic", "detour length (ns, log scale)");
  chart["labels"] = Json::array({"min", "median", "mean", "99%", "99.9%", "max"});
  chart["y"]["log"] = true;
  for (const auto& [label, key] : {std::pair<const char*, const char*>{"all detours", "detour_length_ns"},
                                   {"without outliers", "detour_length_without_outliers_ns"}}) {
    Json values = Json::array();
    for (const char* stat : {"min", "median", "mean", "p99", "p99_9", "max"}) {
      values.push_back(field(field(document, key), stat));
    }
    add_series(chart, label, std::move(values));
  }
  s.data["charts"] = Json::array({std::move(chart)});
  s.notes.emplace_back(
      "The JSON holds the summary only: give the --trace file of the same run to `gridlock report` for the "
      "detour time series and histogram.");
  return s;
}

Section noise_trace_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  s.title =
      fmt::format("Noise trace: detours over time{}",
                  context.contains("rank") ? fmt::format(" (rank {})", format_cell(context["rank"])) : "");
  const Json& detours = field(document, "detours");
  const double duration_ns = number(document, "duration_ns").value_or(0.0);
  if (!detours.is_array() || detours.empty()) {
    s.notes.emplace_back("The trace lists no detours.");
    s.data["charts"] = Json::array();
    return s;
  }
  // Time series: the tallest detour of each of kMaxTracePoints time slots, so spikes survive thinning.
  double span_ns = duration_ns;
  for (const Json& d : detours) {
    span_ns = std::max(span_ns, d[0].get<double>() + d[1].get<double>());
  }
  const std::size_t slots = std::min<std::size_t>(kMaxTracePoints, detours.size());
  std::vector<double> slot_max(slots, -1.0);
  std::vector<double> slot_start(slots, 0.0);
  double total_ns = 0;
  double longest_ns = 0;
  for (const Json& d : detours) {
    const double start = d[0].get<double>();
    const double length = d[1].get<double>();
    total_ns += length;
    longest_ns = std::max(longest_ns, length);
    // Negative or NaN positions (a hand-made document) go to the first slot: converting them to an
    // unsigned integer would be undefined.
    const double position = span_ns > 0 ? start / span_ns * static_cast<double>(slots) : 0.0;
    const std::size_t slot = position > 0 ? std::min(static_cast<std::size_t>(position), slots - 1) : 0;
    if (length > slot_max[slot]) {
      slot_max[slot] = length;
      slot_start[slot] = start;
    }
  }
  Json series = Json::array();
  for (std::size_t i = 0; i < slots; ++i) {
    if (slot_max[i] >= 0) {
      series.push_back(Json{{"x", slot_start[i] / 1e6}, {"y", slot_max[i] / 1e3}});
    }
  }
  Json time_chart = make_chart("scatter", "Detours over time (selfish detour trace)", "time since start (ms)",
                               "detour length (us, log scale)");
  time_chart["y"]["log"] = true;
  add_series(time_chart, detours.size() > slots ? "longest detour per time slot" : "detour",
             std::move(series));
  // Histogram of lengths on power-of-two bins (ns).
  std::vector<double> bins(64, 0.0);
  for (const Json& d : detours) {
    const double length = std::max(1.0, d[1].get<double>());
    const auto bin = static_cast<std::size_t>(std::floor(std::log2(length)));
    bins[std::min<std::size_t>(bin, 63)] += 1;
  }
  std::size_t first = bins.size();
  std::size_t last = 0;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    if (bins[i] > 0) {
      first = std::min(first, i);
      last = i;
    }
  }
  Json hist =
      make_chart("bar", "Histogram of detour lengths", "detour length (ns, power-of-two bins)", "detours");
  hist["y"]["log"] = true;
  Json counts = Json::array();
  for (std::size_t i = first; i <= last; ++i) {
    hist["labels"].push_back(fmt::format("{:.0f}-{:.0f}", std::ldexp(1.0, static_cast<int>(i)),
                                         std::ldexp(1.0, static_cast<int>(i) + 1)));
    counts.push_back(bins[i]);
  }
  add_series(hist, "detours", std::move(counts));
  Table summary("Trace summary",
                {"detours", "duration (ms)", "noise fraction", "longest detour (us)", "not listed"});
  summary.row({std::to_string(detours.size()), format_number(Json(duration_ns / 1e6)),
               duration_ns > 0 ? fmt::format("{:.4f}%", 100.0 * total_ns / duration_ns) : "-",
               format_number(Json(longest_ns / 1e3)), format_cell(field(document, "detours_not_listed"))});
  s.body_html += summary.html();
  if (detours.size() > slots) {
    s.notes.push_back(fmt::format("{} detours: the time series shows the longest of each of {} time slots.",
                                  detours.size(), slots));
  }
  s.data["charts"] = Json::array({std::move(time_chart), std::move(hist)});
  return s;
}

}  // namespace gridlock::report::detail
