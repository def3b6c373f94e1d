#pragma once
/// @file
/// The `--placement` choices of `gridlock sim --network` (docs/network-models.md, "Using the
/// models"): `identity`, `random` or `rankfile:FILE` (an Open MPI rankfile, docs/formats/rankfile.md,
/// against the topology's nodes), turned into a net::Placement.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gridlock/core/memory.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::net {

/// How ranks are placed on the network's nodes.
enum class PlacementKind : std::uint8_t {
  kIdentity,  ///< identity_placement()
  kRandom,    ///< random_placement() with the run's seed
  kRankfile,  ///< rankfile_placement() of a file
};

/// A parsed `--placement` value.
struct PlacementSpec {
  PlacementKind kind = PlacementKind::kIdentity;  ///< Which placement.
  std::string rankfile;                           ///< The file of `rankfile:FILE`; empty otherwise.
};

/// Parses `identity`, `random` or `rankfile:FILE`; throws InputError naming `what` and the choices.
[[nodiscard]] PlacementSpec parse_placement_spec(std::string_view text,
                                                 std::string_view what = "--placement");

/// The placement of `ranks` ranks a rankfile (`rank R=HOST slot=S` lines; mapping::read_rankfile)
/// gives on `topology`: HOST is one of its node names (or a node index), every rank 0..ranks-1
/// appears exactly once. Throws InputError with `where`:line for unknown hosts, malformed lines
/// and repeated ranks, and when the file leaves ranks out or places more ranks than `ranks`.
[[nodiscard]] Placement rankfile_placement(const topo::Topology& topology, std::uint32_t ranks,
                                           std::string_view text, std::string_view where = "rankfile");

/// The placement `spec` describes for `ranks` ranks: identity and random put `ranks_per_node`
/// ranks on each node (random shuffles the nodes with `seed`); a rankfile is read from its file
/// (IoError when it cannot be read) and refuses a `ranks_per_node` other than 1, since the file
/// says where every rank goes. Throws InputError as the placements do.
[[nodiscard]] Placement make_placement(const topo::Topology& topology, std::uint32_t ranks,
                                       const PlacementSpec& spec, std::uint32_t ranks_per_node,
                                       std::uint64_t seed);

/// A placement and the topology it places ranks on.
struct PlacedTopology {
  /// The part of the topology the placement's nodes use, or the whole topology.
  std::shared_ptr<const topo::Topology> topology;
  Placement placement;  ///< Node ids of `topology`.
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
[[nodiscard]] PlacedTopology make_placed_topology(std::string_view network, std::uint32_t ranks,
                                                  const PlacementSpec& spec, std::uint32_t ranks_per_node,
                                                  std::uint64_t seed, MemoryBudget& budget);

}  // namespace gridlock::net
