#include "gridlock/mapping/machine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/wall_clock.hpp"
#include "gridlock/oracle/client.hpp"
#include "gridlock/oracle/metric_store.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::mapping {
namespace {

// The source of no load at all: every link idle.
constexpr std::string_view kNoLoadSource = "sim:none";

// Per-link values of the dynamic metrics, indexed by LinkId.
struct LinkValues {
  std::vector<double> bw_pct;
  std::vector<double> stall_pct;
};

// Hops, and the largest link value of each dynamic metric, over the route between every pair of
// allocated nodes, the larger direction of the two (the oracle's `max` reducer with `undirected`).
// One pass computes each route once for every metric.
void fill_route_matrices(const topo::Topology& topology, const Allocation& allocation,
                         const LinkValues& values, MetricNeeds needs, NodeMetrics& out) {
  const std::size_t n = allocation.nodes.size();
  out.hops.assign(n * n, 0.0F);
  if (needs.bw) {
    out.bw_pct.assign(n * n, 0.0F);
  }
  if (needs.stalls) {
    out.stall_pct.assign(n * n, 0.0F);
  }
  std::vector<topo::LinkId> route;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) {
        continue;
      }
      topology.route_into(allocation.nodes[i], allocation.nodes[j], route);
      double bw = 0;
      double stall = 0;
      for (const auto link : route) {
        // No values (sim:none): every link is idle.
        if (needs.bw && !values.bw_pct.empty()) {
          bw = std::max(bw, values.bw_pct[link]);
        }
        if (needs.stalls && !values.stall_pct.empty()) {
          stall = std::max(stall, values.stall_pct[link]);
        }
      }
      // Fill the upper triangle from both directions: (i, j) keeps the larger of i->j and j->i.
      const std::size_t at = i < j ? i * n + j : j * n + i;
      out.hops[at] = std::max(out.hops[at], static_cast<float>(route.size()));
      if (needs.bw) {
        out.bw_pct[at] = std::max(out.bw_pct[at], static_cast<float>(bw));
      }
      if (needs.stalls) {
        out.stall_pct[at] = std::max(out.stall_pct[at], static_cast<float>(stall));
      }
    }
  }
  for (auto* matrix : {&out.hops, &out.bw_pct, &out.stall_pct}) {
    if (matrix->empty()) {
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        (*matrix)[i * n + j] = (*matrix)[j * n + i];
      }
    }
  }
}

// A number field of an oracle answer, or an error naming the URL (the answer is not trusted).
double number_field(const Json& object, const char* key, std::string_view url) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) {
    throw Error(fmt::format("the oracle at {} answered /v1/links without a number '{}' in a link", url, key));
  }
  return it->get<double>();
}

NodeMetrics from_service(const topo::Topology& topology, const Allocation& allocation, std::string_view url,
                         MetricNeeds needs, const FetchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  NodeMetrics out;
  out.num_nodes = allocation.num_nodes();
  out.source = fmt::format("oracle:{}", url);
  LinkValues values;
  if (needs.bw || needs.stalls) {
    // The answer to /v1/links grows with the links (about 200 bytes each): the client's limit of an
    // answer's size follows them, with room, so that only a runaway answer is refused.
    constexpr std::size_t kAnswerBytesPerLink = 512;
    const std::size_t answer_limit = std::clamp(topology.links().size() * kAnswerBytesPerLink,
                                                oracle::kDefaultMaxResponseBytes, oracle::kMaxResponseBytes);
    oracle::Client client{std::string(url), options.timeout_s, answer_limit};
    // --timeout bounds the whole conversation (topology, then links), not each request.
    client.set_total_timeout(options.timeout_s);
    // The oracle's links must be ours, or its metrics would be joined with the wrong routes.
    const Json remote = client.topology();
    const auto spec_it = remote.find("spec");
    const std::string remote_spec =
        spec_it != remote.end() && spec_it->is_string() ? spec_it->get<std::string>() : "";
    if (remote_spec != topology.spec()) {
      throw InputError(fmt::format(
          "the oracle at {} serves topology '{}', not '{}': give the topology the oracle serves (or start "
          "'gridlock oracle serve {}')",
          url, printable_excerpt(remote_spec, 120), topology.spec(), topology.spec()));
    }
    // One request for every link's metrics (O(links), not O(nodes^2) like /v1/metric-matrix); the
    // routes are the same on both sides, so the maxima are computed here.
    const std::size_t links = topology.links().size();
    if (links > 1000000) {
      throw InputError(
          fmt::format("topology '{}' has {} links; the oracle serves at most 1,000,000 per request",
                      topology.spec(), links));
    }
    const Json answer = client.get(fmt::format("/v1/links?top={}&window_s={}", links, options.window_s));
    const auto list = answer.find("links");
    if (list == answer.end() || !list->is_array()) {
      throw Error(fmt::format("the oracle at {} answered /v1/links without a 'links' array", url));
    }
    values.bw_pct.assign(links, 0.0);
    values.stall_pct.assign(links, 0.0);
    for (const auto& link : *list) {
      const double id = number_field(link, "id", url);
      if (!(id >= 0) || id >= static_cast<double>(links)) {
        throw Error(fmt::format("the oracle at {} answered a link id {} outside 0..{}", url, id, links - 1));
      }
      const auto index = static_cast<std::size_t>(id);
      values.bw_pct[index] = number_field(link, "used_bw_pct", url);
      values.stall_pct[index] = number_field(link, "stall_pct", url);
    }
  }
  fill_route_matrices(topology, allocation, values, needs, out);
  out.fetch_seconds = seconds_since(start);
  return out;
}

}  // namespace

