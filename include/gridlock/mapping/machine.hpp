#pragma once
/// @file
/// The machine side of task mapping: what it costs to send one byte between two allocated cores.
///
/// Weights follow the paper (Brandt et al., "Demonstrating improved application performance using
/// dynamic monitoring and task mapping"): for two distinct cores, 1 on the same node, 2 on the same
/// router, otherwise 2 + the metric of the route between their nodes, taking the larger of both
/// directions (the machine graph is undirected):
/// - `none`: every pair weighs 1 (the paper's "No Metric": uniform machine-graph weights);
/// - `hops`: the route's number of network links;
/// - `bw`: the largest used-bandwidth % of a link on the route;
/// - `stalls`: the largest credit-stall % of a link on the route;
/// - `hops+stalls`: hops + stall_weight x stalls (default 0.1 hop per stall %: a link stalled 10% of
///   the time costs as much as one more hop), because BW and STALLS alone ignore path length.
/// A core's weight to itself is 0.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/memory.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/topo/topology.hpp"

// Declared, not included: the oracle's header carries the JSON library (its HTTP API), and the
// machine side of mapping only takes an oracle by reference (issue 38 §4).
namespace gridlock::oracle {
class Oracle;
}  // namespace gridlock::oracle

namespace gridlock::mapping {

/// What the machine graph's weights measure.
enum class WeightMetric : std::uint8_t {
  kNone,        ///< Uniform weights.
  kHops,        ///< Route length.
  kBandwidth,   ///< Largest used-bandwidth % on the route.
  kStalls,      ///< Largest stall % on the route.
  kHopsStalls,  ///< Route length plus stall_weight x stall %.
};

/// Every weight metric, in the order tables show them.
inline constexpr std::array<WeightMetric, 5> kAllWeightMetrics{
    WeightMetric::kNone, WeightMetric::kHops, WeightMetric::kBandwidth, WeightMetric::kStalls,
    WeightMetric::kHopsStalls};

/// Parses `none`, `hops`, `bw`, `stalls` or `hops+stalls`; throws InputError listing them.
[[nodiscard]] WeightMetric parse_weight_metric(std::string_view text);
/// The name parse_weight_metric() reads.
[[nodiscard]] std::string_view to_string(WeightMetric metric) noexcept;

/// Route metrics between every pair of allocated nodes (row-major n x n, indexed by the nodes'
/// positions in the allocation), each the larger of both directions; 0 on the diagonal.
struct NodeMetrics {
  std::uint32_t num_nodes = 0;   ///< n.
  std::vector<float> hops;       ///< Network links on the route.
  std::vector<float> bw_pct;     ///< Largest used-bandwidth % on the route (empty: not fetched).
  std::vector<float> stall_pct;  ///< Largest stall % on the route (empty: not fetched).
  std::string source;            ///< Where the dynamic metrics came from, e.g. `sim:paper`.
  double fetch_seconds = 0;      ///< Time spent getting them (computing or requesting).
};

/// Which dynamic metrics a set of weight metrics needs.
struct MetricNeeds {
  bool bw = false;      ///< Used bandwidth.
  bool stalls = false;  ///< Stalls.
};
/// The dynamic metrics `metrics` need (hops are always computed from the topology).
[[nodiscard]] MetricNeeds needs_of(std::span<const WeightMetric> metrics) noexcept;

/// About how many bytes fetch_node_metrics() allocates for an allocation of `nodes` nodes of
/// `topology` from `source`: the node-pair matrices, and the per-link tables of the in-process
/// oracle (any source but `sim:none` and `oracle:URL`) or of the service's answer (`oracle:URL`
/// with bw or stalls). Saturates instead of wrapping.
[[nodiscard]] std::uint64_t estimate_fetch_bytes(const topo::Topology& topology, std::uint64_t nodes,
                                                 std::string_view source, MetricNeeds needs) noexcept;

/// True when fetching `needs` from `source` reads link values of the whole network (an in-process
/// oracle, or an oracle service's /v1/links), so the whole topology must be built; false when the
/// routes between the allocated nodes are enough (`sim:none`, or only hops from a service).
[[nodiscard]] bool needs_whole_topology(std::string_view source, MetricNeeds needs) noexcept;

/// The topology to read `needs` from `source` on: the whole network when needs_whole_topology()
/// (an oracle's link values are numbered in it), else only the part the routes between `nodes` use
/// (two nodes of torus:128x128x128 are a few hundred routers, not 2 million). Its estimated size is
/// reserved from `budget` first; `whole_hint` says, in that refusal, how to do without the whole.
[[nodiscard]] std::unique_ptr<topo::Topology> make_metrics_topology(std::string_view spec,
                                                                    std::span<const std::string> nodes,
                                                                    std::string_view source,
                                                                    MetricNeeds needs, MemoryBudget& budget,
                                                                    std::string_view whole_hint);

/// Options of metric fetching.
struct FetchOptions {
  double timeout_s = 5;  ///< Oracle service: deadline of each request (connect, send, receive).
  double window_s = 0;   ///< Averaging window of the metrics (0: newest interval).
  /// Rate of each flow of `sim:paper`; `line`: the sender's link rate (the paper's utility sends
  /// "as quickly as possible").
  std::string sim_rate = "line";
};

/// Throws InputError when `source` cannot be used: `oracle:` without a URL, or with a URL that is
/// not http://HOST:PORT (checked without connecting). Other sources are checked when they are read.
void check_source(std::string_view source, const FetchOptions& options);

/// Metrics from an in-process oracle (hops from the topology; bw and stalls as `needs` asks).
[[nodiscard]] NodeMetrics metrics_from_oracle(const oracle::Oracle& oracle, const Allocation& allocation,
                                              MetricNeeds needs);

/// Metrics from a source: `oracle:http://HOST:PORT` (the running oracle service: its topology must
/// be `topology`'s; one request per dynamic metric, bounded by the timeouts; an unreachable or slow
/// service is an IoError naming the URL), or any source `gridlock oracle serve --source` accepts
/// (`sim:paper`, `sim:none`, `sim:FILE`, `ldms:PATH`, `sysfs[:ROOT]`), read once in-process.
[[nodiscard]] NodeMetrics fetch_node_metrics(const topo::Topology& topology, const Allocation& allocation,
                                             std::string_view source, MetricNeeds needs,
                                             const FetchOptions& options = {});

/// Options of the weights.
struct WeightOptions {
  double stall_weight = 0.1;  ///< Hops per stall % in `hops+stalls`.
};

/// The allocated cores with their pairwise weights.
class Machine {
 public:
  /// Keeps the topology by reference (it must outlive the machine). Throws InputError when the
  /// metrics do not match the allocation.
  Machine(const topo::Topology& topology, Allocation allocation, NodeMetrics metrics,
          WeightOptions options = {});

