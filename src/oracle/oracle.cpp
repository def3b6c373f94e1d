#include "gridlock/oracle/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/topo/topology_json.hpp"

namespace gridlock::oracle {

Metric parse_metric(std::string_view text) {
  if (text == "hops") {
    return Metric::kHops;
  }
  if (text == "bw") {
    return Metric::kBandwidth;
  }
  if (text == "stalls") {
    return Metric::kStalls;
  }
  throw InputError(fmt::format("unknown metric '{}': use hops, bw or stalls", text));
}

Reducer parse_reducer(std::string_view text) {
  if (text == "max") {
    return Reducer::kMax;
  }
  if (text == "sum") {
    return Reducer::kSum;
  }
  if (text == "min") {
    return Reducer::kMin;
  }
  throw InputError(fmt::format("unknown reducer '{}': use max, sum or min", text));
}

std::string_view to_string(Metric metric) noexcept {
  switch (metric) {
    case Metric::kHops:
      return "hops";
    case Metric::kBandwidth:
      return "bw";
    case Metric::kStalls:
      return "stalls";
  }
  return "?";
}

std::string_view to_string(Reducer reducer) noexcept {
  switch (reducer) {
    case Reducer::kMax:
      return "max";
    case Reducer::kSum:
      return "sum";
    case Reducer::kMin:
      return "min";
  }
  return "?";
}

Oracle::Oracle(const topo::Topology& topology, const MetricStore& store)
    : topology_(topology), store_(store) {}

std::shared_ptr<const Snapshot> Oracle::snapshot(double window_s) const {
  const std::uint64_t version = store_.version();
  {
    const std::lock_guard lock(cache_mutex_);
    for (const auto& cached : cache_) {
      if (cached->version == version && cached->window_s == window_s) {
        return cached;
      }
    }
  }
  // Computed outside the lock: a snapshot of a long window takes a while, and other windows'
  // queries need not wait for it.
  auto fresh = std::make_shared<const Snapshot>(store_.snapshot(window_s));
  const std::lock_guard lock(cache_mutex_);
  std::erase_if(cache_, [&](const auto& cached) {
    return cached->version != fresh->version || cached->window_s == window_s;
  });
  if (cache_.size() >= kSnapshotCacheWindows) {
    cache_.erase(cache_.begin());
  }
  cache_.push_back(fresh);
  return fresh;
}

double Oracle::pair_value(const Snapshot& snap, topo::NodeId src, topo::NodeId dst, const MetricQuery& query,
                          std::vector<topo::LinkId>& scratch) const {
  topology_.route_into(src, dst, scratch);
  if (query.metric == Metric::kHops) {
    return static_cast<double>(scratch.size());
  }
  const bool endpoints = query.endpoints && src != dst;
  if (scratch.empty() && !endpoints) {
    return 0;
  }
  double out = query.reducer == Reducer::kMin ? std::numeric_limits<double>::infinity() : 0;
  const auto take = [&](topo::LinkId link) {
    const auto& m = snap.links[link];
    const double v = query.metric == Metric::kBandwidth ? m.used_bw_pct : m.stall_pct;
    switch (query.reducer) {
      case Reducer::kMax:
        out = std::max(out, v);
        break;
      case Reducer::kSum:
        out += v;
        break;
      case Reducer::kMin:
        out = std::min(out, v);
        break;
    }
  };
  if (endpoints) {
    take(topology_.injection_link(src));
    take(topology_.ejection_link(dst));
  }
  for (const auto link : scratch) {
    take(link);
  }
  return out;
}

std::vector<double> Oracle::route_metrics(const std::vector<std::pair<topo::NodeId, topo::NodeId>>& pairs,
                                          const MetricQuery& query) const {
  const auto snap = snapshot(query.window_s);
  std::vector<double> out;
  out.reserve(pairs.size());
  std::vector<topo::LinkId> scratch;
  for (const auto& [src, dst] : pairs) {
    double v = pair_value(*snap, src, dst, query, scratch);
    if (query.undirected) {
      v = std::max(v, pair_value(*snap, dst, src, query, scratch));
    }
    out.push_back(v);
  }
  return out;
}

std::vector<double> Oracle::metric_matrix(const std::vector<topo::NodeId>& nodes,
                                          const MetricQuery& query) const {
  const auto snap = snapshot(query.window_s);
  const std::size_t n = nodes.size();
  std::vector<double> out(n * n, 0.0);
  std::vector<topo::LinkId> scratch;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j) {
        out[i * n + j] = pair_value(*snap, nodes[i], nodes[j], query, scratch);
      }
    }
  }
  if (query.undirected) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const double v = std::max(out[i * n + j], out[j * n + i]);
        out[i * n + j] = v;
        out[j * n + i] = v;
      }
    }
  }
  return out;
}

Json Oracle::route_detail(topo::NodeId src, topo::NodeId dst, double window_s) const {
  const auto snap = snapshot(window_s);
  Json out = topo::route_json(topology_, src, dst);
  for (auto& link : out["links"]) {
    const auto& m = snap->links[link["id"].get<topo::LinkId>()];
    link["used_bw_pct"] = m.used_bw_pct;
    link["stall_pct"] = m.stall_pct;
    link["bytes_per_s"] = m.bytes_per_s;
    link["has_data"] = m.has_data;
  }
  out["window_s"] = window_s;
  out["time_s"] = snap->now_s;
  return out;
}

Json Oracle::top_links(std::size_t count, double window_s) const {
  const auto snap = snapshot(window_s);
  std::vector<topo::LinkId> ids(snap->links.size());
  std::iota(ids.begin(), ids.end(), topo::LinkId{0});
  const auto& links = snap->links;
  // Percentages are compared at 1e-6 % so that equal loads computed along different arithmetic
  // paths tie. At equal percentage the link carrying more bytes comes first: links of different
  // capacities tie often (on a Gemini torus one flow on a Y link is the same % as two on a Z link),
  // and the busier one matters to more traffic.
  const auto pct_key = [](double pct) { return std::llround(pct * 1e6); };
  std::sort(ids.begin(), ids.end(), [&](topo::LinkId a, topo::LinkId b) {
    const auto& x = links[a];
    const auto& y = links[b];
    if (pct_key(x.used_bw_pct) != pct_key(y.used_bw_pct)) {
      return pct_key(x.used_bw_pct) > pct_key(y.used_bw_pct);
    }
    if (x.bytes_per_s != y.bytes_per_s) {
      return x.bytes_per_s > y.bytes_per_s;
    }
    if (x.stall_pct != y.stall_pct) {
      return x.stall_pct > y.stall_pct;
    }
    if (x.has_data != y.has_data) {
      return x.has_data;
    }
    return a < b;
  });
  Json out = Json::array();
  for (std::size_t i = 0; i < std::min(count, ids.size()); ++i) {
    const auto id = ids[i];
    const auto& link = topology_.links()[id];
    out.push_back({{"id", id},
                   {"name", topology_.link_name(id)},
                   {"direction", link.direction},
                   {"in_port", link.in_port},
                   {"used_bw_pct", links[id].used_bw_pct},
                   {"stall_pct", links[id].stall_pct},
                   {"bytes_per_s", links[id].bytes_per_s},
                   {"has_data", links[id].has_data}});
  }
  return out;
}

}  // namespace gridlock::oracle
