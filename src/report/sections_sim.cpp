// Simulator sections: the Monte-Carlo noise study (gridlock.sim.replicas: box plots of completion
// time over scale, the paper's Figs. 5-7, and the slowdown) and a single run (gridlock.sim.result:
// per-rank finish histogram, network utilisation).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report::detail {
namespace {

// Outlier points per scale at most (a study may have millions; the page stays small).
constexpr std::size_t kMaxOutlierPoints = 200;

// Bins of a histogram of `values` (equal width between min and max): labels and counts.
void add_histogram(Json& chart, const std::vector<double>& values, std::size_t bins, double scale,
                   const std::string& label) {
  if (values.empty()) {
    return;
  }
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it;
  const double hi = *hi_it;
  const std::size_t n = hi > lo ? bins : 1;
  const double width = hi > lo ? (hi - lo) / static_cast<double>(n) : 1.0;
  std::vector<double> counts(n, 0.0);
  for (const double v : values) {
    // Clamped before the conversion: values near the double range make the position NaN or infinite.
    const double position = std::min((v - lo) / width, static_cast<double>(n - 1));
    const std::size_t bin = position > 0 ? static_cast<std::size_t>(position) : 0;
    counts[bin] += 1;
  }
  Json data = Json::array();
  for (std::size_t i = 0; i < n; ++i) {
    chart["labels"].push_back(fmt::format("{:.4g}", (lo + width * (static_cast<double>(i) + 0.5)) * scale));
    data.push_back(counts[i]);
  }
  add_series(chart, label, std::move(data));
}

std::vector<double> numbers(const Json& array) {
  std::vector<double> out;
  if (array.is_array()) {
    for (const Json& v : array) {
      if (v.is_number()) {
        out.push_back(v.get<double>());
      }
    }
  }
  return out;
}

}  // namespace

