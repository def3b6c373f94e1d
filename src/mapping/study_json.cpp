#include "gridlock/mapping/study_json.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "gridlock/mapping/task_graph_json.hpp"

namespace gridlock::mapping {
namespace {

Json cost_json(const Cost& cost, const Cost& baseline) {
  return {{"total", cost.total},
          {"max_message", cost.max_message},
          {"total_change_pct", percent_change(cost.total, baseline.total)},
          {"max_message_change_pct", percent_change(cost.max_message, baseline.max_message)}};
}

}  // namespace

Json study_json(const Study& study, const Machine& machine, const std::vector<std::size_t>& with_placement) {
  Json rows = Json::array();
  if (study.rows.empty()) {
    return rows;
  }
  const CostRow& base = study.rows.front().costs;
  const Allocation& allocation = machine.allocation();
  for (std::size_t r = 0; r < study.rows.size(); ++r) {
    const StudyRow& row = study.rows[r];
    Json costs = Json::object();
    for (const auto& [metric, cost] : row.costs.costs) {
      costs[std::string(to_string(metric))] = cost_json(cost, *base.cost(metric));
    }
    Json item{{"mapping", row.method.name()},
              {"costs", std::move(costs)},
              {"hop_bytes", row.costs.hop_bytes},
              {"hop_bytes_change_pct", percent_change(row.costs.hop_bytes, base.hop_bytes)},
              {"seconds", row.costs.map_seconds}};
    if (row.method.kind == Method::Kind::kScotch) {
      item["scotch"] = {{"version", row.scotch.scotch_version},
                        {"levels", row.scotch.levels},
                        {"architecture", row.scotch.architecture},
                        {"terminals", row.scotch.terminals},
                        {"repaired_tasks", row.scotch.repaired_tasks},
                        {"tries", row.scotch.tries},
                        {"refine_swaps", row.scotch.swaps},
                        {"build_seconds", row.scotch.build_seconds},
                        {"map_seconds", row.scotch.map_seconds}};
    }
    if (std::find(with_placement.begin(), with_placement.end(), r) != with_placement.end()) {
      Json node = Json::array();
      Json slot = Json::array();
      for (const auto core : row.placement) {
        node.push_back(allocation.names[allocation.node_of_core(core)]);
        slot.push_back(allocation.slot_of_core(core));
      }
      item["placement"] = {{"core", row.placement}, {"node", std::move(node)}, {"slot", std::move(slot)}};
    }
    rows.push_back(std::move(item));
  }
  return rows;
}

Json map_context(const MapParameters& parameters, const MapResult& result, const Machine& machine,
                 const TaskGraph& graph) {
  const Allocation& alloc = machine.allocation();
  Json context = base_context("gridlock map", schemas::kMap);
  context["seed"] = parameters.seed;
  context["parameters"] = {{"topology", machine.topology().spec()},
                           {"nodes", alloc.names},
                           {"cores_per_node", alloc.cores_per_node},
                           {"tasks", graph.spec},
                           {"metric", parameters.metric},
                           {"method", result.study.rows[result.chosen].method.name()},
                           {"source", result.source},
                           {"sim_rate", parameters.sim_rate},
                           {"timeout_s", parameters.timeout_s},
                           {"levels", parameters.levels},
                           {"two_level_above", parameters.two_level_above},
                           {"architecture", parameters.architecture},
                           {"stall_weight", parameters.stall_weight},
                           {"compare", parameters.compare},
                           {"refine", parameters.refine},
                           {"tries", parameters.tries}};
  return context;
}

Json map_body(const MapResult& result, const Machine& machine, const TaskGraph& graph) {
  return Json{{"task_graph", summary_json(graph)},
              {"metrics", {{"source", result.source}, {"fetch_seconds", result.fetch_seconds}}},
              {"chosen", result.study.rows[result.chosen].method.name()},
              {"mappings", study_json(result.study, machine, {result.chosen})}};
}

}  // namespace gridlock::mapping
