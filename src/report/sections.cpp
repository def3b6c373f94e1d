// Choosing a section builder by schema, sections of inputs that failed, and comparisons.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/schema.hpp"

namespace gridlock::report {

using detail::field;
using detail::text;

std::string result_kind(const Json& document) {
  const Json& context = field(document, "context");
  // A file written under a format's old name is of the renamed format (core/schema.hpp's aliases).
  const std::string written = text(context, "schema", "unknown");
  std::string schema(canonical_schema_name(written));
  if (schema == schemas::kBench.name) {
    return fmt::format("{}/{}", schema, text(context, "mode", "load"));
  }
  return schema;
}

namespace {

Section build_by_schema(const Json& document, const SectionOptions& options) {
  const std::string written = text(field(document, "context"), "schema");
  const std::string schema(canonical_schema_name(written));
  Section s;
  // A CSV output (load_input() turns it into columns and rows) is charted as the trend it is, or
  // shown as a histogram or a table.
  const bool csv = document.contains("columns") && document.contains("rows") && !document.contains("scales");
  if (csv && schema != schemas::kHistoryTrend.name) {
    s = detail::csv_section(document);
  } else if (schema == schemas::kBench.name) {
    s = detail::bench_section(document, options);
  } else if (schema == schemas::kBenchCongest.name) {
    s = detail::bench_congest_section(document);
  } else if (schema == schemas::kBenchNoise.name) {
    s = detail::bench_noise_section(document);
  } else if (schema == schemas::kNoiseMeasure.name) {
    s = detail::noise_measure_section(document);
  } else if (schema == schemas::kNoiseTrace.name) {
    s = detail::noise_trace_section(document);
  } else if (schema == schemas::kSimReplicas.name) {
    s = detail::sim_replicas_section(document);
  } else if (schema == schemas::kSimResult.name) {
    s = detail::sim_result_section(document);
  } else if (schema == schemas::kMap.name) {
    s = detail::map_section(document);
  } else if (schema == schemas::kPredictMapping.name) {
    s = detail::predict_mapping_section(document);
  } else if (schema == schemas::kPredictTraffic.name) {
    s = detail::predict_traffic_section(document);
  } else if (schema == schemas::kModelFit.name) {
    s = detail::model_fit_section(document);
  } else if (schema == schemas::kModelCheck.name) {
    s = detail::model_check_section(document);
  } else if (schema == schemas::kBenchSpmv.name) {
    s = detail::spmv_section(document);
  } else if (schema == schemas::kSweep.name) {
    s = detail::sweep_section(document);
  } else if (schema == schemas::kHistoryTrend.name) {
    s = detail::history_trend_section(document);
  } else {
    s = detail::generic_section(
        document,
        fmt::format("gridlock report has no charts for schema '{}' yet: its context and top-level "
                    "fields are listed; use --compare with a second such result for the ratio per metric",
                    schema));
  }
  return s;
}

}  // namespace

Section build_section(const std::string& source, const Json& document, const SectionOptions& options) {
  Section s;
  try {
    s = build_by_schema(document, options);
  } catch (const nlohmann::json::exception& e) {
    // A field of an unexpected type deep in a result (a hand-edited file, a future writer): the
    // section says so and lists what the file holds, and the other results are still reported.
    s = detail::generic_section(document, fmt::format("{}: a field has an unexpected type or shape, so this "
                                                      "result is listed, not charted ({})",
                                                      source, e.what()));
    s.failed = true;
  }
  s.kind = result_kind(document);
  s.source = source;
  s.context = field(document, "context");
  if (!s.data.contains("charts")) {
    s.data["charts"] = Json::array();
  }
  return s;
}

Section error_section(const std::string& source, const std::string& message) {
  Section s;
  s.title = fmt::format("{}: not reported", source);
  s.kind = "error";
  s.source = source;
  s.context = nullptr;
  s.notes.push_back(message);
  s.failed = true;
  s.data["charts"] = Json::array();
  return s;
}

namespace {

// Metrics of a result for a comparison: every number in the document but its context, named by
// its path; array entries with a `key`, `name`, `mapping`, `method` or `ranks` field are named by it, so that
// the same metric matches in two results even when their arrays differ in order or length.
// Per-sample arrays (long arrays of plain numbers, e.g. every replica's completion time) are left
// out.
void collect_metrics(const Json& value, const std::string& path,
                     std::vector<std::pair<std::string, double>>& out) {
  constexpr std::size_t kMaxPlainArray = 16;
  constexpr std::size_t kMaxMetrics = 2000;
  if (out.size() >= kMaxMetrics) {
    return;
  }
  if (value.is_number()) {
    const double v = value.get<double>();
    if (std::isfinite(v)) {
      out.emplace_back(path, v);
    }
    return;
  }
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (path.empty() && key == "context") {
        continue;
      }
      collect_metrics(child, path.empty() ? key : fmt::format("{}.{}", path, key), out);
    }
    return;
  }
  if (value.is_array()) {
    if (!value.empty() && value.front().is_number() && value.size() > kMaxPlainArray) {
      return;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      std::string name = std::to_string(i);
      const Json& entry = value[i];
      for (const char* id : {"key", "name", "mapping", "method", "ranks", "guideline", "type"}) {
        const Json& f = field(entry, id);
        if (f.is_string() || f.is_number()) {
          name = detail::format_cell(f);
          if (std::string_view(id) == "key" && field(entry, "phase").is_string()) {
            name = fmt::format("{}:{}", field(entry, "phase").get<std::string>(), name);
          }
          break;
        }
      }
      collect_metrics(entry, fmt::format("{}[{}]", path, name), out);
    }
  }
}

