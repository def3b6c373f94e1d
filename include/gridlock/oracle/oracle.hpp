#pragma once
/// @file
/// The resource oracle: static routes joined with live link metrics, reduced per node pair.
///
/// Metrics of a route (the paper's HOPS, BW and STALLS): `hops` is the number of network links;
/// `bw` is each link's used bandwidth % of capacity (read on the link's incoming side, where
/// Gemini counts it); `stalls` is each link's stalled % of time. A reducer (`max`, `sum`, `min`)
/// combines the values of the route's links; a route with no links (both nodes on one router)
/// gives 0, as in the paper. With `endpoints`, the source's injection and the destination's
/// ejection link are included (needed for InfiniBand node counters); with `undirected`, the
/// larger of the i->j and j->i values is returned (the paper's undirected machine graph).
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/oracle/metric_store.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::oracle {

/// A route metric.
enum class Metric : std::uint8_t {
  kHops,       ///< Number of network links.
  kBandwidth,  ///< Used bandwidth % per link.
  kStalls,     ///< Stall % per link.
};
/// How link values combine along a route.
enum class Reducer : std::uint8_t {
  kMax,  ///< Largest link value.
  kSum,  ///< Sum of link values.
  kMin,  ///< Smallest link value.
};

/// Parses `hops`, `bw` or `stalls`; throws InputError.
[[nodiscard]] Metric parse_metric(std::string_view text);
/// Parses `max`, `sum` or `min`; throws InputError.
[[nodiscard]] Reducer parse_reducer(std::string_view text);
/// Name of a metric as parsed by parse_metric().
[[nodiscard]] std::string_view to_string(Metric metric) noexcept;
/// Name of a reducer as parsed by parse_reducer().
[[nodiscard]] std::string_view to_string(Reducer reducer) noexcept;

/// What to compute for each pair.
struct MetricQuery {
  Metric metric = Metric::kHops;    ///< Which metric.
  Reducer reducer = Reducer::kMax;  ///< How to combine links.
  double window_s = 0;              ///< Averaging window; <= 0: newest interval only.
  bool endpoints = false;           ///< Include terminal links.
  bool undirected = false;          ///< max(i->j, j->i).
};

/// Joins a topology with a metric store. Thread-safe; snapshots are cached per window and store
/// version (up to kSnapshotCacheWindows windows; clients asking different windows keep their own).
class Oracle {
 public:
  /// Most windows whose snapshots are cached at once.
  static constexpr std::size_t kSnapshotCacheWindows = 16;
  /// Both must outlive the oracle.
  Oracle(const topo::Topology& topology, const MetricStore& store);

  /// The topology.
  [[nodiscard]] const topo::Topology& topology() const noexcept { return topology_; }
  /// The store.
  [[nodiscard]] const MetricStore& store() const noexcept { return store_; }
  /// The metrics of all links over `window_s` (cached until the store changes).
  [[nodiscard]] std::shared_ptr<const Snapshot> snapshot(double window_s) const;
  /// One value per pair.
  [[nodiscard]] std::vector<double> route_metrics(
      const std::vector<std::pair<topo::NodeId, topo::NodeId>>& pairs, const MetricQuery& query) const;
  /// Row-major n x n matrix of the metric between every pair of `nodes` (0 on the diagonal).
  [[nodiscard]] std::vector<double> metric_matrix(const std::vector<topo::NodeId>& nodes,
                                                  const MetricQuery& query) const;
  /// The route with each link's metrics: topology route_json() plus `used_bw_pct`, `stall_pct`,
  /// `bytes_per_s` per link.
  [[nodiscard]] Json route_detail(topo::NodeId src, topo::NodeId dst, double window_s) const;
  /// The `count` links with the highest used bandwidth % (compared at a resolution of 1e-6 %, that
  /// of LDMS's `% x1e6` columns); ties: more bytes/s, higher stall %, with data, then lower id.
  [[nodiscard]] Json top_links(std::size_t count, double window_s) const;

 private:
  double pair_value(const Snapshot& snap, topo::NodeId src, topo::NodeId dst, const MetricQuery& query,
                    std::vector<topo::LinkId>& scratch) const;

  const topo::Topology& topology_;
  const MetricStore& store_;
  mutable std::mutex cache_mutex_;
  mutable std::vector<std::shared_ptr<const Snapshot>> cache_;  // one per window, newest last
};

}  // namespace gridlock::oracle
