// Sections of the mapping, model and history results, and of results of a kind not known yet.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report::detail {
namespace {

// Series charted per fit file at most (a sweep has one per op, rank count and hop class; the
// table lists them all).
constexpr std::size_t kMaxFitCharts = 12;

}  // namespace

Section map_section(const Json& document) {
  Section s;
  const Json& params = field(field(document, "context"), "parameters");
  // The canonical topology spec spells out every parameter; the title keeps its shape (the context
  // block below has it whole).
  const std::string topology = text(params, "topology", "a machine");
  s.title = fmt::format("gridlock map: {} on {}", text(params, "tasks", "tasks"),
                        topology.substr(0, topology.find(',')));
  const Json& mappings = field(document, "mappings");
  if (!mappings.is_array() || mappings.empty()) {
    s.notes.emplace_back("This result has no mappings: nothing to chart.");
    s.data["charts"] = Json::array();
    return s;
  }
  std::vector<std::string> metrics;
  for (const Json& m : mappings) {
    for (const auto& [metric, value] : field(m, "costs").items()) {
      if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) {
        metrics.push_back(metric);
      }
    }
  }
  std::vector<std::string> headers{"mapping"};
  for (const std::string& metric : metrics) {
    headers.push_back(metric + " total");
    headers.push_back(metric + " change");
  }
  headers.emplace_back("hop bytes");
  headers.emplace_back("seconds");
  Table table(fmt::format("Cost of each placement (chosen: {}; change vs identity, negative is better)",
                          text(document, "chosen")),
              headers);
  Json chart = make_chart("bar", "Total cost change vs identity per placement", "placement",
                          "change of the total cost vs identity (%)");
  Json max_chart = make_chart("bar", "Largest message cost change vs identity (the paper's Fig. 5)",
                              "placement", "change of the largest message cost vs identity (%)");
  for (const Json& m : mappings) {
    std::vector<std::string> row{text(m, "mapping")};
    for (const std::string& metric : metrics) {
      const Json& c = field(field(m, "costs"), metric);
      row.push_back(format_number(field(c, "total")));
      row.push_back(
          field(c, "total_change_pct").is_number() ? format_number(field(c, "total_change_pct")) + "%" : "-");
    }
    row.push_back(format_number(field(m, "hop_bytes")));
    row.push_back(format_number(field(m, "seconds")));
    table.row(row);
    chart["labels"].push_back(text(m, "mapping"));
    max_chart["labels"].push_back(text(m, "mapping"));
  }
  for (const std::string& metric : metrics) {
    if (metric == "none") {
      continue;  // its total is the graph's bytes whatever the placement (docs/formats/map-json.md)
    }
    Json totals = Json::array();
    Json maxima = Json::array();
    for (const Json& m : mappings) {
      const Json& c = field(field(m, "costs"), metric);
      totals.push_back(field(c, "total_change_pct"));
      maxima.push_back(field(c, "max_message_change_pct"));
    }
    add_series(chart, metric, std::move(totals));
    add_series(max_chart, metric, std::move(maxima));
  }
  s.body_html += table.html();
  s.data["charts"] = Json::array({std::move(chart), std::move(max_chart)});
  return s;
}

