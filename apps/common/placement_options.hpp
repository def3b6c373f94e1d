#pragma once
// `--placement identity|random|rankfile:FILE` of `gridlock sim --network` (docs/network-models.md,
// "Using the models"): net parses the choice (net::parse_placement_spec) and places ranks by
// identity or at random; a rankfile is read here and resolved against the topology's nodes by
// gridlock::mapping's rankfile reader, so that the network models do not depend on mapping.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::cli {

/// The rankfile of `spec`, read whole (IoError when it cannot be read), after checking that
/// `ranks_per_node` was left at 1: the file says where every rank goes.
inline std::string read_placement_rankfile(const net::PlacementSpec& spec, std::uint32_t ranks_per_node) {
  if (ranks_per_node != 1) {
    throw InputError(fmt::format(
        "--ranks-per-node {} and a rankfile placement: the rankfile {} says where each rank goes; leave out "
        "--ranks-per-node",
        ranks_per_node, spec.rankfile));
  }
  return read_input_file(spec.rankfile, "rankfile", "give the rankfile `gridlock map --rankfile` wrote");
}

/// The placement `spec` describes for `ranks` ranks: identity and random put `ranks_per_node`
/// ranks on each node (random shuffles the nodes with `seed`); a rankfile is read from its file
/// (IoError when it cannot be read; mapping::read_rankfile_nodes()) and refuses a `ranks_per_node`
/// other than 1, since the file says where every rank goes. Throws InputError as the placements do.
inline net::Placement make_placement(const topo::Topology& topology, std::uint32_t ranks,
                                     const net::PlacementSpec& spec, std::uint32_t ranks_per_node,
                                     std::uint64_t seed) {
  switch (spec.kind) {
    case net::PlacementKind::kIdentity:
      return net::identity_placement(topology, ranks, ranks_per_node);
    case net::PlacementKind::kRandom:
      return net::random_placement(topology, ranks, ranks_per_node, seed);
    case net::PlacementKind::kRankfile:
      break;
  }
  const std::string text = read_placement_rankfile(spec, ranks_per_node);
  std::vector<topo::NodeId> node_of_rank = mapping::read_rankfile_nodes(topology, ranks, text, spec.rankfile);
  return net::explicit_placement(topology, ranks, std::move(node_of_rank),
                                 fmt::format("rankfile {}", spec.rankfile));
}

/// The whole topology the spec `network` (`--network`) describes, its size estimated from the
/// spec's formulas and reserved in `budget` before it is built (a coordinates file is read with
/// it). Throws InputError as topo::make_topology() and MemoryBudget::reserve() do.
inline std::shared_ptr<const topo::Topology> make_whole_topology(std::string_view network,
                                                                 MemoryBudget& budget) {
  const topo::TopologySize size = topo::estimate_topology_size(network);
  budget.reserve(size.bytes,
                 fmt::format("--network {} ({} nodes, {} links)", network, size.nodes, size.links),
                 "give a smaller --network");
  return topo::make_topology(network);
}

/// A placement and the topology it places ranks on.
struct PlacedTopology {
  /// The part of the topology the placement's nodes use, or the whole topology.
  std::shared_ptr<const topo::Topology> topology;
  net::Placement placement;  ///< Node ids of `topology`.
};

/// make_placement() on the topology the spec `network` describes, building only the part of it
/// that routes between the placement's nodes use where the topology has parts
/// (topo::make_topology_part(): a torus without a coordinates file), otherwise the whole
/// topology: memory and time grow with the nodes used, not with the network (2 ranks on
/// torus:128x128x128 take a few hundred routers, not 2 million). The placement takes the same
/// nodes as make_placement() on the whole topology (random draws over all of its nodes, a
/// rankfile names them), so a model gives the same figures on the part. The topology's estimated
/// size is reserved in `budget` before it is built. Throws InputError (and IoError for a rankfile
/// that cannot be read) as make_placement() and topo::make_topology_part() do.
inline PlacedTopology make_placed_topology(std::string_view network, std::uint32_t ranks,
                                           const net::PlacementSpec& spec, std::uint32_t ranks_per_node,
                                           std::uint64_t seed, MemoryBudget& budget) {
  if (!topo::has_topology_parts(network)) {
    PlacedTopology out;
    out.topology = make_whole_topology(network, budget);
    out.placement = make_placement(*out.topology, ranks, spec, ranks_per_node, seed);
    return out;
  }
  const topo::TopologySummary whole = topo::topology_info(network);
  // The placement on the whole topology's node indices first (identity and random need only its
  // node count), then the part those nodes use.
  net::Placement placement;
  std::vector<std::string> names;
  std::string rankfile_text;
  switch (spec.kind) {
    case net::PlacementKind::kIdentity:
      placement = net::identity_placement(whole.nodes, whole.spec, ranks, ranks_per_node);
      break;
    case net::PlacementKind::kRandom:
      placement = net::random_placement(whole.nodes, whole.spec, ranks, ranks_per_node, seed);
      break;
    case net::PlacementKind::kRankfile:
      rankfile_text = read_placement_rankfile(spec, ranks_per_node);
      // Unknown hosts stay out of the part: the rankfile's reader names them with their line.
      names = topo::known_nodes(network, mapping::rankfile_hosts(rankfile_text));
      break;
  }
  std::vector<topo::NodeId> used = placement.node_of_rank;
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  if (spec.kind != net::PlacementKind::kRankfile) {
    names.reserve(used.size());
    for (const topo::NodeId node : used) {
      names.push_back(std::to_string(node));
    }
  } else if (names.empty()) {
    // A part of one node, so that the rankfile's reader says what the file lacks.
    names.push_back(whole.first_node);
  }
  const topo::TopologySize size = topo::estimate_topology_part_size(network, names);
  budget.reserve(size.bytes,
                 fmt::format("the part of the network {} that {} ranks use ({} nodes, {} links)", network,
                             ranks, size.nodes, size.links),
                 "place the ranks on fewer nodes (--ranks-per-node) or give a smaller --network");
  PlacedTopology out;
  out.topology = topo::make_topology_part(network, names);
  if (spec.kind == net::PlacementKind::kRankfile) {
    std::vector<topo::NodeId> node_of_rank = mapping::read_rankfile_nodes(
        *out.topology, ranks, rankfile_text, spec.rankfile, whole.first_node, whole.last_node);
    out.placement = net::explicit_placement(*out.topology, ranks, std::move(node_of_rank),
                                            fmt::format("rankfile {}", spec.rankfile));
    return out;
  }
  // The part's id of each used node, then of each rank's node.
  std::vector<topo::NodeId> part_id(used.size());
  for (std::size_t i = 0; i < used.size(); ++i) {
    const std::optional<topo::NodeId> id = out.topology->find_node(names[i]);
    if (!id) {
      throw InternalError(
          fmt::format("the part of {} built for node {} does not hold it", network, names[i]));
    }
    part_id[i] = *id;
  }
  for (topo::NodeId& node : placement.node_of_rank) {
    node = part_id[static_cast<std::size_t>(std::lower_bound(used.begin(), used.end(), node) - used.begin())];
  }
  out.placement = std::move(placement);
  return out;
}

}  // namespace gridlock::cli