WeightMetric parse_weight_metric(std::string_view text) {
  for (const auto metric : kAllWeightMetrics) {
    if (text == to_string(metric)) {
      return metric;
    }
  }
  throw InputError(
      fmt::format("unknown metric '{}': use none, hops, bw, stalls or hops+stalls", printable_excerpt(text)));
}

std::string_view to_string(WeightMetric metric) noexcept {
  switch (metric) {
    case WeightMetric::kNone:
      return "none";
    case WeightMetric::kHops:
      return "hops";
    case WeightMetric::kBandwidth:
      return "bw";
    case WeightMetric::kStalls:
      return "stalls";
    case WeightMetric::kHopsStalls:
      return "hops+stalls";
  }
  return "?";
}

MetricNeeds needs_of(std::span<const WeightMetric> metrics) noexcept {
  MetricNeeds needs;
  for (const auto metric : metrics) {
    needs.bw = needs.bw || metric == WeightMetric::kBandwidth;
    needs.stalls = needs.stalls || metric == WeightMetric::kStalls || metric == WeightMetric::kHopsStalls;
  }
  return needs;
}

NodeMetrics metrics_from_oracle(const oracle::Oracle& oracle, const Allocation& allocation,
                                MetricNeeds needs) {
  const auto start = std::chrono::steady_clock::now();
  NodeMetrics out;
  out.num_nodes = allocation.num_nodes();
  LinkValues values;
  if (needs.bw || needs.stalls) {
    const auto snapshot = oracle.snapshot(0);
    values.bw_pct.reserve(snapshot->links.size());
    values.stall_pct.reserve(snapshot->links.size());
    for (const auto& link : snapshot->links) {
      values.bw_pct.push_back(link.used_bw_pct);
      values.stall_pct.push_back(link.stall_pct);
    }
  }
  fill_route_matrices(oracle.topology(), allocation, values, needs, out);
  out.fetch_seconds = seconds_since(start);
  return out;
}

void check_source(std::string_view source, const FetchOptions& options) {
  if (!source.starts_with("oracle:")) {
    return;
  }
  const auto url = source.substr(7);
  if (url.empty()) {
    throw InputError("--source oracle:URL needs the oracle's address, e.g. oracle:http://127.0.0.1:8600");
  }
  // The client checks the URL when it is made, without connecting: a malformed one is refused even
  // when the metrics need no request (hops), instead of being ignored.
  [[maybe_unused]] const oracle::Client client{std::string(url), options.timeout_s};
}

NodeMetrics fetch_node_metrics(const topo::Topology& topology, const Allocation& allocation,
                               std::string_view source, MetricNeeds needs, const FetchOptions& options) {
  check_source(source, options);
  if (source.starts_with("oracle:")) {
    return from_service(topology, allocation, source.substr(7), needs, options);
  }
  const auto start = std::chrono::steady_clock::now();
  if (source == kNoLoadSource) {
    // No load: every link value is 0, so no in-process oracle is built (its tables are sized by the
    // whole topology, gigabytes for two nodes of a large torus); the matrices are the allocation's.
    NodeMetrics out;
    out.num_nodes = allocation.num_nodes();
    fill_route_matrices(topology, allocation, LinkValues{}, needs, out);
    out.source = std::string(source);
    out.fetch_seconds = seconds_since(start);
    return out;
  }
  oracle::ServiceOptions service_options;
  service_options.sources = {std::string(source)};
  service_options.source_options.sim_rate = options.sim_rate;
  oracle::Service service(topology, service_options);
  // One poll gives one interval: the simulated load's steady state, or what LDMS files hold now.
  service.poll_once(1.0);
  // The service keeps running when a source fails; a one-shot mapping has nothing to map with.
  for (const oracle::SourceHealth& entry : service.status()) {
    if (!entry.ok) {
      throw IoError(fmt::format("--source {}: {}", printable_excerpt(source),
                                entry.error.empty() ? std::string("the source failed") : entry.error));
    }
  }
  const oracle::Oracle& oracle = service.oracle();
  NodeMetrics out = metrics_from_oracle(oracle, allocation, needs);
  out.source = std::string(source);
  out.fetch_seconds = seconds_since(start);
  return out;
}

