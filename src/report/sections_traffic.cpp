// The section of `gridlock predict traffic --json` (schema gridlock.predict.traffic,
// docs/formats/predict-traffic-json.md): the latency-load curve and accepted against offered
// throughput, with the saturation throughput.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report::detail {

Section predict_traffic_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  const std::string network = text(context, "network", "a network");
  s.title =
      fmt::format("gridlock predict traffic: {} on {} ({} model, {} routing)", text(context, "pattern", "?"),
                  network.substr(0, network.find(',')), text(context, "net_model", "?"),
                  text(field(context, "packet"), "routing", "minimal"));
  const Json& points = field(document, "points");
  if (!points.is_array() || points.empty()) {
    s.notes.emplace_back("This result has no points: nothing to chart.");
    s.data["charts"] = Json::array();
    return s;
  }
  Table table("Latency and accepted throughput per offered load (fractions of the injection bandwidth)",
              {"offered", "accepted", "latency avg (ns)", "latency 99% (ns)", "hops", "state"});
  Json latency_chart =
      make_chart("line", "Packet latency against offered load", "offered load", "latency (ns)");
  Json accepted_chart = make_chart("line", "Accepted against offered throughput", "offered load",
                                   "accepted (fraction of injection bandwidth)");
  Json avg = Json::array();
  Json p99 = Json::array();
  Json accepted = Json::array();
  Json ideal = Json::array();
  for (const Json& p : points) {
    const std::string offered = format_number(field(p, "offered"));
    const bool saturated = field(p, "saturated").is_boolean() && field(p, "saturated").get<bool>();
    const bool converged = field(p, "converged").is_boolean() && field(p, "converged").get<bool>();
    table.row({offered, format_number(field(p, "accepted")), format_number(field(p, "latency_avg_ns")),
               format_number(field(p, "latency_p99_ns")), format_number(field(p, "hops_avg")),
               saturated   ? "saturated"
               : converged ? "ok"
                           : "not converged"});
    latency_chart["labels"].push_back(offered);
    accepted_chart["labels"].push_back(offered);
    avg.push_back(field(p, "latency_avg_ns").is_number() ? field(p, "latency_avg_ns") : Json(nullptr));
    p99.push_back(field(p, "latency_p99_ns").is_number() ? field(p, "latency_p99_ns") : Json(nullptr));
    accepted.push_back(field(p, "accepted").is_number() ? field(p, "accepted") : Json(nullptr));
    ideal.push_back(field(p, "offered").is_number() ? field(p, "offered") : Json(nullptr));
  }
  add_series(latency_chart, "average", std::move(avg));
  add_series(latency_chart, "99th percentile", std::move(p99));
  if (const auto zero = number(field(document, "zero_load"), "latency_ns")) {
    latency_chart["reference"] = *zero;
    latency_chart["reference_label"] = fmt::format("zero-load latency ({} ns)", format_number(Json(*zero)));
  }
  add_series(accepted_chart, "accepted", std::move(accepted));
  add_series(accepted_chart, "offered (all accepted)", std::move(ideal));
  const Json& saturation = field(document, "saturation");
  const Json& first = field(saturation, "first_saturated_load");
  s.notes.push_back(fmt::format(
      "Saturation throughput {} (accepted at the highest offered load, {}); first saturated load: {}. A "
      "point is saturated when accepted < 0.95 x offered, its average latency exceeds 10 x the zero-load "
      "latency, or packets of its window were not delivered by the drain cap; its latency then covers the "
      "delivered packets only.",
      format_number(field(saturation, "throughput")), format_number(field(saturation, "offered")),
      first.is_number() ? format_number(first) : std::string("none")));
  s.notes.push_back(fmt::format("Pattern: {}.", text(context, "pattern_description", "?")));
  s.body_html += table.html();
  s.data["charts"] = Json::array({std::move(latency_chart), std::move(accepted_chart)});
  return s;
}

}  // namespace gridlock::report::detail
