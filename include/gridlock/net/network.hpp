#pragma once
/// @file
/// The simulated network both models of gridlock::net share (docs/network-models.md): a topology
/// (gridlock::topo), where each rank runs (a placement) and the per-hop latency, with the paths
/// messages take and the statistics a run leaves behind.
///
/// A message between two ranks on different nodes crosses the sender's injection link, the
/// topology's route between the two routers and the receiver's ejection link; two ranks on one
/// node exchange it without the network (only the NIC rate 1/G bounds it).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/histogram.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::net {

/// Largest per-hop latency (ps; `--hop-latency`, a preset's `hop_latency`): 1 s, far beyond any
/// router (about 100 ns); keeps hops x latency inside 64-bit picoseconds.
inline constexpr std::uint64_t kMaxHopLatencyPs = 1'000'000'000'000;

/// Where each rank runs: rank r on node `node_of_rank[r]` of the topology.
struct Placement {
  std::vector<topo::NodeId> node_of_rank;  ///< Node of each rank.
  std::string description;                 ///< e.g. `identity, 1 rank per node`, for reports.
};

/// Ranks r*k .. r*k+k-1 on node r: `ranks_per_node` ranks on each node in node order. Throws
/// InputError when the ranks need more nodes than the topology has.
[[nodiscard]] Placement identity_placement(const topo::Topology& topology, std::uint32_t ranks,
                                           std::uint32_t ranks_per_node = 1);

/// The identity placement's node slots shuffled with `seed` (core::Rng): the same ranks per node,
/// on nodes chosen at random, as a scheduler's fragmented allocation. Throws as identity does.
[[nodiscard]] Placement random_placement(const topo::Topology& topology, std::uint32_t ranks,
                                         std::uint32_t ranks_per_node, std::uint64_t seed);

/// identity_placement() on a topology of `nodes` nodes before it is built (`spec` names it in
/// messages): node ids are the whole topology's node indices (cli::make_placed_topology(),
/// apps/common/placement_options.hpp, builds the part they use).
[[nodiscard]] Placement identity_placement(std::uint64_t nodes, std::string_view spec, std::uint32_t ranks,
                                           std::uint32_t ranks_per_node = 1);

/// random_placement() on a topology of `nodes` nodes before it is built, as identity_placement()
/// above: the same draws, so the same nodes, as on the built topology. Throws InputError for more
/// than topo::kMaxTopologyNodes nodes.
[[nodiscard]] Placement random_placement(std::uint64_t nodes, std::string_view spec, std::uint32_t ranks,
                                         std::uint32_t ranks_per_node, std::uint64_t seed);

/// A placement given node by node (from a rankfile, say). Throws InputError naming the first rank
/// whose node is not in the topology, or when `node_of_rank` is shorter than `ranks`.
[[nodiscard]] Placement explicit_placement(const topo::Topology& topology, std::uint32_t ranks,
                                           std::vector<topo::NodeId> node_of_rank, std::string description);

/// Network parameters beyond the topology's link capacities.
struct NetworkParams {
  /// Latency added for each router-to-router hop, in ps (0: the LogGOPS L alone, whatever the
  /// distance). Aries and Slingshot routers take about 100 ns per hop.
  std::uint64_t hop_latency_ps = 0;
  /// Per-message spread (`gridlock sim --spread`): each message takes one of the topology's
  /// minimal routes drawn with `spread_seed` (topo::Topology::route_choice_into()) instead of the
  /// topology's deterministic route. The flow model only.
  bool spread = false;
  /// Seed of the spread's draws (`--seed`, printed).
  std::uint64_t spread_seed = 1;
};

/// A topology, a placement and the parameters: what both models simulate on. Immutable.
class Network {
 public:
  /// Checks that every rank's node exists. Throws InputError otherwise.
  Network(std::shared_ptr<const topo::Topology> topology, Placement placement, NetworkParams params);

  /// The topology.
  [[nodiscard]] const topo::Topology& topology() const noexcept { return *topology_; }
  /// The placement.
  [[nodiscard]] const Placement& placement() const noexcept { return placement_; }
  /// The parameters.
  [[nodiscard]] const NetworkParams& params() const noexcept { return params_; }
  /// Ranks placed.
  [[nodiscard]] std::uint32_t ranks() const noexcept {
    return static_cast<std::uint32_t>(placement_.node_of_rank.size());
  }
  /// Node of `rank`.
  [[nodiscard]] topo::NodeId node_of(std::uint32_t rank) const { return placement_.node_of_rank.at(rank); }
  /// Capacity of `link` in bytes per picosecond.
  [[nodiscard]] double capacity_bytes_per_ps(topo::LinkId link) const { return capacity_.at(link); }
  /// Replaces `out` with the links a message from rank `src` to rank `dst` crosses: injection,
  /// the route's network links, ejection; empty when both ranks are on one node.
  void path_into(std::uint32_t src, std::uint32_t dst, std::vector<topo::LinkId>& out) const;
  /// Like path_into(), but through one of the topology's minimal routes, drawn uniformly with
  /// `rng` (one draw when the topology offers more than one route between the two nodes).
  void spread_path_into(std::uint32_t src, std::uint32_t dst, Rng& rng, std::vector<topo::LinkId>& out) const;
  /// Router-to-router hops of that path (0 on one node or one router).
  [[nodiscard]] static std::size_t hops(const std::vector<topo::LinkId>& path) noexcept {
    return path.size() < 2 ? 0 : path.size() - 2;
  }

 private:
  std::shared_ptr<const topo::Topology> topology_;
  Placement placement_;
  NetworkParams params_;
  std::vector<double> capacity_;  // bytes/ps per link
};

/// What a network model saw during a run, for reports (net/report.hpp).
struct NetStats {
  std::string model;                   ///< `flow` or `packet`.
  std::vector<double> link_bytes;      ///< Bytes that crossed each link, indexed by LinkId.
  std::uint64_t messages = 0;          ///< Messages injected.
  std::uint64_t network_messages = 0;  ///< Messages that crossed at least one link.
  double bytes = 0;                    ///< Bytes injected into links (payload after the first byte).
  /// Per message that crossed a link with more than one byte: its transfer time over the time it
  /// would have taken alone on the network (1: no contention).
  LogHistogram slowdown;
  std::uint64_t last_delivery_ps = 0;  ///< Latest delivery time.
};

}  // namespace gridlock::net
