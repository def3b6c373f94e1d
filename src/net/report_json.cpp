#include "gridlock/net/report_json.hpp"

#include <utility>

#include "gridlock/sim/run_report_json.hpp"

namespace gridlock::net {
namespace {

const char* to_string(PlacementKind kind) noexcept {
  switch (kind) {
    case PlacementKind::kRandom:
      return "random";
    case PlacementKind::kRankfile:
      return "rankfile";
    case PlacementKind::kIdentity:
      break;
  }
  return "identity";
}

}  // namespace

Json net_report_json(const NetReport& report) {
  Json histogram = Json::array();
  for (const std::uint64_t n : report.utilisation_histogram) {
    histogram.push_back(n);
  }
  Json top = Json::array();
  for (const LinkUse& use : report.top_links) {
    top.push_back({{"link", use.link},
                   {"name", use.name},
                   {"kind", to_string(use.kind)},
                   {"bytes", use.bytes},
                   {"utilisation", use.utilisation}});
  }
  const SlowdownSummary& s = report.slowdown;
  return Json{
      {"makespan_ps", report.makespan_ps},
      {"messages", report.messages},
      {"network_messages", report.network_messages},
      {"bytes", report.bytes},
      {"links", {{"total", report.links}, {"busy", report.busy_links}, {"idle", report.idle_links}}},
      {"utilisation",
       {{"mean_busy", report.mean_busy_utilisation},
        {"p99_busy", report.p99_busy_utilisation},
        {"max", report.max_utilisation},
        {"histogram", std::move(histogram)}}},
      {"top_links", std::move(top)},
      {"slowdown", {{"count", s.count}, {"mean", s.mean}, {"p50", s.p50}, {"p99", s.p99}, {"max", s.max}}}};
}

Json network_json(const Network& network, const PlacementChoice& placement, const std::string& title,
                  const NetReport& report) {
  const bool rankfile = placement.spec.kind == PlacementKind::kRankfile;
  return Json{
      {"model", report.model},
      {"spec", network.topology().spec()},
      {"description", title},
      {"placement",
       {{"kind", to_string(placement.spec.kind)},
        {"rankfile", rankfile ? Json(placement.spec.rankfile) : Json(nullptr)},
        {"ranks_per_node", rankfile ? Json(nullptr) : Json(placement.ranks_per_node)},
        {"seed", placement.spec.kind == PlacementKind::kRandom ? Json(placement.seed) : Json(nullptr)},
        {"description", network.placement().description}}},
      {"parameters",
       {{"hop_latency_ps", network.params().hop_latency_ps},
        {"spread", network.params().spread},
        {"spread_seed", network.params().spread ? Json(network.params().spread_seed) : Json(nullptr)}}},
      {"report", net_report_json(report)}};
}

void write_run_json(const std::string& path, const Json& context, const sim::SimResult& result, bool per_rank,
                    const Json& network) {
  write_json_file(path, context,
                  Json{{"result", sim::run_result_json(result, per_rank)}, {"network", network}});
}

Json packet_options_json(const PacketOptions& options) {
  Json out = {{"packet_bytes", options.packet_bytes},
              {"buffer_bytes", options.buffer_bytes},
              {"vcs", options.vcs},
              {"routing", to_string(options.routing)},
              {"congestion_control", options.congestion_control}};
  if (options.routing == Routing::kUgal) {
    out["ugal_rule"] = to_string(options.ugal_rule);
    if (options.ugal_rule == UgalRule::kBookSim) {
      out["ugal_threshold_bytes"] = options.ugal_threshold_bytes;
    }
  }
  // Only where set, as the model's describe() names them.
  for (const auto& [key, ps] : {std::pair{"terminal_latency_ps", options.terminal_latency_ps},
                                std::pair{"global_extra_latency_ps", options.global_extra_latency_ps},
                                std::pair{"credit_latency_ps", options.credit_latency_ps},
                                std::pair{"vc_turnaround_ps", options.vc_turnaround_ps}}) {
    if (ps != 0) {
      out[key] = ps;
    }
  }
  return out;
}

}  // namespace gridlock::net
