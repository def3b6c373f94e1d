#include "gridlock/net/placement_spec.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/topo/spec.hpp"

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

namespace {

// The hosts of a rankfile's `rank R=HOST slot=S` lines, each once, as mapping::read_rankfile()
// reads them; lines of another form are left to it, and it names them.
std::vector<std::string> rankfile_hosts(std::string_view text) {
  std::vector<std::string> hosts;
  for (std::string_view line : split(text, '\n')) {
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (!line.starts_with("rank")) {
      continue;
    }
    line = trim(line.substr(4));
    const auto eq = line.find('=');
    const auto space = line.find_first_of(" \t", eq == std::string_view::npos ? 0 : eq);
    if (eq == std::string_view::npos || space == std::string_view::npos) {
      continue;
    }
    hosts.emplace_back(trim(line.substr(eq + 1, space - eq - 1)));
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

// rankfile_placement(), saying that the topology's nodes are `first_node` .. `last_node` (a
// part's first and last nodes are not the network's).
Placement rankfile_placement_naming(const topo::Topology& topology, std::uint32_t ranks,
                                    std::string_view text, std::string_view where,
                                    std::string_view first_node, std::string_view last_node) {
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
                                 topology.spec(), first_node, last_node));
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

void check_rankfile_ranks_per_node(const PlacementSpec& spec, std::uint32_t ranks_per_node) {
  if (ranks_per_node != 1) {
    throw InputError(fmt::format(
        "--ranks-per-node {} and a rankfile placement: the rankfile {} says where each rank goes; leave out "
        "--ranks-per-node",
        ranks_per_node, spec.rankfile));
  }
}

}  // namespace

Placement rankfile_placement(const topo::Topology& topology, std::uint32_t ranks, std::string_view text,
                             std::string_view where) {
  const std::vector<topo::Node>& nodes = topology.nodes();
  return rankfile_placement_naming(topology, ranks, text, where, nodes.empty() ? "" : nodes.front().name,
                                   nodes.empty() ? "" : nodes.back().name);
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
  check_rankfile_ranks_per_node(spec, ranks_per_node);
  const std::string text =
      read_input_file(spec.rankfile, "rankfile", "give the rankfile `gridlock map --rankfile` wrote");
  return rankfile_placement(topology, ranks, text, spec.rankfile);
}

PlacedTopology make_placed_topology(std::string_view network, std::uint32_t ranks, const PlacementSpec& spec,
                                    std::uint32_t ranks_per_node, std::uint64_t seed, MemoryBudget& budget) {
  if (!topo::has_topology_parts(network)) {
    const topo::TopologySize size = topo::estimate_topology_size(network);
    budget.reserve(size.bytes,
                   fmt::format("the network {} ({} nodes, {} links)", network, size.nodes, size.links),
                   "give a smaller network");
    PlacedTopology out;
    out.topology = topo::make_topology(network);
    out.placement = make_placement(*out.topology, ranks, spec, ranks_per_node, seed);
    return out;
  }
  const topo::TopologySummary whole = topo::topology_info(network);
  // The placement on the whole topology's node indices first (identity and random need only its
  // node count), then the part those nodes use.
  Placement placement;
  std::vector<std::string> names;
  std::string rankfile_text;
  switch (spec.kind) {
    case PlacementKind::kIdentity:
      placement = identity_placement(whole.nodes, whole.spec, ranks, ranks_per_node);
      break;
    case PlacementKind::kRandom:
      placement = random_placement(whole.nodes, whole.spec, ranks, ranks_per_node, seed);
      break;
    case PlacementKind::kRankfile:
      check_rankfile_ranks_per_node(spec, ranks_per_node);
      rankfile_text =
          read_input_file(spec.rankfile, "rankfile", "give the rankfile `gridlock map --rankfile` wrote");
      // Unknown hosts stay out of the part: the rankfile's reader names them with their line.
      names = topo::known_nodes(network, rankfile_hosts(rankfile_text));
      break;
  }
  std::vector<topo::NodeId> used = placement.node_of_rank;
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  if (spec.kind != PlacementKind::kRankfile) {
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
  if (spec.kind == PlacementKind::kRankfile) {
    out.placement = rankfile_placement_naming(*out.topology, ranks, rankfile_text, spec.rankfile,
                                              whole.first_node, whole.last_node);
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

}  // namespace gridlock::net
