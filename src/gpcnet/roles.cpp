#include "gridlock/gpcnet/roles.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"

namespace gridlock::gpcnet {
namespace {

constexpr std::uint64_t kMinNodesPerGroup = 2;

// Appends `types` group sizes that split `nodes` as evenly as they go, the larger ones first.
void append_even_split(std::vector<std::uint64_t>& sizes, std::uint64_t nodes, std::uint64_t types) {
  for (std::uint64_t t = 0; t < types; ++t) {
    sizes.push_back(nodes / types + (t < nodes % types ? 1 : 0));
  }
}

}  // namespace

RoleLayout::RoleLayout(std::uint64_t nodes, std::uint64_t seed, std::vector<std::uint64_t> sizes,
                       std::vector<CongestorType> congestors)
    : nodes_(nodes), seed_(seed), sizes_(std::move(sizes)), congestors_(std::move(congestors)) {
  std::uint64_t start = 0;
  for (const auto size : sizes_) {
    starts_.push_back(start);
    start += size;
  }
}

RoleLayout::RoleLayout(std::uint64_t nodes, std::uint64_t seed, double canary_fraction,
                       std::vector<CongestorType> congestors)
    : RoleLayout(nodes, seed, std::vector<std::uint64_t>{}, std::move(congestors)) {
  const auto types = static_cast<std::uint64_t>(congestors_.size());
  const std::uint64_t needed = kMinNodesPerGroup * (1 + types);
  // As GPCNeT: the congestors get floor((1 - f) x nodes) nodes, the canaries the rest (3 of 12
  // nodes at the default 0.2, where rounding 0.2 x 12 would give 2).
  const double congestor_nodes = std::floor((1.0 - canary_fraction) * static_cast<double>(nodes));
  const std::uint64_t canaries =
      nodes - std::min(nodes, static_cast<std::uint64_t>(std::max(0.0, congestor_nodes)));
  const std::uint64_t rest = nodes - std::min(canaries, nodes);
  const std::uint64_t smallest_congestor_group = types == 0 ? kMinNodesPerGroup : rest / types;
  if (nodes < needed || canaries < kMinNodesPerGroup || smallest_congestor_group < kMinNodesPerGroup) {
    throw InputError(fmt::format(
        "too few nodes for the chosen roles: {} nodes with --canary-fraction {} give {} canary nodes and {} "
        "nodes for {} congestor type(s); every role needs at least {} nodes (at least {} nodes in all). "
        "Run on more nodes (or more --virtual-nodes), use fewer --congestors, or change --canary-fraction",
        nodes, canary_fraction, canaries, rest, types, kMinNodesPerGroup, needed));
  }
  sizes_.push_back(canaries);
  append_even_split(sizes_, rest, types);
  std::uint64_t start = 0;
  starts_.clear();
  for (const auto size : sizes_) {
    starts_.push_back(start);
    start += size;
  }
}

RoleLayout RoleLayout::all_congestors(std::uint64_t nodes, std::uint64_t seed,
                                      std::vector<CongestorType> congestors) {
  const auto types = static_cast<std::uint64_t>(congestors.size());
  if (types == 0 || nodes < kMinNodesPerGroup * types) {
    throw InputError(fmt::format(
        "too few nodes for the chosen congestors: {} nodes for {} congestor type(s), and every type needs at "
        "least {} nodes. Run on more nodes (or more --virtual-nodes), or give fewer --congestors",
        nodes, types, kMinNodesPerGroup));
  }
  std::vector<std::uint64_t> sizes{0};
  append_even_split(sizes, nodes, types);
  return RoleLayout(nodes, seed, std::move(sizes), std::move(congestors));
}

RoleLayout RoleLayout::all_canaries(std::uint64_t nodes, std::uint64_t seed) {
  if (nodes < kMinNodesPerGroup) {
    throw InputError(fmt::format(
        "too few nodes: gridlock-bench network needs at least {} nodes, found {}. Run on more nodes or use "
        "--virtual-nodes to split this host's ranks into several virtual nodes",
        kMinNodesPerGroup, nodes));
  }
  return RoleLayout(nodes, seed, std::vector<std::uint64_t>{nodes}, std::vector<CongestorType>{});
}

NodeRole RoleLayout::role_of(std::uint64_t node_id) const {
  if (node_id >= nodes_) {
    throw std::out_of_range(fmt::format("node id {} out of range [0, {})", node_id, nodes_));
  }
  const RandomPermutation shuffle(nodes_, derive_seed(seed_, kRoleStream));
  const std::uint64_t position = shuffle.index_of(node_id);
  int group = 0;
  while (group + 1 < group_count() && position >= starts_[static_cast<std::size_t>(group) + 1]) {
    ++group;
  }
  return NodeRole{group, position - starts_[static_cast<std::size_t>(group)]};
}

std::vector<std::uint64_t> RoleLayout::nodes_of(int group) const {
  const RandomPermutation shuffle(nodes_, derive_seed(seed_, kRoleStream));
  std::vector<std::uint64_t> result;
  const auto g = static_cast<std::size_t>(group);
  for (std::uint64_t p = starts_.at(g); p < starts_.at(g) + sizes_.at(g); ++p) {
    result.push_back(shuffle.at(p));
  }
  return result;
}

std::string RoleLayout::group_name(int group) const {
  if (group == 0) {
    return "canary";
  }
  return std::string(congestor_key(congestors_.at(static_cast<std::size_t>(group) - 1)));
}

}  // namespace gridlock::gpcnet
