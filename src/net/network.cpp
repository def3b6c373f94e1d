#include "gridlock/net/network.hpp"

#include "gridlock/net/model.hpp"

#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"

namespace gridlock::net {
namespace {

std::uint64_t nodes_needed(std::uint64_t nodes, std::string_view spec, std::uint32_t ranks,
                           std::uint32_t ranks_per_node) {
  if (ranks_per_node == 0) {
    throw InputError("ranks per node must be at least 1");
  }
  const std::uint64_t needed = (static_cast<std::uint64_t>(ranks) + ranks_per_node - 1) / ranks_per_node;
  if (needed > nodes) {
    throw InputError(fmt::format(
        "{} ranks at {} per node need {} nodes, but {} has {}: give a larger network or more ranks per node",
        ranks, ranks_per_node, needed, spec, nodes));
  }
  return needed;
}

}  // namespace

Placement identity_placement(const topo::Topology& topology, std::uint32_t ranks,
                             std::uint32_t ranks_per_node) {
  return identity_placement(topology.nodes().size(), topology.spec(), ranks, ranks_per_node);
}

Placement identity_placement(std::uint64_t nodes, std::string_view spec, std::uint32_t ranks,
                             std::uint32_t ranks_per_node) {
  (void)nodes_needed(nodes, spec, ranks, ranks_per_node);
  Placement p;
  p.node_of_rank.resize(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    p.node_of_rank[r] = r / ranks_per_node;
  }
  p.description = fmt::format("identity, {} rank{} per node", ranks_per_node, ranks_per_node == 1 ? "" : "s");
  return p;
}

Placement random_placement(const topo::Topology& topology, std::uint32_t ranks, std::uint32_t ranks_per_node,
                           std::uint64_t seed) {
  return random_placement(topology.nodes().size(), topology.spec(), ranks, ranks_per_node, seed);
}

Placement random_placement(std::uint64_t nodes, std::string_view spec, std::uint32_t ranks,
                           std::uint32_t ranks_per_node, std::uint64_t seed) {
  (void)nodes_needed(nodes, spec, ranks, ranks_per_node);
  if (nodes > static_cast<std::uint64_t>(topo::kMaxTopologyNodes)) {
    throw InputError(fmt::format("a random placement on {} ({} nodes) takes networks of at most {} nodes",
                                 spec, nodes, topo::kMaxTopologyNodes));
  }
  // Any nodes of the whole machine, not only the first ones: a shuffle of all node ids, of which
  // the first ones take the ranks in blocks.
  std::vector<topo::NodeId> ids(nodes);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = static_cast<topo::NodeId>(i);
  }
  Rng rng(seed);
  shuffle(std::span<topo::NodeId>(ids), rng);
  Placement p;
  p.node_of_rank.resize(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    p.node_of_rank[r] = ids[r / ranks_per_node];
  }
  p.description = fmt::format("random nodes (seed {}), {} rank{} per node", seed, ranks_per_node,
                              ranks_per_node == 1 ? "" : "s");
  return p;
}

Placement explicit_placement(const topo::Topology& topology, std::uint32_t ranks,
                             std::vector<topo::NodeId> node_of_rank, std::string description) {
  if (node_of_rank.size() < ranks) {
    throw InputError(fmt::format("the placement ({}) places {} ranks, the schedule has {}: place every rank",
                                 description, node_of_rank.size(), ranks));
  }
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    if (node_of_rank[r] >= topology.nodes().size()) {
      throw InputError(fmt::format("the placement ({}) puts rank {} on node {}, but {} has {} nodes",
                                   description, r, node_of_rank[r], topology.spec(),
                                   topology.nodes().size()));
    }
  }
  return Placement{std::move(node_of_rank), std::move(description)};
}

Network::Network(std::shared_ptr<const topo::Topology> topology, Placement placement, NetworkParams params)
    : topology_(std::move(topology)), placement_(std::move(placement)), params_(params) {
  if (!topology_) {
    throw InputError("network: no topology given");
  }
  placement_ = explicit_placement(*topology_, static_cast<std::uint32_t>(placement_.node_of_rank.size()),
                                  std::move(placement_.node_of_rank), std::move(placement_.description));
  capacity_.reserve(topology_->links().size());
  for (const topo::Link& link : topology_->links()) {
    if (!(link.capacity_bytes_per_s > 0)) {
      throw InputError(fmt::format("link {} of {} has no capacity: give every link a positive rate",
                                   topology_->link_name(link.id), topology_->spec()));
    }
    capacity_.push_back(link.capacity_bytes_per_s * 1e-12);
  }
}

void Network::path_into(std::uint32_t src, std::uint32_t dst, std::vector<topo::LinkId>& out) const {
  const topo::NodeId a = node_of(src);
  const topo::NodeId b = node_of(dst);
  out.clear();
  if (a == b) {
    return;
  }
  topology_->route_into(a, b, out);
  out.insert(out.begin(), topology_->injection_link(a));
  out.push_back(topology_->ejection_link(b));
}

void Network::spread_path_into(std::uint32_t src, std::uint32_t dst, Rng& rng,
                               std::vector<topo::LinkId>& out) const {
  const topo::NodeId a = node_of(src);
  const topo::NodeId b = node_of(dst);
  out.clear();
  if (a == b) {
    return;
  }
  const std::uint64_t choices = topology_->route_choices(a, b);
  topology_->route_choice_into(a, b, choices > 1 ? uniform_below(rng, choices) : 0, out);
  out.insert(out.begin(), topology_->injection_link(a));
  out.push_back(topology_->ejection_link(b));
}

const char* to_string(ModelKind kind) noexcept { return kind == ModelKind::kPacket ? "packet" : "flow"; }

ModelKind parse_model_kind(std::string_view text, std::string_view what) {
  if (text == "flow") {
    return ModelKind::kFlow;
  }
  if (text == "packet") {
    return ModelKind::kPacket;
  }
  throw InputError(
      fmt::format("{} '{}': give flow (max-min fair flows) or packet (packets through router "
                  "buffers with credits; docs/network-models.md)",
                  what, text));
}

}  // namespace gridlock::net
