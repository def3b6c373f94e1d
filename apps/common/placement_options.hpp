#pragma once
// `--placement identity|random|rankfile:FILE` of `gridlock sim --network` (docs/network-models.md,
// "Using the models"): gridlock::net places the ranks (net/run.hpp); a rankfile's hosts are
// resolved by gridlock::mapping's rankfile reader, given here, so that the network models do not
// depend on mapping.

#include <cstdint>
#include <string_view>
#include <vector>

#include "gridlock/core/memory.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/net/run.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::cli {

using net::PlacedTopology;

/// gridlock::mapping's rankfile reader, for net::place_ranks() and net::make_placed_topology().
inline net::RankfileReader mapping_rankfiles() {
  net::RankfileReader reader;
  reader.hosts = [](std::string_view text) { return mapping::rankfile_hosts(text); };
  reader.nodes = [](const topo::Topology& topology, std::uint32_t ranks, std::string_view text,
                    std::string_view where, std::string_view first_node, std::string_view last_node) {
    return mapping::read_rankfile_nodes(topology, ranks, text, where, first_node, last_node);
  };
  return reader;
}

/// net::place_ranks() with mapping's rankfile reader.
inline net::Placement make_placement(const topo::Topology& topology, std::uint32_t ranks,
                                     const net::PlacementSpec& spec, std::uint32_t ranks_per_node,
                                     std::uint64_t seed) {
  return net::place_ranks(topology, ranks, net::PlacementChoice{spec, ranks_per_node, seed},
                          mapping_rankfiles());
}

/// net::make_placed_topology() with mapping's rankfile reader.
inline PlacedTopology make_placed_topology(std::string_view network, std::uint32_t ranks,
                                           const net::PlacementSpec& spec, std::uint32_t ranks_per_node,
                                           std::uint64_t seed, MemoryBudget& budget) {
  return net::make_placed_topology(network, ranks, net::PlacementChoice{spec, ranks_per_node, seed}, budget,
                                   mapping_rankfiles());
}

}  // namespace gridlock::cli