Section sim_replicas_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  const std::string what = text(context, "program", text(context, "schedule", "schedule"));
  s.title = fmt::format("gridlock sim --replicas: {} under noise over scale", what);
  if (text(document, "status") == "cut_short") {
    s.notes.push_back(
        fmt::format("The study was cut short: {}", text(document, "reason", "no reason given")));
  }
  const Json& scales = field(document, "scales");
  if (!scales.is_array() || scales.empty()) {
    s.notes.emplace_back("The study has no finished scale: nothing to chart.");
    s.data["charts"] = Json::array();
    return s;
  }
  constexpr double kUs = 1e-6;  // ps -> us
  Table table("Completion time per scale (us; slowdown relative to the noiseless run)",
              {"ranks", "replicas", "noiseless", "min", "q1", "median", "q3", "max", "mean", "outliers",
               "median slowdown"});
  Json box = make_chart("box", "Completion time over scale (box: q1-q3, whiskers: Tukey fences)", "ranks",
                        "completion time (us)");
  Json whiskers = Json::array();
  Json boxes = Json::array();
  Json medians = Json::array();
  Json noiseless = Json::array();
  Json outlier_points = Json::array();
  Json slowdown = make_chart("line", "Noise slowdown over scale", "ranks", "slowdown vs noiseless (%)");
  Json median_slow = Json::array();
  Json max_slow = Json::array();
  Json mean_slow = Json::array();
  std::vector<double> largest;
  std::string largest_label;
  for (const Json& scale : scales) {
    const std::string ranks = format_cell(field(scale, "ranks"));
    box["labels"].push_back(ranks);
    slowdown["labels"].push_back(ranks);
    const double q1 = number(scale, "q1_ps").value_or(NAN);
    const double q3 = number(scale, "q3_ps").value_or(NAN);
    std::vector<double> completion = numbers(field(scale, "completion_ps"));
    std::sort(completion.begin(), completion.end());
    // The whiskers end at the last replica inside Tukey's fences, as in the SVG box plot.
    const double iqr = q3 - q1;
    double low = number(scale, "min_ps").value_or(NAN);
    double high = number(scale, "max_ps").value_or(NAN);
    if (!completion.empty()) {
      const auto in_low = std::lower_bound(completion.begin(), completion.end(), q1 - 1.5 * iqr);
      const auto in_high = std::upper_bound(completion.begin(), completion.end(), q3 + 1.5 * iqr);
      if (in_low != completion.end()) {
        low = *in_low;
      }
      if (in_high != completion.begin()) {
        high = *(in_high - 1);
      }
    }
    whiskers.push_back(Json::array({finite_or_null(low * kUs), finite_or_null(high * kUs)}));
    boxes.push_back(Json::array({finite_or_null(q1 * kUs), finite_or_null(q3 * kUs)}));
    medians.push_back(finite_or_null(number(scale, "median_ps").value_or(NAN) * kUs));
    noiseless.push_back(finite_or_null(number(scale, "noiseless_ps").value_or(NAN) * kUs));
    std::vector<double> outliers = numbers(field(scale, "outliers_ps"));
    std::sort(outliers.begin(), outliers.end());
    outliers.erase(std::unique(outliers.begin(), outliers.end()), outliers.end());
    const std::size_t step = std::max<std::size_t>(1, outliers.size() / kMaxOutlierPoints);
    for (std::size_t i = 0; i < outliers.size(); i += step) {
      outlier_points.push_back(Json{{"x", ranks}, {"y", outliers[i] * kUs}});
    }
    const Json& slow = field(scale, "slowdown");
    median_slow.push_back(finite_or_null(100.0 * number(slow, "median").value_or(NAN)));
    mean_slow.push_back(finite_or_null(100.0 * number(slow, "mean").value_or(NAN)));
    max_slow.push_back(finite_or_null(100.0 * number(slow, "max").value_or(NAN)));
    const auto us = [&](const char* key) {
      return format_number(Json(number(scale, key).value_or(NAN) * kUs));
    };
    table.row({ranks, format_cell(field(scale, "replicas")), us("noiseless_ps"), us("min_ps"), us("q1_ps"),
               us("median_ps"), us("q3_ps"), us("max_ps"), us("mean_ps"),
               std::to_string(numbers(field(scale, "outliers_ps")).size()),
               fmt::format("{:.2f}%", 100.0 * number(slow, "median").value_or(NAN))});
    largest = std::move(completion);
    largest_label = ranks;
  }
  add_series(box, "whiskers", std::move(whiskers));
  add_series(box, "q1-q3", std::move(boxes));
  add_series(box, "median", std::move(medians));
  add_series(box, "noiseless", std::move(noiseless));
  add_series(box, "outliers", std::move(outlier_points));
  add_series(slowdown, "median", std::move(median_slow));
  add_series(slowdown, "mean", std::move(mean_slow));
  add_series(slowdown, "max", std::move(max_slow));
  Json hist = make_chart("bar", fmt::format("Completion times of the replicas at {} ranks", largest_label),
                         "completion time (us, bin centre)", "replicas");
  for (double& v : largest) {
    v *= kUs;
  }
  add_histogram(hist, largest, 30, 1.0, "replicas");
  s.body_html += table.html();
  const Json& bottleneck = field(document, "noise_bottleneck");
  if (bottleneck.is_object()) {
    // The paper's "characteristic number of processes" where noise takes over (docs/noise.md).
    Table b(
        "Noise bottleneck (the smallest scale from which on the median slowdown stays at or above the "
        "threshold)",
        {"field", "value"});
    for (const auto& [key, value] : bottleneck.items()) {
      b.row({key, format_cell(value)});
    }
    s.body_html += b.html();
  }
  s.data["charts"] = Json::array({std::move(box), std::move(slowdown), std::move(hist)});
  return s;
}