// Bars in the ratio chart at most.
constexpr std::size_t kMaxRatioBars = 60;

// The metrics a reader compares first: canary averages and tails, Congestion Impact, medians and
// noise fractions, mapping cost changes, simulated finish times, guideline factors, trend values.
bool is_headline(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  const std::string last = dot == std::string::npos ? name : name.substr(dot + 1);
  if (name.rfind("congestion_impact", 0) == 0) {
    return last == "mean" || last == "tail99";
  }
  if (name.rfind("statistics.", 0) == 0) {  // gridlock-bench spmv's phases
    return last == "mean" || last == "median" || last == "p99";
  }
  return last == "avg" || last == "tail99" || last == "median_ps" || last == "noise_fraction" ||
         last == "total_change_pct" || last == "max_finish_ps" || last == "factor" || last == "median_us" ||
         last == "congested_us" || last == "recovered_pct";
}

// A metric's path without the words every bench metric repeats.
std::string short_metric_name(std::string name) {
  for (const std::string_view noise : {std::string_view("phases."), std::string_view(".canaries")}) {
    const std::size_t at = name.find(noise);
    if (at != std::string::npos) {
      name.erase(at, noise.size());
    }
  }
  return name;
}

}  // namespace

Section compare_section(const std::string& source_a, const Json& a, const std::string& source_b,
                        const Json& b) {
  const std::string kind_a = result_kind(a);
  const std::string kind_b = result_kind(b);
  if (kind_a != kind_b) {
    throw InputError(fmt::format(
        "--compare: {} is a {} result and {} a {} result; compare two results of the same kind (e.g. two "
        "gridlock-bench load runs)",
        source_a, kind_a, source_b, kind_b));
  }
  Section s;
  s.kind = "compare";
  s.source = source_a + " vs " + source_b;
  s.title = fmt::format("Comparison of two {} results: B / A per metric", kind_a);
  s.context = Json{{"A", field(a, "context")}, {"B", field(b, "context")}};
  std::vector<std::pair<std::string, double>> metrics_a;
  std::vector<std::pair<std::string, double>> metrics_b;
  collect_metrics(a, "", metrics_a);
  collect_metrics(b, "", metrics_b);
  detail::Table headline_table(
      fmt::format("Headline metrics of A = {} and B = {} (B / A: 1 = unchanged)", source_a, source_b),
      {"metric", "A", "B", "B / A"});
  detail::Table table("", {"metric", "A", "B", "B / A"});
  Json rows = Json::array();
  Json chart = detail::make_chart("bar", "Ratio B / A of the headline metrics", "B / A (x)", "metric");
  chart["horizontal"] = true;
  chart["reference"] = 1.0;
  Json ratios = Json::array();
  std::size_t only_one = 0;
  for (const auto& metric : metrics_a) {
    const std::string& name = metric.first;
    const double va = metric.second;
    const auto it =
        std::find_if(metrics_b.begin(), metrics_b.end(), [&](const auto& m) { return m.first == name; });
    if (it == metrics_b.end()) {
      ++only_one;
      continue;
    }
    const double vb = it->second;
    const Json ratio = va != 0 ? detail::finite_or_null(vb / va) : Json(nullptr);
    const std::vector<std::string> cells{name, detail::format_number(Json(va)),
                                         detail::format_number(Json(vb)), detail::format_number(ratio)};
    table.row(cells);
    rows.push_back(Json{{"metric", name}, {"a", va}, {"b", vb}, {"ratio", ratio}});
    if (is_headline(name)) {
      headline_table.row(cells);
      if (chart["labels"].size() < kMaxRatioBars && !ratio.is_null()) {
        chart["labels"].push_back(short_metric_name(name));
        ratios.push_back(ratio);
      }
    }
  }
  if (only_one > 0) {
    s.notes.push_back(fmt::format("{} metric(s) of A are not in B and are left out.", only_one));
  }
  detail::add_series(chart, "B / A", std::move(ratios));
  // One bar per 22 pixels, so that every metric's name stays readable.
  chart["height_px"] = std::max<std::size_t>(320, 80 + 22 * chart["labels"].size());
  if (headline_table.rows() > 0) {
    s.body_html += headline_table.html();
  }
  s.body_html += fmt::format(
      "<details class=\"all-metrics\"><summary>All {} metrics of both results</summary>{}</details>\n",
      table.rows(), table.html());
  s.data["metrics"] = std::move(rows);
  s.data["charts"] = chart["labels"].empty() ? Json::array() : Json::array({std::move(chart)});
  return s;
}

}  // namespace gridlock::report
