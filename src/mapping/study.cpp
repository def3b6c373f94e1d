#include "gridlock/mapping/study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::mapping {
namespace {

// Metrics shown as table columns: `none` is left out (every message weighs 1, so its total is the
// graph's byte count whatever the placement; the JSON keeps it).
std::vector<WeightMetric> shown_metrics(const Study& study) {
  std::vector<WeightMetric> out;
  if (study.rows.empty()) {
    return out;
  }
  for (const auto& [metric, cost] : study.rows.front().costs.costs) {
    if (metric != WeightMetric::kNone) {
      out.push_back(metric);
    }
  }
  return out;
}

// 4 significant digits and the change against the baseline: `1.234e+07 (-12.3%)`.
std::string cell(double value, double baseline, bool is_baseline) {
  std::string number = fmt::format("{:.4g}", value);
  if (is_baseline) {
    return number;
  }
  const double change = percent_change(value, baseline);
  if (!std::isfinite(change)) {
    return fmt::format("{} (new)", number);
  }
  return fmt::format("{} ({:+.1f}%)", number, change);
}

std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      out += fmt::format(" {:<{}} |", cells[c], width[c]);
    }
    return out + "\n";
  };
  std::string out = line(header);
  std::vector<std::string> rule;
  rule.reserve(width.size());
  for (const auto w : width) {
    rule.emplace_back(w, '-');
  }
  out += line(rule);
  for (const auto& row : rows) {
    out += line(row);
  }
  return out;
}

}  // namespace

std::string Method::name() const {
  switch (kind) {
    case Kind::kIdentity:
      return "identity";
    case Kind::kCyclic:
      return "cyclic";
    case Kind::kRandom:
      return "random";
    case Kind::kGeometric:
      return "geometric";
    case Kind::kScotch:
      return fmt::format("scotch:{}", to_string(metric));
  }
  return "?";
}

Levels parse_levels(std::string_view text) {
  if (text == "auto") {
    return Levels::kAuto;
  }
  if (text == "cores") {
    return Levels::kCores;
  }
  if (text == "nodes") {
    return Levels::kNodes;
  }
  throw InputError(fmt::format("--levels '{}': use auto, cores (one level) or nodes (two levels)", text));
}

Method parse_method(std::string_view text, WeightMetric default_metric) {
  Method method;
  method.metric = default_metric;
  if (text == "identity") {
    method.kind = Method::Kind::kIdentity;
  } else if (text == "cyclic") {
    method.kind = Method::Kind::kCyclic;
  } else if (text == "random") {
    method.kind = Method::Kind::kRandom;
  } else if (text == "geometric") {
    method.kind = Method::Kind::kGeometric;
  } else if (text == "scotch") {
    method.kind = Method::Kind::kScotch;
  } else if (text.starts_with("scotch:")) {
    method.kind = Method::Kind::kScotch;
    method.metric = parse_weight_metric(text.substr(7));
  } else {
    throw InputError(fmt::format(
        "unknown mapping method '{}': use scotch, scotch:METRIC, identity, cyclic, random or geometric",
        printable_excerpt(text)));
  }
  return method;
}

std::vector<Method> comparison_methods(const Machine& machine) {
  std::vector<Method> out{{Method::Kind::kIdentity, WeightMetric::kHops},
                          {Method::Kind::kCyclic, WeightMetric::kHops},
                          {Method::Kind::kRandom, WeightMetric::kHops},
                          {Method::Kind::kGeometric, WeightMetric::kHops}};
  for (const auto metric : kAllWeightMetrics) {
    if (machine.has(metric)) {
      out.push_back({Method::Kind::kScotch, metric});
    }
  }
  return out;
}