  /// The topology.
  [[nodiscard]] const topo::Topology& topology() const noexcept { return topology_; }
  /// The allocation.
  [[nodiscard]] const Allocation& allocation() const noexcept { return allocation_; }
  /// The node metrics.
  [[nodiscard]] const NodeMetrics& metrics() const noexcept { return metrics_; }
  /// The weight options.
  [[nodiscard]] const WeightOptions& options() const noexcept { return options_; }
  /// Whether `metric` can be evaluated (its dynamic metrics were fetched).
  [[nodiscard]] bool has(WeightMetric metric) const noexcept;
  /// Weight between allocated nodes `a` and `b` (positions in the allocation), a != b: 2 on the
  /// same router, else 2 + metric (1 for `none`). Throws InputError when the metric was not fetched.
  [[nodiscard]] double node_weight(WeightMetric metric, std::uint32_t a, std::uint32_t b) const;
  /// Weight between cores: 0 for one core, 1 on one node (`none`: 1), else node_weight().
  [[nodiscard]] double core_weight(WeightMetric metric, std::uint32_t core_a, std::uint32_t core_b) const;
  /// Network hops between allocated nodes `a` and `b` (0 on one router).
  [[nodiscard]] std::uint32_t hops(std::uint32_t a, std::uint32_t b) const noexcept;
  /// Whether allocated nodes `a` and `b` share a router.
  [[nodiscard]] bool same_router(std::uint32_t a, std::uint32_t b) const noexcept;

 private:
  const topo::Topology& topology_;
  Allocation allocation_;
  NodeMetrics metrics_;
  WeightOptions options_;
  std::vector<topo::RouterId> router_;  // per allocated node
};

}  // namespace gridlock::mapping
