// The gridlock.sweep section (gridlock-bench sweep, the Theta study): time vs message size per op,
// rank count and hop class with the median's confidence interval and the 99th percentile, and
// box plots of run-to-run variability over --repeat passes.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report::detail {
namespace {

// Series charted at most (the table counts them all) and variability boxes at most.
constexpr std::size_t kMaxSweepCharts = 12;
constexpr std::size_t kMaxVariabilityBoxes = 40;

// Quartile by linear interpolation (R type 7), as the replica study's box plots.
double quantile(const std::vector<double>& sorted, double q) {
  const double h = (static_cast<double>(sorted.size()) - 1.0) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - std::floor(h)) * (sorted[hi] - sorted[lo]);
}

// The time-vs-size chart of one series: the median (a line), its confidence interval and the
// 99th percentile where the records hold them.
Json series_chart(const std::string& op, const std::string& ranks, const std::string& pair,
                  const std::vector<const Json*>& records) {
  Json chart = make_chart(
      "scatter", fmt::format("{} p={}{}: time vs message size", op, ranks, pair == "-" ? "" : " " + pair),
      "message size (bytes, log scale; 0 B drawn at 1 B)", "time (us, log scale)");
  chart["x"]["log"] = true;
  chart["y"]["log"] = true;
  Json median = Json::array();
  Json ci_low = Json::array();
  Json ci_high = Json::array();
  Json p99 = Json::array();
  for (const Json* r : records) {
    const double n = std::max(1.0, number(*r, "size_bytes").value_or(1.0));
    const Json& t = field(*r, "time_us");
    median.push_back(Json{{"x", n}, {"y", field(t, "median")}});
    ci_low.push_back(Json{{"x", n}, {"y", field(t, "ci_low")}});
    ci_high.push_back(Json{{"x", n}, {"y", field(t, "ci_high")}});
    p99.push_back(Json{{"x", n}, {"y", field(t, "p99")}});
  }
  add_series(chart, "median", std::move(median));
  chart["series"].back()["line"] = true;
  // Statistics the file does not hold (older or synthetic sweeps) get no empty legend entry.
  const auto any_value = [](const Json& points) {
    return std::any_of(points.begin(), points.end(), [](const Json& p) { return p["y"].is_number(); });
  };
  if (any_value(ci_low) && any_value(ci_high)) {
    add_series(chart, "median CI low", std::move(ci_low));
    add_series(chart, "median CI high", std::move(ci_high));
  }
  if (any_value(p99)) {
    add_series(chart, "99%", std::move(p99));
  }
  return chart;
}

// Run-to-run variability (--repeat K): a box per (op, size, ranks, pair) over the K medians, and
// their table (appended to `html`).
Json variability_chart(const Json& variability, std::string& html) {
  Json box = make_chart("box", "Run-to-run variability: medians of the --repeat passes", "op, size, ranks",
                        "median time (us)");
  box["y"]["log"] = true;
  Json whiskers = Json::array();
  Json boxes = Json::array();
  Json medians = Json::array();
  Table vt("Run-to-run variability",
           {"op", "size (B)", "ranks", "hop class", "repeats", "median (us)", "CV"});
  for (const Json& v : variability) {
    std::vector<double> values;
    for (const Json& m : field(v, "medians_us")) {
      if (m.is_number()) {
        values.push_back(m.get<double>());
      }
    }
    vt.row({text(v, "op"), format_cell(field(v, "size_bytes")), format_cell(field(v, "ranks")),
            text(v, "pair_class", "-"), format_cell(field(v, "repeats")),
            format_number(field(v, "median_us")), format_number(field(v, "cv"))});
    if (values.empty() || box["labels"].size() >= kMaxVariabilityBoxes) {
      continue;
    }
    std::sort(values.begin(), values.end());
    box["labels"].push_back(fmt::format("{} {}B p={}", text(v, "op"), format_cell(field(v, "size_bytes")),
                                        format_cell(field(v, "ranks"))));
    whiskers.push_back(Json::array({values.front(), values.back()}));
    boxes.push_back(Json::array({quantile(values, 0.25), quantile(values, 0.75)}));
    medians.push_back(quantile(values, 0.5));
  }
  add_series(box, "whiskers", std::move(whiskers));
  box["series"].back()["legend"] = "min-max of the passes";
  add_series(box, "q1-q3", std::move(boxes));
  add_series(box, "median", std::move(medians));
  html += vt.html();
  return box;
}

}  // namespace

Section sweep_section(const Json& document) {
  Section s;
  s.title = "gridlock-bench sweep: time vs message size";
  if (text(document, "status") == "cut_short") {
    s.notes.push_back(
        fmt::format("The sweep was cut short: {}", text(document, "reason", "no reason given")));
  }
  // (kind, op, ranks, pair class) -> the ok records of repeat 0 in file order.
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, std::vector<const Json*>> groups;
  std::vector<Key> order;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  for (const Json& r : field(document, "records")) {
    const std::string status = text(r, "status", "ok");
    failed += status == "failed" ? 1 : 0;
    skipped += status == "skipped" ? 1 : 0;
    if (status != "ok" || number(r, "repeat").value_or(0) != 0 || !field(r, "time_us").is_object()) {
      continue;
    }
    Key key{text(r, "kind"), text(r, "op"), format_cell(field(r, "ranks")), text(r, "pair_class", "-")};
    if (groups.find(key) == groups.end()) {
      order.push_back(key);
    }
    groups[key].push_back(&r);
  }
  Table table("Measured series (repeat 0)", {"kind", "op", "ranks", "hop class", "sizes",
                                             "smallest size: median (us)", "largest size: median (us)"});
  Json charts = Json::array();
  for (const Key& key : order) {
    const std::vector<const Json*>& records = groups[key];
    const auto& [kind, op, ranks, pair] = key;
    table.row({kind, op, ranks, pair, std::to_string(records.size()),
               format_number(field(field(*records.front(), "time_us"), "median")),
               format_number(field(field(*records.back(), "time_us"), "median"))});
    if (charts.size() >= kMaxSweepCharts) {
      continue;
    }
    charts.push_back(series_chart(op, ranks, pair, records));
  }
  if (order.size() > kMaxSweepCharts) {
    s.notes.push_back(fmt::format("{} series: the first {} are charted, the table lists all.", order.size(),
                                  kMaxSweepCharts));
  }
  // Run-to-run variability (--repeat K): a box per (op, size, ranks, pair) over the K medians.
  const Json& variability = field(document, "variability");
  if (variability.is_array() && !variability.empty()) {
    charts.push_back(variability_chart(variability, s.body_html));
  }
  s.body_html = table.html() + s.body_html;
  if (failed + skipped > 0) {
    s.notes.push_back(fmt::format("{} measurement(s) failed and {} were skipped (see the result's records).",
                                  failed, skipped));
  }
  const Json& not_set_up = field(document, "skipped");
  if (not_set_up.is_array() && !not_set_up.empty()) {
    Table t("Measurements this job could not set up", {"what", "reason"});
    for (const Json& k : not_set_up) {
      t.row({text(k, "what"), text(k, "reason")});
    }
    s.body_html += t.html();
  }
  s.data["charts"] = std::move(charts);
  return s;
}

}  // namespace gridlock::report::detail