std::uint64_t estimate_fetch_bytes(const topo::Topology& topology, std::uint64_t nodes,
                                   std::string_view source, MetricNeeds needs) noexcept {
  const std::uint64_t matrices = 1 + (needs.bw ? 1 : 0) + (needs.stalls ? 1 : 0);
  std::uint64_t bytes = saturating_mul(saturating_mul(saturating_mul(nodes, nodes), sizeof(float)), matrices);
  if (source != kNoLoadSource && !source.starts_with("oracle:")) {
    // The in-process oracle: per link a metric store entry (capacity, a deque of intervals with its
    // first block), a snapshot entry, the simulated demand and the values read here.
    constexpr std::uint64_t kOracleBytesPerLink = 800;
    bytes = saturating_add(bytes, saturating_mul(topology.links().size(), kOracleBytesPerLink));
  } else if (source.starts_with("oracle:") && (needs.bw || needs.stalls)) {
    // The service's answer for every link, as JSON text and parsed, and the values read from it.
    constexpr std::uint64_t kAnswerBytesPerLink = 400;
    bytes = saturating_add(bytes, saturating_mul(topology.links().size(), kAnswerBytesPerLink));
  }
  return bytes;
}

bool needs_whole_topology(std::string_view source, MetricNeeds needs) noexcept {
  return source != kNoLoadSource && (!source.starts_with("oracle:") || needs.bw || needs.stalls);
}

std::unique_ptr<topo::Topology> make_metrics_topology(std::string_view spec,
                                                      std::span<const std::string> nodes,
                                                      std::string_view source, MetricNeeds needs,
                                                      MemoryBudget& budget, std::string_view whole_hint) {
  const bool whole = needs_whole_topology(source, needs);
  budget.reserve(
      whole ? topo::estimate_topology_size(spec).bytes : topo::estimate_topology_part_size(spec, nodes).bytes,
      fmt::format("the topology '{}'", spec), whole ? whole_hint : "give a smaller topology");
  return whole ? topo::make_topology(spec) : topo::make_topology_part(spec, nodes);
}

Machine::Machine(const topo::Topology& topology, Allocation allocation, NodeMetrics metrics,
                 WeightOptions options)
    : topology_(topology),
      allocation_(std::move(allocation)),
      metrics_(std::move(metrics)),
      options_(options) {
  const std::size_t n = allocation_.nodes.size();
  const auto sized = [n](const std::vector<float>& m) { return m.empty() || m.size() == n * n; };
  if (metrics_.num_nodes != n || metrics_.hops.size() != n * n || !sized(metrics_.bw_pct) ||
      !sized(metrics_.stall_pct)) {
    throw InputError(fmt::format("node metrics for {} nodes do not match an allocation of {} nodes",
                                 metrics_.num_nodes, n));
  }
  if (!(options_.stall_weight >= 0) || !std::isfinite(options_.stall_weight)) {
    throw InputError(fmt::format("--stall-weight {}: must be a finite number >= 0 (hops per stall %)",
                                 options_.stall_weight));
  }
  router_.reserve(n);
  for (const auto id : allocation_.nodes) {
    router_.push_back(topology_.nodes().at(id).router);
  }
}

bool Machine::has(WeightMetric metric) const noexcept {
  switch (metric) {
    case WeightMetric::kBandwidth:
      return !metrics_.bw_pct.empty();
    case WeightMetric::kStalls:
    case WeightMetric::kHopsStalls:
      return !metrics_.stall_pct.empty();
    default:
      return true;
  }
}

double Machine::node_weight(WeightMetric metric, std::uint32_t a, std::uint32_t b) const {
  if (metric == WeightMetric::kNone) {
    return 1;
  }
  if (router_[a] == router_[b]) {
    return 2;
  }
  const std::size_t at = static_cast<std::size_t>(a) * allocation_.nodes.size() + b;
  switch (metric) {
    case WeightMetric::kHops:
      return 2.0 + static_cast<double>(metrics_.hops[at]);
    case WeightMetric::kBandwidth:
      if (metrics_.bw_pct.empty()) {
        break;
      }
      return 2.0 + static_cast<double>(metrics_.bw_pct[at]);
    case WeightMetric::kStalls:
      if (metrics_.stall_pct.empty()) {
        break;
      }
      return 2.0 + static_cast<double>(metrics_.stall_pct[at]);
    case WeightMetric::kHopsStalls:
      if (metrics_.stall_pct.empty()) {
        break;
      }
      return 2.0 + static_cast<double>(metrics_.hops[at]) +
             options_.stall_weight * static_cast<double>(metrics_.stall_pct[at]);
    case WeightMetric::kNone:
      return 1;
  }
  throw InputError(fmt::format("metric '{}' needs link metrics that were not fetched", to_string(metric)));
}

double Machine::core_weight(WeightMetric metric, std::uint32_t core_a, std::uint32_t core_b) const {
  if (core_a == core_b) {
    return 0;
  }
  const auto a = allocation_.node_of_core(core_a);
  const auto b = allocation_.node_of_core(core_b);
  if (a == b) {
    return 1;
  }
  return node_weight(metric, a, b);
}

std::uint32_t Machine::hops(std::uint32_t a, std::uint32_t b) const noexcept {
  return static_cast<std::uint32_t>(
      metrics_.hops[static_cast<std::size_t>(a) * allocation_.nodes.size() + b]);
}

bool Machine::same_router(std::uint32_t a, std::uint32_t b) const noexcept {
  return router_[a] == router_[b];
}

}  // namespace gridlock::mapping
