#include "gridlock/mapping/reorder_json.hpp"

#include <string>
#include <utility>

namespace gridlock::mapping {

namespace {

Json costs_json(const CostRow& row, const CostRow& baseline) {
  Json costs = Json::object();
  for (const auto& [metric, cost] : row.costs) {
    const Cost base = baseline.cost(metric).value_or(cost);
    costs[std::string(to_string(metric))] = {{"total", cost.total},
                                             {"max_message", cost.max_message},
                                             {"total_change_pct", percent_change(cost.total, base.total)}};
  }
  return {{"costs", std::move(costs)},
          {"hop_bytes", row.hop_bytes},
          {"hop_bytes_change_pct", percent_change(row.hop_bytes, baseline.hop_bytes)}};
}

}  // namespace

Json reorder_record_json(const ReorderRecord& record) {
  Json item{{"call", record.call},       {"binding", record.binding}, {"comm_size", record.comm_size},
            {"members", record.members}, {"graph", record.graph},     {"messages", record.messages}};
  if (!record.error.empty()) {
    item["reordered"] = false;
    item["error"] = record.error;
    return item;
  }
  const ReorderPlan& plan = record.plan;
  item["reordered"] = plan.reordered;
  if (!plan.note.empty()) {
    item["note"] = plan.note;
  }
  item["machine"] = plan.machine;
  item["method"] = plan.method;
  item["metric"] = std::string(to_string(plan.metric));
  if (!plan.method.empty()) {
    item["before"] = costs_json(plan.before, plan.before);
    item["after"] = costs_json(plan.after, plan.before);
  }
  item["seconds"] = plan.seconds;
  return item;
}

Json reorder_report_context(std::uint32_t world_size, const std::string& mpi_library,
                            const ReorderConfig& config) {
  Json context = base_context("libgridlock-reorder", schemas::kReorder);
  context["ranks"] = world_size;
  context["mpi_library"] = mpi_library;
  context["seed"] = config.seed;
  context["parameters"] = {{"topology", config.topology},
                           {"nodes", config.nodes},
                           {"oracle", config.oracle},
                           {"metric", std::string(to_string(config.metric))},
                           {"virtual_nodes", config.virtual_nodes},
                           {"method", std::string(to_string(config.method))}};
  return context;
}

}  // namespace gridlock::mapping