Section model_fit_section(const Json& document) {
  Section s;
  s.title = "gridlock model fit: latency and bandwidth vs message size";
  const Json& series = field(document, "series");
  Table table("Hockney fits (robust): T(n) = alpha + beta n",
              {"kind", "op", "ranks", "hop class", "sizes", "alpha (us)", "beta (us/B)", "bandwidth (MiB/s)",
               "median rel. error", "switches"});
  Json charts = Json::array();
  for (const Json& one : series) {
    const Json& fit = field(one, "robust").is_object() ? field(one, "robust") : field(one, "least_squares");
    const std::string name =
        fmt::format("{} {} p={}{}", text(one, "kind"), text(one, "op"), format_cell(field(one, "ranks")),
                    text(one, "pair_class").empty() ? "" : " " + text(one, "pair_class"));
    const Json& switches = field(one, "switches");
    table.row({text(one, "kind"), text(one, "op"), format_cell(field(one, "ranks")),
               text(one, "pair_class", "-"), std::to_string(field(one, "sizes_bytes").size()),
               format_number(field(fit, "alpha_us")), format_number(field(fit, "beta_us_per_byte")),
               format_number(field(fit, "bandwidth_mib_s")), format_number(field(fit, "median_rel_err")),
               switches.is_array() ? std::to_string(switches.size()) : "-"});
    if (charts.size() >= 2 * kMaxFitCharts) {
      continue;
    }
    const Json& sizes = field(one, "sizes_bytes");
    const Json& medians = field(one, "median_us");
    if (!sizes.is_array() || !medians.is_array() || sizes.size() != medians.size()) {
      continue;
    }
    Json chart = make_chart("scatter", fmt::format("{}: time vs message size", name),
                            "message size (bytes, log scale)", "time (us, log scale)");
    chart["x"]["log"] = true;
    chart["y"]["log"] = true;
    Json measured = Json::array();
    Json model = Json::array();
    Json residuals = Json::array();
    const Json& segments = field(one, "segments");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      // Size 0 has no place on a log axis: it is drawn at 1 byte (the table keeps the fit).
      const double n = std::max(1.0, sizes[i].is_number() ? sizes[i].get<double>() : 1.0);
      measured.push_back(Json{{"x", n}, {"y", medians[i]}});
      // The switch model's segment holding this size, else the single fit.
      const Json* f = &fit;
      if (segments.is_array() && segments.size() > 1) {
        for (const Json& seg : segments) {
          const double bytes = sizes[i].get<double>();
          if (bytes >= number(seg, "from_bytes").value_or(0) &&
              bytes <= number(seg, "to_bytes").value_or(0)) {
            f = &field(seg, "fit");
          }
        }
      }
      const auto alpha = number(*f, "alpha_us");
      const auto beta = number(*f, "beta_us_per_byte");
      if (alpha && beta) {
        const double predicted = *alpha + *beta * sizes[i].get<double>();
        model.push_back(Json{{"x", n}, {"y", predicted}});
        if (medians[i].is_number() && medians[i].get<double>() > 0) {
          residuals.push_back(Json{
              {"x", n}, {"y", 100.0 * (predicted - medians[i].get<double>()) / medians[i].get<double>()}});
        }
      }
    }
    add_series(chart, "measured median", std::move(measured));
    add_series(chart, segments.is_array() && segments.size() > 1 ? "switch model" : "Hockney model",
               std::move(model));
    chart["series"].back()["line"] = true;
    Json residual_chart = make_chart("scatter", fmt::format("{}: residuals of the model", name),
                                     "message size (bytes, log scale)", "(model - measured) / measured (%)");
    residual_chart["x"]["log"] = true;
    residual_chart["reference"] = 0.0;
    add_series(residual_chart, "residual", std::move(residuals));
    charts.push_back(std::move(chart));
    charts.push_back(std::move(residual_chart));
  }
  if (series.is_array() && series.size() > kMaxFitCharts) {
    s.notes.push_back(fmt::format("{} series: the first {} are charted, the table lists all.", series.size(),
                                  kMaxFitCharts));
  }
  s.body_html += table.html();
  const Json& collectives = field(document, "collectives");
  if (collectives.is_array() && !collectives.empty()) {
    Table ct("Collective models: best model per size range",
             {"op", "ranks", "from (B)", "to (B)", "best model"});
    for (const Json& c : collectives) {
      for (const Json& r : field(c, "ranges")) {
        ct.row({text(c, "op"), format_cell(field(c, "ranks")), format_cell(field(r, "from_bytes")),
                format_cell(field(r, "to_bytes")), text(r, "best")});
      }
    }
    s.body_html += ct.html();
  }
  for (const Json& n : field(document, "notes")) {
    if (n.is_string()) {
      s.notes.push_back(n.get<std::string>());
    }
  }
  s.data["charts"] = std::move(charts);
  return s;
}