Section sim_result_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  s.title = fmt::format("gridlock sim: {} on {} ranks",
                        text(context, "program", text(context, "schedule", "schedule")),
                        format_cell(field(context, "ranks")));
  const Json& result = field(document, "result");
  Table table("Run",
              {"complete", "max finish (us)", "max finish rank", "ops", "messages", "events", "wall (s)"});
  table.row({format_cell(field(result, "complete")),
             format_number(Json(number(result, "max_finish_ps").value_or(NAN) * 1e-6)),
             format_cell(field(result, "max_finish_rank")), format_cell(field(result, "ops_total")),
             format_cell(field(result, "messages")), format_cell(field(result, "events")),
             format_number(field(result, "wall_seconds"))});
  s.body_html += table.html();
  Json charts = Json::array();
  std::vector<double> finish = numbers(field(result, "finish_ps"));
  if (!finish.empty()) {
    for (double& v : finish) {
      v *= 1e-6;
    }
    Json hist = make_chart("bar", "Per-rank finish times", "finish time (us, bin centre)", "ranks");
    add_histogram(hist, finish, 30, 1.0, "ranks");
    charts.push_back(std::move(hist));
  } else {
    s.notes.emplace_back("No per-rank finish times: run gridlock sim with --per-rank for their histogram.");
  }
  const Json& report = field(field(document, "network"), "report");
  if (report.is_object()) {
    const Json& histogram = field(field(report, "utilisation"), "histogram");
    if (histogram.is_array()) {
      Json util = make_chart("bar", "Link utilisation of the busy links",
                             "utilisation (bytes / capacity x makespan)", "links");
      for (std::size_t i = 0; i < histogram.size(); ++i) {
        util["labels"].push_back(fmt::format("{}-{}%", i * 10, (i + 1) * 10));
      }
      add_series(util, "busy links", histogram);
      charts.push_back(std::move(util));
    }
    Table top("Busiest links", {"link", "name", "kind", "bytes", "utilisation"});
    Json top_chart = make_chart("bar", "Utilisation of the busiest links", "link (kind)", "utilisation (%)");
    Json top_utilisation = Json::array();
    for (const Json& l : field(report, "top_links")) {
      top.row({format_cell(field(l, "link")), text(l, "name"), text(l, "kind"),
               format_number(field(l, "bytes")), format_number(field(l, "utilisation"))});
      top_chart["labels"].push_back(
          fmt::format("{} ({})", text(l, "name", format_cell(field(l, "link"))), text(l, "kind", "?")));
      const auto u = number(l, "utilisation");
      top_utilisation.push_back(u ? Json(100.0 * *u) : Json(nullptr));
    }
    if (!top_utilisation.empty()) {
      add_series(top_chart, "utilisation", std::move(top_utilisation));
      charts.push_back(std::move(top_chart));
    }
    const Json& links = field(report, "links");
    const Json& utilisation = field(report, "utilisation");
    Table summary("Network summary", {"makespan (us)", "messages", "over links", "links", "busy", "idle",
                                      "mean busy util.", "99% busy util.", "max util."});
    summary.row({format_number(Json(number(report, "makespan_ps").value_or(NAN) * 1e-6)),
                 format_cell(field(report, "messages")), format_cell(field(report, "network_messages")),
                 format_cell(field(links, "total")), format_cell(field(links, "busy")),
                 format_cell(field(links, "idle")), format_number(field(utilisation, "mean_busy")),
                 format_number(field(utilisation, "p99_busy")), format_number(field(utilisation, "max"))});
    s.body_html += "<p>Network: " + escape_html(text(field(document, "network"), "description")) + "</p>\n";
    s.body_html += summary.html();
    s.body_html += top.html();
    const Json& slow = field(report, "slowdown");
    Table st("Message slowdown (transfer time over the time alone on the network)",
             {"messages", "mean", "median", "99%", "max"});
    st.row({format_cell(field(slow, "count")), format_number(field(slow, "mean")),
            format_number(field(slow, "p50")), format_number(field(slow, "p99")),
            format_number(field(slow, "max"))});
    s.body_html += st.html();
    // The result holds the slowdown's summary, not its distribution: the chart shows the summary.
    if (number(slow, "count").value_or(0) > 0) {
      Json slow_chart = make_chart("bar", "Message slowdown on the network (1 = as fast as alone)",
                                   "statistic", "transfer time / time alone (x)");
      slow_chart["labels"] = Json::array({"mean", "median", "99%", "max"});
      add_series(
          slow_chart, "slowdown",
          Json::array({field(slow, "mean"), field(slow, "p50"), field(slow, "p99"), field(slow, "max")}));
      slow_chart["reference"] = 1.0;
      slow_chart["reference_label"] = "alone";
      charts.push_back(std::move(slow_chart));
    }
  }
  s.data["charts"] = std::move(charts);
  return s;
}

}  // namespace gridlock::report::detail
