#include "gridlock/oracle/tables.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace gridlock::oracle {

std::string_view metric_unit(Metric metric) noexcept {
  switch (metric) {
    case Metric::kHops:
      return "links";
    case Metric::kBandwidth:
      return "% used";
    case Metric::kStalls:
      return "% stalled";
  }
  return "";
}

std::string metrics_table(const std::vector<std::pair<std::string, std::string>>& pairs, Metric metric,
                          Reducer reducer, const std::vector<double>& values) {
  if (values.size() != pairs.size()) {
    throw std::invalid_argument(
        fmt::format("metrics_table: {} values for {} pairs", values.size(), pairs.size()));
  }
  std::string out = fmt::format("| src | dst | reducer | {} ({}) |\n| --- | --- | --- | --- |\n",
                                to_string(metric), metric_unit(metric));
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    out += fmt::format("| {} | {} | {} | {:.6g} |\n", pairs[i].first, pairs[i].second, to_string(reducer),
                       values[i]);
  }
  return out;
}

std::string matrix_table(const std::vector<std::string>& nodes, Metric metric, Reducer reducer,
                         const std::vector<double>& values) {
  const std::size_t n = nodes.size();
  if (values.size() != n * n) {
    throw std::invalid_argument(fmt::format("matrix_table: {} values for {} nodes", values.size(), n));
  }
  std::string out = fmt::format("| {} {} ({}) |", to_string(metric), to_string(reducer), metric_unit(metric));
  std::string rule = "| --- |";
  for (const auto& node : nodes) {
    out += fmt::format(" {} |", node);
    rule += " --- |";
  }
  out += "\n" + rule + "\n";
  for (std::size_t i = 0; i < n; ++i) {
    out += fmt::format("| {} |", nodes[i]);
    for (std::size_t j = 0; j < n; ++j) {
      out += fmt::format(" {:.6g} |", values[i * n + j]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace gridlock::oracle