Section model_check_section(const Json& document) {
  Section s;
  s.title = "gridlock model check: self-consistent MPI performance guidelines";
  const Json& results = field(document, "results");
  Table table(
      fmt::format("Guidelines ({} violated; factor = left side / right side, > 1 + tolerance violates)",
                  format_cell(field(document, "violations"))),
      {"guideline", "size (B)", "ranks", "left (us)", "right (us)", "factor", "test", "p", "verdict"});
  Json chart = make_chart("bar", "Guideline factors (left / right; above the line violates)",
                          "guideline, size, ranks", "factor (x)");
  Json holds = Json::array();
  Json violated = Json::array();
  for (const Json& r : results) {
    const bool bad = field(r, "violated").is_boolean() && field(r, "violated").get<bool>();
    table.row({text(r, "guideline"), format_cell(field(r, "size_bytes")), format_cell(field(r, "ranks")),
               format_number(field(r, "lhs_median_us")), format_number(field(r, "rhs_median_us")),
               format_number(field(r, "factor")), text(r, "test"), format_number(field(r, "p_value")),
               bad ? "VIOLATED" : "holds"});
    chart["labels"].push_back(fmt::format("{} {}B p={}", text(r, "guideline"),
                                          format_cell(field(r, "size_bytes")),
                                          format_cell(field(r, "ranks"))));
    holds.push_back(bad ? Json(nullptr) : field(r, "factor"));
    violated.push_back(bad ? field(r, "factor") : Json(nullptr));
  }
  add_series(chart, "holds", std::move(holds));
  add_series(chart, "violated", std::move(violated));
  chart["stacked"] = true;
  if (const auto tolerance = number(document, "tolerance")) {
    chart["reference"] = 1.0 + *tolerance;
    chart["reference_label"] = "1 + tolerance";
  }
  s.body_html += table.html();
  for (const Json& n : field(document, "not_checked")) {
    if (n.is_string()) {
      s.notes.push_back(n.get<std::string>());
    }
  }
  s.data["charts"] = Json::array({std::move(chart)});
  return s;
}

Section history_trend_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  const std::string metric = text(context, "metric", "metric");
  s.title = fmt::format("gridlock history trend: {}", metric);
  const Json& columns = field(document, "columns");
  const Json& rows = field(document, "rows");
  std::ptrdiff_t value_col = -1;
  std::ptrdiff_t date_col = -1;
  std::ptrdiff_t run_col = -1;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string c = columns[i].is_string() ? columns[i].get<std::string>() : "";
    value_col = c == "value" ? static_cast<std::ptrdiff_t>(i) : value_col;
    date_col = c == "date" ? static_cast<std::ptrdiff_t>(i) : date_col;
    run_col = c == "run_id" ? static_cast<std::ptrdiff_t>(i) : run_col;
  }
  Json chart =
      make_chart("line", fmt::format("{} over time ({} is better)", metric, text(context, "better", "?")),
                 "run (date)", metric);
  Json values = Json::array();
  Table table("Runs", {"run", "date", "value"});
  for (const Json& r : rows) {
    const auto cell = [&](std::ptrdiff_t col) -> std::string {
      return col >= 0 && static_cast<std::size_t>(col) < r.size()
                 ? format_cell(r[static_cast<std::size_t>(col)])
                 : "-";
    };
    chart["labels"].push_back(fmt::format("#{} {}", cell(run_col), cell(date_col)));
    const Json& v = value_col >= 0 && static_cast<std::size_t>(value_col) < r.size()
                        ? r[static_cast<std::size_t>(value_col)]
                        : Json(nullptr);
    values.push_back(v.is_number() ? v : Json(nullptr));
    table.row({cell(run_col), cell(date_col), cell(value_col)});
  }
  add_series(chart, metric, std::move(values));
  s.body_html += table.html();
  s.data["charts"] = Json::array({std::move(chart)});
  return s;
}

Section csv_section(const Json& document) {
  // Rows shown at most: a CSV may hold a row per replica or per histogram bucket.
  constexpr std::size_t kMaxRows = 200;
  Section s;
  const Json& context = field(document, "context");
  s.title = fmt::format("{}: {} (CSV)", text(context, "tool", "unknown tool"),
                        text(context, "schema", "no schema"));
  const Json& columns = field(document, "columns");
  const Json& rows = field(document, "rows");
  std::vector<std::string> headers;
  for (const Json& c : columns) {
    headers.push_back(format_cell(c));
  }
  Json charts = Json::array();
  // A histogram (gridlock noise measure --histogram, gridlock-bench --csv-dir): lower, upper, count.
  if (headers.size() == 3 && headers[0].rfind("lower", 0) == 0 && headers[1].rfind("upper", 0) == 0 &&
      headers[2] == "count") {
    Json chart = make_chart("histogram", "Histogram", fmt::format("{} (log scale)", headers[0]), "count");
    chart["x"]["log"] = true;
    Json points = Json::array();
    for (const Json& r : rows) {
      if (r.size() == 3 && r[0].is_number() && r[1].is_number() && r[2].is_number() &&
          r[0].get<double>() > 0) {
        points.push_back(Json{{"x", std::sqrt(r[0].get<double>() * r[1].get<double>())}, {"y", r[2]}});
      }
    }
    add_series(chart, "count", std::move(points));
    charts.push_back(std::move(chart));
  }
  Table table(rows.size() > kMaxRows ? fmt::format("The first {} of {} rows", kMaxRows, rows.size()) : "Rows",
              headers);
  for (std::size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    std::vector<std::string> cells;
    for (const Json& c : rows[i]) {
      cells.push_back(format_cell(c));
    }
    cells.resize(headers.size());
    table.row(cells);
  }
  s.body_html += table.html();
  s.data["charts"] = std::move(charts);
  return s;
}

