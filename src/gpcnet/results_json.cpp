#include "gridlock/gpcnet/results_json.hpp"

#include <cmath>

#include <fmt/format.h>

namespace gridlock::gpcnet {
namespace {

// NaN and infinities become JSON null (nlohmann does this too, but explicit is clearer).
Json number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json canary_to_json(const CanaryResult& c, Average average) {
  Json j;
  j["key"] = c.key;
  j["name"] = c.title;
  j["units"] = c.units;
  j["better"] = c.better == Better::kLower ? "lower" : "higher";
  j["avg"] = number(c.avg(average));
  j["population"] = "pooled per-iteration samples of all canary ranks";
  j["samples"] = c.fine.count;
  j["mean"] = number(c.fine.mean);
  j["min"] = number(c.fine.min);
  j["p0_1"] = number(c.fine.p0_1);
  j["p1"] = number(c.fine.p1);
  j["median"] = number(c.fine.median);
  j["p99"] = number(c.fine.p99);
  j["p99_9"] = number(c.fine.p99_9);
  j["max"] = number(c.fine.max);
  j["tail99"] = number(c.tail99());
  j["tail99_9"] = number(c.fine.tail99_9(c.better));
  Json bulk;
  bulk["population"] = "per-rank means of the bulk timer over ring blocks";
  bulk["mean_of_rank_means"] = number(c.bulk_mean);
  bulk["min_rank_mean"] = number(c.bulk_min);
  bulk["max_rank_mean"] = number(c.bulk_max);
  j["bulk"] = bulk;
  j["ranks"] = c.ranks;
  j["blocks_completed"] = c.blocks_completed;
  j["blocks_planned"] = c.blocks_planned;
  j["timed_out"] = c.timed_out;
  j["skipped"] = c.skipped;
  j["elapsed_s"] = number(c.elapsed_s);
  Json congestors = Json::array();
  for (const auto& g : c.congestors) {
    Json cj;
    cj["type"] = congestor_key(g.type);
    cj["ranks"] = g.ranks;
    cj["iterations"] = g.iterations;
    cj["bytes"] = g.bytes;
    cj["mib_per_s_total"] = number(g.mib_per_s_total);
    cj["mib_per_s_per_rank"] = number(g.mib_per_s_per_rank);
    cj["timed_out"] = g.timed_out;
    congestors.push_back(cj);
  }
  j["congestor_throughput"] = congestors;
  if (c.stopping.active) {
    // Only `gridlock predict gpcnet --precision` writes it (docs/formats/bench-json.md).
    const StoppingRule& s = c.stopping;
    j["stopping"] = {{"rule", "precision"},
                     {"target", s.target},
                     {"iterations", s.iterations},
                     {"samples", s.iterations * c.ranks},
                     {"cap", s.cap},
                     {"fixed", s.fixed},
                     {"mean_half_width", number(s.mean_half_width)},
                     {"tail_half_width", number(s.tail_half_width)},
                     {"met", s.met}};
  }
  return j;
}

}  // namespace

Json report_body(const Report& report) {
  Json body;
  Json roles;
  for (const auto& [name, nodes] : report.roles) {
    roles[name] = nodes;
  }
  body["roles"] = roles;
  body["canary_ring0"] = report.canary_ring0;
  body["average"] = average_key(report.average);
  for (const auto& phase : report.phases) {
    Json p;
    Json active = Json::array();
    for (const auto type : phase.active) {
      active.push_back(congestor_key(type));
    }
    p["congestors"] = active;
    Json canaries = Json::array();
    for (const auto& c : phase.canaries) {
      canaries.push_back(canary_to_json(c, report.average));
    }
    p["canaries"] = canaries;
    body["phases"][phase.label] = p;
  }
  Json impacts = Json::array();
  for (const auto& row : congestion_impacts(report)) {
    Json r;
    r["phase"] = row.phase;
    r["key"] = row.key;
    r["name"] = row.title;
    r["mean"] = number(row.mean);
    r["tail99"] = number(row.tail99);
    impacts.push_back(r);
  }
  body["congestion_impact"] = impacts;
  Json timeouts = Json::array();
  for (const auto& phase : report.phases) {
    for (const auto& c : phase.canaries) {
      if (c.timed_out || c.skipped) {
        Json t;
        t["phase"] = phase.label;
        t["key"] = c.key;
        t["reason"] = c.skipped ? "deadline" : "test_timeout";
        t["blocks_completed"] = c.blocks_completed;
        t["blocks_planned"] = c.blocks_planned;
        timeouts.push_back(t);
      }
      for (const auto& g : c.congestors) {
        if (g.timed_out) {
          Json t;
          t["phase"] = phase.label;
          t["key"] = c.key;
          t["reason"] = fmt::format("congestor {} stopped by its own timeout", congestor_key(g.type));
          timeouts.push_back(t);
        }
      }
    }
  }
  body["timeouts"] = timeouts;
  body["notes"] = report.notes;
  body["status"] = !report.split_error.empty() ? "split_launch_failed"
                   : timeouts.empty()          ? "complete"
                                               : "cut_short";
  if (!report.split_launch.is_null()) {
    body["split_launch"] = report.split_launch;
  }
  return body;
}

}  // namespace gridlock::gpcnet
