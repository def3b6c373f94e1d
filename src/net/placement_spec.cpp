#include "gridlock/net/placement_spec.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/launch_files.hpp"

namespace gridlock::net {

PlacementSpec parse_placement_spec(std::string_view text, std::string_view what) {
  constexpr std::string_view kRankfilePrefix = "rankfile:";
  if (text == "identity") {
    return PlacementSpec{PlacementKind::kIdentity, {}};
  }
  if (text == "random") {
    return PlacementSpec{PlacementKind::kRandom, {}};
  }
  if (text.starts_with(kRankfilePrefix) && text.size() > kRankfilePrefix.size()) {
    return PlacementSpec{PlacementKind::kRankfile, std::string(text.substr(kRankfilePrefix.size()))};
  }
  throw InputError(fmt::format(
      "{} '{}': give identity (rank r on node r / ranks per node), random (nodes shuffled with --seed) or "
      "rankfile:FILE (`rank R=HOST slot=S` lines, e.g. from `gridlock map --rankfile`)",
      what, text));
}

Placement rankfile_placement(const topo::Topology& topology, std::uint32_t ranks, std::string_view text,
                             std::string_view where) {
  const std::vector<topo::Node>& nodes = topology.nodes();
  if (nodes.empty() || nodes.size() > mapping::kMaxAllocationNodes) {
    throw InputError(fmt::format("{}: {} has {} nodes; a rankfile placement takes networks of 1 to {}", where,
                                 topology.spec(), nodes.size(), mapping::kMaxAllocationNodes));
  }
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const topo::Node& node : nodes) {
    names.push_back(node.name);
  }
  // Enough slots per node for any rank count the file could place there, within the
  // allocation's limits (at most kMaxCoresPerNode per node, 2^31 cores in all).
  const std::uint64_t core_limit = (std::uint64_t{1} << 31U) / std::max<std::size_t>(1, nodes.size());
  const auto cores_per_node = static_cast<std::uint32_t>(std::max<std::uint64_t>(
      1,
      std::min<std::uint64_t>({std::max<std::uint32_t>(ranks, 1), mapping::kMaxCoresPerNode, core_limit})));
  const mapping::Allocation allocation = mapping::make_allocation(topology, names, cores_per_node);
  mapping::Placement cores;
  try {
    cores = mapping::read_rankfile(text, allocation, where);
  } catch (const InputError& e) {
    // The allocation is the whole network here: say what its nodes are called.
    // Messages of the placement checks do not name the file.
    const std::string_view what = e.what();
    throw InputError(fmt::format("{}{} (the nodes of {} are {} .. {})",
                                 what.starts_with(where) ? "" : fmt::format("{}: ", where), what,
                                 topology.spec(), nodes.front().name, nodes.back().name));
  }
  if (cores.size() != ranks) {
    throw InputError(fmt::format(
        "{} places {} ranks (0..{}), the schedule has {}: give a rankfile with one line per rank 0..{}",
        where, cores.size(), cores.empty() ? 0 : cores.size() - 1, ranks, ranks == 0 ? 0 : ranks - 1));
  }
  std::vector<topo::NodeId> node_of_rank;
  node_of_rank.reserve(cores.size());
  for (const std::uint32_t core : cores) {
    node_of_rank.push_back(allocation.nodes.at(core / allocation.cores_per_node));
  }
  return explicit_placement(topology, ranks, std::move(node_of_rank), fmt::format("rankfile {}", where));
}

Placement make_placement(const topo::Topology& topology, std::uint32_t ranks, const PlacementSpec& spec,
                         std::uint32_t ranks_per_node, std::uint64_t seed) {
  switch (spec.kind) {
    case PlacementKind::kIdentity:
      return identity_placement(topology, ranks, ranks_per_node);
    case PlacementKind::kRandom:
      return random_placement(topology, ranks, ranks_per_node, seed);
    case PlacementKind::kRankfile:
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
  return rankfile_placement(topology, ranks, text, spec.rankfile);
}

}  // namespace gridlock::net
