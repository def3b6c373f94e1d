#include "gridlock/predict/traffic_json.hpp"

#include <fmt/format.h>

#include "gridlock/net/report_json.hpp"

namespace gridlock::predict {

using net::ModelKind;

Json traffic_context(const TrafficReport& report, const TrafficOptions& options) {
  Json context = base_context("gridlock predict traffic", schemas::kPredictTraffic);
  context["simulated"] = true;
  context["network"] = report.network;
  context["net_model"] = to_string(options.model);
  context["model"] = report.model;
  if (options.model == ModelKind::kPacket) {
    context["packet"] = net::packet_options_json(options.packet);
  } else {
    context["packet"] = {{"packet_bytes", options.packet.packet_bytes}};
  }
  context["pattern"] = report.pattern;
  context["pattern_description"] = report.pattern_description;
  context["nodes"] = report.nodes;
  context["senders"] = report.senders;
  context["seed"] = options.seed;
  context["seed_source"] = "option";
  context["parameters"] = {{"hop_latency_ps", options.hop_latency_ps},
                           {"warmup_packet_times", options.warmup_packet_times},
                           {"batch_packet_times", options.batch_packet_times},
                           {"min_batches", options.min_batches},
                           {"max_batches", options.max_batches},
                           {"max_time_ps", options.max_time_ps},
                           {"window_packets", kTrafficWindowPackets},
                           {"saturation_accepted_share", kSaturationAcceptedShare},
                           {"saturation_latency_factor", kSaturationLatencyFactor}};
  double run_s = 0;
  for (const TrafficPoint& p : report.points) {
    run_s += p.run_s;
  }
  context["run_s"] = run_s;
  return context;
}

Json traffic_body(const TrafficReport& report) {
  Json body;
  body["injection"] = {{"bytes_per_s", report.injection_bytes_per_s},
                       {"packet_time_ps", report.packet_time_ps}};
  body["zero_load"] = {{"latency_ns", report.zero_load_latency_ns}, {"hops_avg", report.zero_load_hops}};
  Json points = Json::array();
  for (const TrafficPoint& p : report.points) {
    points.push_back({{"offered", p.offered},
                      {"accepted", p.accepted},
                      {"latency_avg_ns", p.latency_avg_ns},
                      {"latency_p99_ns", p.latency_p99_ns},
                      {"hops_avg", p.hops_avg},
                      {"packets", p.packets},
                      {"delivered", p.delivered},
                      {"batches", p.batches},
                      {"converged", p.converged},
                      {"saturated", p.saturated}});
  }
  body["points"] = points;
  body["saturation"] = {
      {"throughput", report.saturation_throughput},
      {"offered", report.saturation_offered},
      {"first_saturated_load",
       report.first_saturated_load < 0 ? Json(nullptr) : Json(report.first_saturated_load)}};
  return body;
}

std::string traffic_csv(const TrafficReport& report, const Json& context) {
  CsvWriter csv(context, {"offered", "accepted", "latency_avg_ns", "latency_p99_ns", "hops_avg", "packets",
                          "delivered", "batches", "converged", "saturated"});
  // fmt's shortest round-trip form: the JSON's numbers, digit for digit.
  for (const TrafficPoint& p : report.points) {
    csv.add_row({fmt::format("{}", p.offered), fmt::format("{}", p.accepted),
                 fmt::format("{}", p.latency_avg_ns), fmt::format("{}", p.latency_p99_ns),
                 fmt::format("{}", p.hops_avg), fmt::format("{}", p.packets), fmt::format("{}", p.delivered),
                 fmt::format("{}", p.batches), p.converged ? "true" : "false",
                 p.saturated ? "true" : "false"});
  }
  return csv.content();
}

}  // namespace gridlock::predict