Section generic_section(const Json& document, std::string_view note) {
  Section s;
  const Json& context = field(document, "context");
  s.title =
      fmt::format("{}: {}", text(context, "tool", "unknown tool"), text(context, "schema", "no schema"));
  s.notes.emplace_back(note);
  Table table("Top-level fields", {"field", "type", "value or size"});
  if (document.is_object()) {
    for (const auto& [key, value] : document.items()) {
      if (key == "context") {
        continue;
      }
      std::string shown;
      if (value.is_array() || value.is_object()) {
        shown = fmt::format("{} entries", value.size());
      } else {
        shown = format_cell(value);
      }
      table.row({key, value.type_name(), shown});
    }
  }
  s.body_html += table.html();
  s.data["charts"] = Json::array();
  return s;
}

}  // namespace gridlock::report::detail

namespace gridlock::report::detail {

Section spmv_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  s.title = fmt::format(
      "gridlock-bench spmv: {} mapping on {} ranks{}", text(context, "mapping", "?"),
      format_cell(field(context, "ranks")),
      field(context, "congestor_ranks").is_number() && number(context, "congestor_ranks").value_or(0) > 0
          ? " beside the congestors"
          : "");
  const Json& stats = field(document, "statistics");
  Json chart = make_chart("bar", "Time per phase of an iteration", "phase", "time (us)");
  Json means = Json::array();
  Json medians = Json::array();
  Json p99s = Json::array();
  Table table("Time per phase (us, over iterations and ranks)",
              {"phase", "mean", "median", "99%", "min", "max"});
  if (stats.is_object()) {
    for (const auto& [key, st] : stats.items()) {
      chart["labels"].push_back(text(st, "title", key));
      means.push_back(field(st, "mean"));
      medians.push_back(field(st, "median"));
      p99s.push_back(field(st, "p99"));
      table.row({text(st, "title", key), format_number(field(st, "mean")), format_number(field(st, "median")),
                 format_number(field(st, "p99")), format_number(field(st, "min")),
                 format_number(field(st, "max"))});
    }
  }
  add_series(chart, "mean", std::move(means));
  add_series(chart, "median", std::move(medians));
  add_series(chart, "99%", std::move(p99s));
  s.body_html += table.html();
  const Json& congestors = field(document, "congestors");
  if (congestors.is_array() && !congestors.empty()) {
    Table ct("Congestors beside the application", {"congestor", "ranks", "MiB/s total", "timed out"});
    for (const Json& g : congestors) {
      ct.row({text(g, "type"), format_cell(field(g, "ranks")), format_number(field(g, "mib_per_s_total")),
              format_cell(field(g, "timed_out"))});
    }
    s.body_html += ct.html();
  }
  const Json& remap = field(document, "remap");
  if (remap.is_object()) {
    s.body_html +=
        fmt::format("<p>Remapped in the application: {} from {} (map {} s).</p>\n",
                    escape_html(text(remap, "method", "?")), escape_html(text(remap, "source", "-")),
                    escape_html(format_number(field(remap, "map_s"))));
  }
  s.notes.emplace_back(
      "The time a mapping recovers is the comparison of two runs: gridlock report --compare identity.json "
      "mapped.json gives B / A per phase (1 - B / A recovered).");
  s.data["charts"] = Json::array({std::move(chart)});
  return s;
}

}  // namespace gridlock::report::detail
