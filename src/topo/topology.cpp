#include "gridlock/topo/topology.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::topo {
namespace {

template <typename Id>
std::optional<Id> lookup(const std::vector<std::pair<std::string, Id>>& index, std::string_view name) {
  const auto it = std::lower_bound(index.begin(), index.end(), name,
                                   [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (it != index.end() && it->first == name) {
    return it->second;
  }
  return std::nullopt;
}

}  // namespace

void Topology::reserve(std::size_t nodes, std::size_t routers, std::size_t network_links) {
  nodes_.reserve(nodes);
  routers_.reserve(routers);
  out_links_.reserve(routers);
  in_links_.reserve(routers);
  // Terminal links follow the network links: an injection and an ejection link per node.
  links_.reserve(network_links + 2 * nodes);
}

RouterId Topology::add_router(std::string name, std::vector<int> coords) {
  const auto id = static_cast<RouterId>(routers_.size());
  routers_.push_back(Router{id, std::move(name), std::move(coords)});
  out_links_.emplace_back();
  in_links_.emplace_back();
  return id;
}

NodeId Topology::add_node(std::string name, RouterId router) {
  if (router >= routers_.size()) {
    throw std::out_of_range("add_node: router id out of range");
  }
  const auto id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(Node{id, std::move(name), router});
  return id;
}

LinkId Topology::add_link(RouterId src, RouterId dst, std::string direction, std::string in_port,
                          double capacity_bytes_per_s) {
  if (src >= routers_.size() || dst >= routers_.size()) {
    throw std::out_of_range("add_link: router id out of range");
  }
  const auto id = static_cast<LinkId>(links_.size());
  Link link;
  link.id = id;
  link.kind = LinkKind::kNetwork;
  link.src_router = src;
  link.dst_router = dst;
  link.direction = std::move(direction);
  link.in_port = std::move(in_port);
  link.capacity_bytes_per_s = capacity_bytes_per_s;
  links_.push_back(std::move(link));
  out_links_[src].push_back(id);
  in_links_[dst].push_back(id);
  network_links_ = links_.size();
  return id;
}

void Topology::finish(double terminal_capacity_bytes_per_s) {
  network_links_ = links_.size();
  injection_.resize(nodes_.size());
  ejection_.resize(nodes_.size());
  for (const auto& node : nodes_) {
    for (const auto kind : {LinkKind::kInjection, LinkKind::kEjection}) {
      Link link;
      link.id = static_cast<LinkId>(links_.size());
      link.kind = kind;
      link.src_router = node.router;
      link.dst_router = node.router;
      link.node = node.id;
      link.direction = kind == LinkKind::kInjection ? "inject" : "eject";
      link.in_port = link.direction;
      link.capacity_bytes_per_s = terminal_capacity_bytes_per_s;
      (kind == LinkKind::kInjection ? injection_ : ejection_)[node.id] = link.id;
      links_.push_back(std::move(link));
    }
  }
  node_index_.clear();
  node_index_.reserve(nodes_.size());
  for (const auto& node : nodes_) {
    node_index_.emplace_back(node.name, node.id);
  }
  std::sort(node_index_.begin(), node_index_.end());
  for (std::size_t i = 1; i < node_index_.size(); ++i) {
    if (node_index_[i].first == node_index_[i - 1].first) {
      throw InputError(
          fmt::format("duplicate node name '{}': every node needs a unique name", node_index_[i].first));
    }
  }
  router_index_.clear();
  router_index_.reserve(routers_.size());
  for (const auto& router : routers_) {
    router_index_.emplace_back(router.name, router.id);
  }
  std::sort(router_index_.begin(), router_index_.end());
}

std::optional<NodeId> Topology::find_node(std::string_view name) const {
  if (auto id = lookup(node_index_, name)) {
    return id;
  }
  if (const std::optional<std::uint64_t> index = parse_u64(name)) {
    return node_of_index(*index);
  }
  return std::nullopt;
}

std::optional<NodeId> Topology::node_of_index(std::uint64_t index) const {
  if (index < nodes_.size()) {
    return static_cast<NodeId>(index);
  }
  return std::nullopt;
}

NodeId Topology::node_id(std::string_view name) const {
  if (auto id = find_node(name)) {
    return *id;
  }
  throw InputError(fmt::format(
      "unknown node '{}' in the {} topology '{}': use a node name such as '{}' or an "
      "index from 0 to {}",
      printable_excerpt(name), kind(), spec(), nodes_.empty() ? std::string("?") : nodes_.front().name,
      nodes_.empty() ? 0 : nodes_.size() - 1));
}

std::optional<RouterId> Topology::find_router(std::string_view name) const {
  return lookup(router_index_, name);
}

std::optional<LinkId> Topology::link_out(RouterId router, std::string_view direction) const {
  if (router >= out_links_.size()) {
    return std::nullopt;
  }
  for (const LinkId id : out_links_[router]) {
    if (links_[id].direction == direction) {
      return id;
    }
  }
  return std::nullopt;
}

std::optional<LinkId> Topology::link_in(RouterId router, std::string_view in_port) const {
  if (router >= in_links_.size()) {
    return std::nullopt;
  }
  for (const LinkId id : in_links_[router]) {
    if (links_[id].in_port == in_port) {
      return id;
    }
  }
  return std::nullopt;
}

void Topology::route_routers_into(RouterId src, RouterId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (src >= routers_.size() || dst >= routers_.size()) {
    throw std::out_of_range("route: router id out of range");
  }
  if (src != dst) {
    append_router_route(src, dst, out);
  }
}

void Topology::route_into(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (nodes_.at(src).router != nodes_.at(dst).router) {
    append_node_route(src, dst, out);
  }
}

void Topology::append_node_route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  append_router_route(nodes_[src].router, nodes_[dst].router, out);
}

std::uint64_t Topology::route_choices(NodeId src, NodeId dst) const {
  const RouterId a = nodes_.at(src).router;
  const RouterId b = nodes_.at(dst).router;
  return a == b ? 1 : router_route_choices(a, b);
}

void Topology::route_choice_into(NodeId src, NodeId dst, std::uint64_t choice,
                                 std::vector<LinkId>& out) const {
  const RouterId a = nodes_.at(src).router;
  const RouterId b = nodes_.at(dst).router;
  out.clear();
  if (choice >= (a == b ? 1 : router_route_choices(a, b))) {
    throw std::out_of_range("route: choice index out of range (see route_choices())");
  }
  if (a != b) {
    append_router_route_choice(a, b, choice, out);
  }
}

std::uint64_t Topology::router_route_choices(RouterId /*src*/, RouterId /*dst*/) const { return 1; }

void Topology::append_router_route_choice(RouterId src, RouterId dst, std::uint64_t /*choice*/,
                                          std::vector<LinkId>& out) const {
  append_router_route(src, dst, out);
}

std::vector<LinkId> Topology::route(NodeId src, NodeId dst) const {
  std::vector<LinkId> out;
  route_into(src, dst, out);
  return out;
}

std::size_t Topology::hop_count(NodeId src, NodeId dst) const { return route(src, dst).size(); }

std::uint64_t Topology::whole_link_count() const { return links_.size(); }

std::uint64_t Topology::whole_link_id(LinkId link) const { return links_.at(link).id; }

std::string Topology::link_name(LinkId id) const {
  const Link& link = links_.at(id);
  switch (link.kind) {
    case LinkKind::kInjection:
      return fmt::format("{} -> {}", nodes_[link.node].name, routers_[link.dst_router].name);
    case LinkKind::kEjection:
      return fmt::format("{} -> {}", routers_[link.src_router].name, nodes_[link.node].name);
    case LinkKind::kNetwork:
      break;
  }
  return fmt::format("{} {} -> {}", routers_[link.src_router].name, link.direction,
                     routers_[link.dst_router].name);
}

std::string Topology::route_text(NodeId src, NodeId dst) const {
  const auto links = route(src, dst);
  std::string out = routers_[nodes_.at(src).router].name;
  for (const LinkId id : links) {
    out += fmt::format(" {} {}", links_[id].direction, routers_[links_[id].dst_router].name);
  }
  return out;
}

TopologySummary Topology::summary() const {
  TopologySummary out;
  out.kind = std::string(kind());
  out.spec = spec();
  out.parameters = parameters();
  out.nodes = nodes_.size();
  out.routers = routers_.size();
  out.network_links = network_links_;
  out.terminal_links = links_.size() - network_links_;
  double min_cap = 0;
  double max_cap = 0;
  for (std::size_t i = 0; i < network_links_; ++i) {
    const double cap = links_[i].capacity_bytes_per_s;
    min_cap = i == 0 ? cap : std::min(min_cap, cap);
    max_cap = i == 0 ? cap : std::max(max_cap, cap);
  }
  out.min_network_capacity_bytes_per_s = min_cap;
  out.max_network_capacity_bytes_per_s = max_cap;
  return out;
}

}  // namespace gridlock::topo
