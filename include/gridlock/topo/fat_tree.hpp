#pragma once
/// @file
/// Fat tree (extended generalized fat tree, XGFT) with a taper and deterministic up*/down* routing.
///
/// Notation: XGFT(h; m1..mh; w1..wh) with w1 = 1. Level-0 elements are nodes, levels 1..h are
/// switches (level 1: leaves). A level-l switch has m_l children and w_{l+1} parents. There are
/// m1*...*mh nodes; level l has (m_{l+1}*...*m_h)*(w_1*...*w_l) switches, named `L<l>s<index>`.
/// Nodes are named `n%05d` and attach to leaves in order (node i to leaf i div m1).
/// Full bisection (no taper): w_l = m_{l-1}; a taper t divides the up-links: w_l = m_{l-1} / t
/// (rounded down, at least 1), i.e. oversubscription t:1 at every switch level.
/// Up ports are named `up<k>`, down ports `down<c>`.
///
/// Routing: up to the lowest common level of source and destination, then down (up*/down*).
/// Between nodes (Topology::route_into()) the up port leaving level l-1 for level l is chosen by
/// destination node, D-mod-k as InfiniBand subnet managers (OpenSM's ftree) and Zahavi's D-Mod-K
/// use it: k_l = (dst_node div (w_1*...*w_{l-1})) mod w_l with w_1 = 1, so the leaf sends to
/// up port dst_node mod w_2. The nodes of one leaf are then reached through different top
/// switches (through one each on a full-bisection two-level tree) and a shift permutation
/// (node i to node i+s) on a full-bisection tree puts at most one flow on every link.
/// Between routers (Topology::route_routers_into(), for router pairs) the same rule takes the
/// destination leaf's index in place of the node's: k_l = (dst_leaf div (w_2*...*w_{l-1})) mod w_l,
/// so on a two-level tree every router route into one leaf comes down one spine's link to it.
/// The way down is unique. With a choice index (Topology::route_choice_into(), the per-message
/// spread) the up port at each level is the index's digit instead (mixed radix w2, w3, ...): any
/// up port leads to a common ancestor. Hop count (router-to-router links) is 2*(L-1) where L is
/// the lowest common level.
///
/// LIMITATIONS: single-homed nodes (w1 = 1); no adaptive routing; one capacity for all links.
#include <string>

#include "gridlock/topo/topology.hpp"

namespace gridlock::topo {

/// Parameters of a FatTree.
struct FatTreeOptions {
  std::vector<int> down{16, 8};          ///< m1..mh: children per switch at each level (h = size, >= 1).
  std::vector<int> up;                   ///< w2..wh (parents per switch below); empty: from `taper`.
  double taper = 1;                      ///< Oversubscription t >= 1 used when `up` is empty.
  double capacity_bytes_per_s = 12.5e9;  ///< Capacity of every link, terminal links included.
};

/// Fat tree with deterministic up*/down* (D-mod-k) routing.
class FatTree final : public Topology {
 public:
  /// Builds the tree; throws InputError on inconsistent parameters.
  explicit FatTree(FatTreeOptions options);

  /// `fattree`.
  [[nodiscard]] std::string_view kind() const noexcept override { return "fattree"; }
  /// Canonical spec: `fattree:m1x...,up=w2x...,cap=..`.
  [[nodiscard]] std::string spec() const override;
  /// Levels, down and up ports per level, taper, capacity.
  [[nodiscard]] Parameters parameters() const override;

  /// Levels of switches (h).
  [[nodiscard]] int levels() const noexcept { return static_cast<int>(m_.size()); }
  /// Parents per switch for levels 1..h-1 (w2..wh).
  [[nodiscard]] const std::vector<int>& up_ports() const noexcept { return w_; }
  /// Closed form hop count between two nodes: 2*(L-1), L the lowest common level (0 same leaf).
  [[nodiscard]] std::size_t closed_form_hops(NodeId src, NodeId dst) const;

 protected:
  /// Up*/down* (D-mod-k by destination leaf) between two leaves; throws std::out_of_range for
  /// non-leaf routers.
  void append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const override;
  /// Up*/down* (D-mod-k by destination node) between nodes on two different leaves.
  void append_node_route(NodeId src, NodeId dst, std::vector<LinkId>& out) const override;
  /// Product of the up ports below the lowest common level.
  [[nodiscard]] std::uint64_t router_route_choices(RouterId src, RouterId dst) const override;
  /// Up*/down* with the up ports given by the digits of `choice`.
  void append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                  std::vector<LinkId>& out) const override;

 private:
  // Lowest common level of two leaves (1: the same leaf); throws std::out_of_range for non-leaves.
  [[nodiscard]] int common_level(RouterId src, RouterId dst) const;
  // Up*/down*: D-mod-k on `up_key` (the destination node or leaf) when `choice` is null, else the
  // up ports from its digits.
  void append_up_down(RouterId src, RouterId dst, std::uint64_t up_key, const std::uint64_t* choice,
                      std::vector<LinkId>& out) const;

  FatTreeOptions options_;
  std::vector<int> m_;                          // m1..mh
  std::vector<int> w_;                          // w2..wh (index l-2 for level l)
  std::vector<RouterId> level_first_;           // first router id of each level (index l-1)
  std::vector<std::vector<LinkId>> up_link_;    // per router: k -> link
  std::vector<std::vector<LinkId>> down_link_;  // per router: c -> link
};

}  // namespace gridlock::topo
