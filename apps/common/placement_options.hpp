#pragma once
// `--placement identity|random|rankfile:FILE` of `gridlock sim --network` (docs/network-models.md,
// "Using the models"): net parses the choice (net::parse_placement_spec) and places ranks by
// identity or at random; a rankfile is read here and resolved against the topology's nodes by
// gridlock::mapping's rankfile reader, so that the network models do not depend on mapping.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::cli {

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
  if (ranks_per_node != 1) {
    throw InputError(fmt::format(
        "--ranks-per-node {} and a rankfile placement: the rankfile {} says where each rank goes; leave out "
        "--ranks-per-node",
        ranks_per_node, spec.rankfile));
  }
  const std::string text =
      read_input_file(spec.rankfile, "rankfile", "give the rankfile `gridlock map --rankfile` wrote");
  std::vector<topo::NodeId> node_of_rank = mapping::read_rankfile_nodes(topology, ranks, text, spec.rankfile);
  return net::explicit_placement(topology, ranks, std::move(node_of_rank),
                                 fmt::format("rankfile {}", spec.rankfile));
}

}  // namespace gridlock::cli