Study run_study(const TaskGraph& graph, const Machine& machine, const std::vector<Method>& methods,
                const StudyOptions& options, const std::function<void(const std::string&)>& progress) {
  std::vector<Method> order{{Method::Kind::kIdentity, WeightMetric::kHops}};
  for (const auto& m : methods) {
    if (m.kind != Method::Kind::kIdentity) {
      order.push_back(m);
    }
  }
  Study study;
  const Allocation& allocation = machine.allocation();
  for (const auto& method : order) {
    if (progress) {
      progress(fmt::format("placing {} tasks on {} cores: {}", graph.num_tasks, allocation.num_cores(),
                           method.name()));
    }
    StudyRow row;
    row.method = method;
    const auto start = std::chrono::steady_clock::now();
    switch (method.kind) {
      case Method::Kind::kIdentity:
        row.placement = identity_placement(graph.num_tasks, allocation);
        break;
      case Method::Kind::kCyclic:
        row.placement = cyclic_placement(graph.num_tasks, allocation);
        break;
      case Method::Kind::kRandom:
        row.placement = random_placement(graph.num_tasks, allocation, options.seed);
        break;
      case Method::Kind::kGeometric:
        row.placement = geometric_placement(graph, machine);
        break;
      case Method::Kind::kScotch: {
        ScotchOptions scotch = options.scotch;
        scotch.seed = options.seed;
        row.placement = scotch_placement(graph, machine, method.metric, scotch, &row.scotch);
        break;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    row.costs = evaluate_placement(graph, machine, row.placement, method.name());
    row.costs.map_seconds = seconds;
    study.rows.push_back(std::move(row));
  }
  return study;
}

std::string study_table(const Study& study) {
  if (study.rows.empty()) {
    return {};
  }
  const auto metrics = shown_metrics(study);
  const CostRow& base = study.rows.front().costs;
  std::string out;
  for (const bool total : {true, false}) {
    std::vector<std::string> header{"mapping"};
    for (const auto metric : metrics) {
      header.push_back(std::string(to_string(metric)));
    }
    if (total) {
      header.emplace_back("hop-bytes");
      header.emplace_back("time (s)");
    }
    std::vector<std::vector<std::string>> rows;
    for (std::size_t r = 0; r < study.rows.size(); ++r) {
      const CostRow& row = study.rows[r].costs;
      std::vector<std::string> cells{row.mapping};
      for (const auto metric : metrics) {
        const Cost c = *row.cost(metric);
        const Cost b = *base.cost(metric);
        cells.push_back(total ? cell(c.total, b.total, r == 0) : cell(c.max_message, b.max_message, r == 0));
      }
      if (total) {
        cells.push_back(cell(row.hop_bytes, base.hop_bytes, r == 0));
        cells.push_back(fmt::format("{:.3f}", row.map_seconds));
      }
      rows.push_back(std::move(cells));
    }
    out += total ? "Total cost (sum over messages of bytes x weight; change against identity):\n"
                 : "\nCostliest single message (bytes x weight; the paper's Fig. 5):\n";
    out += markdown_table(header, rows);
  }
  return out;
}

std::size_t row_of(const Study& study, const Method& method) {
  std::size_t row = 0;
  for (std::size_t r = 0; r < study.rows.size(); ++r) {
    if (study.rows[r].method.name() == method.name()) {
      row = r;
    }
  }
  return row;
}

void check_tasks_fit(const TaskGraph& graph, const Allocation& allocation) {
  if (graph.num_tasks > allocation.num_cores()) {
    throw InputError(
        fmt::format("{} tasks ({}) do not fit on {} cores ({} nodes x {} cores per node): give more "
                    "--nodes or a larger --cores-per-node",
                    graph.num_tasks, graph.spec, allocation.num_cores(), allocation.num_nodes(),
                    allocation.cores_per_node));
  }
}

std::string map_report_text(const MapResult& result, const Machine& machine, const TaskGraph& graph,
                            std::uint64_t seed) {
  const StudyRow& row = result.study.rows[result.chosen];
  const Allocation& alloc = machine.allocation();
  std::string out = fmt::format("Topology {}; {} nodes x {} cores; tasks {} ({} messages, {} bytes)\n",
                                machine.topology().spec(), alloc.num_nodes(), alloc.cores_per_node,
                                graph.spec, graph.messages.size(), graph.total_bytes());
  out += fmt::format("Link metrics from {} in {:.3f} s; placement by {} (seed {})", result.source,
                     result.fetch_seconds, row.method.name(), seed);
  if (row.method.kind == Method::Kind::kScotch) {
    const ScotchReport& scotch = row.scotch;
    out += fmt::format(
        "; Scotch {} mapped {} on a {} architecture of {} terminals, best of {} tries, in {:.3f} s{}",
        scotch.scotch_version, scotch.levels, scotch.architecture, scotch.terminals, scotch.tries,
        scotch.build_seconds + scotch.map_seconds,
        scotch.repaired_tasks > 0
            ? fmt::format(" ({} tasks moved to make it one per core)", scotch.repaired_tasks)
            : std::string());
  }
  out += fmt::format("\n\n{}", study_table(result.study));
  if (!machine.has(WeightMetric::kBandwidth) && !machine.has(WeightMetric::kStalls)) {
    out += "(bw and stalls columns need a metric that reads them: --metric bw|stalls or --compare)\n";
  }
  return out;
}

}  // namespace gridlock::mapping
