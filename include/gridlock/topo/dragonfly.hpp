#pragma once
/// @file
/// Dragonfly: groups of routers, all-to-all (or 2-D all-to-all) inside a group, global links
/// between groups; minimal and Valiant routing.
///
/// Notation: `g` groups, `a` routers per group, `p` nodes per router, `h` global links per router.
/// Router r of group G is named `g<G>r<r>`; nodes are named `n%05d`, numbered router by router.
/// Global ports are numbered k = r*h + j (router r, its j-th global port) inside a group; port k
/// of group G leads to group (G + 1 + (k mod (g-1))) mod g, copy c = k div (g-1); it pairs with the
/// port of the same copy in the other group that points back. Ports without a partner stay unused.
/// Local ports are named `l<r>` (towards router r), global ports `g<j>`.
///
/// Inside a group: `all` (every router linked to every other, one hop) or `2d:RxC` (Aries-style:
/// R rows of C routers; all-to-all along each row and along each column, at most two hops, row
/// first: first change column within the row, then row within the column).
///
/// Minimal routing: local hops to the router owning the global link, the global link, local hops
/// to the destination. When several copies of a global link join two groups, copy
/// (source router index within its group) mod copies is used, so the route is deterministic for a
/// given arrangement. Valiant (non-minimal) routing between groups goes minimally to the router
/// where the global link from the source router into an intermediate group lands, then minimally
/// to the destination; every group other than the source's and the destination's is a candidate.
///
/// Valiant paths as adaptive routing uses them (valiant_choices(), append_valiant_route()), one per
/// intermediate: between groups with a third group, through an intermediate group as above;
/// within a group, through an intermediate router of the group (neither the source's nor the
/// destination's router), minimally to it and minimally on (the path turns there); between the
/// two groups of a 2-group machine, minimally to an intermediate router of the source group (not
/// the source's router), over that router's own global link (the copy minimal routing would
/// choose from it) and minimally to the destination: another gateway and global link than the
/// minimal route's, as Aries and the dragonfly literature (Kim et al. 2008) route non-minimally
/// when there is no third group.
///
/// Route choices (Topology::route_choice_into(), the per-message spread): every copy of the
/// global link between the two groups (each is one global hop; a copy owned by another router of
/// the source group adds a local hop before it), and in 2-D groups row or column first on each
/// local part.
///
/// LIMITATIONS: no adaptive (UGAL) selection here (the packet model makes it); requires a*h >= g-1 so every
/// pair of groups is joined; one capacity for all local and one for all global links.
#include <string>

#include "gridlock/topo/topology.hpp"

namespace gridlock::topo {

/// Parameters of a Dragonfly.
struct DragonflyOptions {
  int groups = 9;                   ///< g >= 2.
  int routers_per_group = 4;        ///< a >= 1.
  int nodes_per_router = 2;         ///< p >= 1.
  int global_links_per_router = 2;  ///< h >= 1, with a*h >= g-1.
  int rows = 0;  ///< 0: all-to-all inside a group; else 2-D all-to-all of rows x (a/rows) routers.
  double local_capacity_bytes_per_s = 5.25e9;     ///< Intra-group link capacity.
  double global_capacity_bytes_per_s = 4.7e9;     ///< Inter-group link capacity.
  double terminal_capacity_bytes_per_s = 10.2e9;  ///< Node-to-router link capacity.
};

/// Dragonfly topology with minimal routing and Valiant candidates.
class Dragonfly final : public Topology {
 public:
  /// Builds the dragonfly; throws InputError on inconsistent parameters.
  explicit Dragonfly(DragonflyOptions options);

  /// `dragonfly`.
  [[nodiscard]] std::string_view kind() const noexcept override { return "dragonfly"; }
  /// Canonical spec: `dragonfly:g=..,a=..,p=..,h=..,intra=..,local=..,global=..,terminal=..`.
  [[nodiscard]] std::string spec() const override;
  /// Groups, routers per group, nodes per router, global links per router, intra-group shape, capacities.
  [[nodiscard]] Parameters parameters() const override;

  /// The options the dragonfly was built with.
  [[nodiscard]] const DragonflyOptions& options() const noexcept { return options_; }
  /// Group of a router.
  [[nodiscard]] int group_of(RouterId router) const noexcept;
  /// Whether `link` joins two groups (a global link): the links UGAL counts phases by and where
  /// `--global-extra-latency` applies.
  [[nodiscard]] bool is_global(const Link& link) const noexcept {
    return link.kind == LinkKind::kNetwork && group_of(link.src_router) != group_of(link.dst_router);
  }
  /// Intermediate groups a Valiant route from `src` to `dst` may use (empty within one group).
  [[nodiscard]] std::vector<int> valiant_candidates(NodeId src, NodeId dst) const;
  /// The Valiant route from `src` to `dst` through `intermediate_group`.
  [[nodiscard]] std::vector<LinkId> valiant_route(NodeId src, NodeId dst, int intermediate_group) const;
  /// Number of Valiant paths adaptive routing may take from `src` to `dst` (see the file comment):
  /// g-2 intermediate groups between groups with a third group, a-2 intermediate routers within a
  /// group (0 on one router), a-1 routers of the source group between the 2 groups of a 2-group
  /// machine.
  [[nodiscard]] std::size_t valiant_choices(NodeId src, NodeId dst) const;
  /// Appends Valiant path `choice` (below valiant_choices()) from `src`'s router to `dst`'s to `out`.
  /// Returns how many of the appended links lead up to the intermediate router when the path turns
  /// inside a group (a packet must change virtual channel there, as after a global link, for the
  /// routing to stay deadlock free), 0 when it turns only at global links. Throws InputError
  /// for a choice out of range.
  std::size_t append_valiant_route(NodeId src, NodeId dst, std::size_t choice,
                                   std::vector<LinkId>& out) const;
  /// Appends the path from `src`'s router minimally to router `intermediate`, then minimally to
  /// `dst`'s router, to `out`: BookSim2's dragonflynew UGAL, whose non-minimal packets route to a
  /// random intermediate router (not group). Returns how many of the appended links lead up to
  /// `intermediate`. Throws InputError when `intermediate` is not a router of this dragonfly or
  /// is `src`'s or `dst`'s router.
  std::size_t append_route_via_router(NodeId src, NodeId dst, RouterId intermediate,
                                      std::vector<LinkId>& out) const;
  /// Closed form of the minimal hop count for all-to-all groups: 0 same router, 1 same group,
  /// else [src is not the gateway] + 1 + [landing router is not the destination].
  [[nodiscard]] std::size_t minimal_hops_closed_form(NodeId src, NodeId dst) const;

 protected:
  /// Minimal routing: local, global, local.
  void append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const override;
  /// Copies of the global link times, in 2-D groups, the row-or-column bits.
  [[nodiscard]] std::uint64_t router_route_choices(RouterId src, RouterId dst) const override;
  /// Minimal routing through the copy and local orders of `choice`.
  void append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                  std::vector<LinkId>& out) const override;

 private:
  struct GlobalPort {
    int router_in_group = 0;  // owner router index within the group
    LinkId link = 0;          // outgoing link
    RouterId landing = 0;     // router at the other end
  };
  void append_local(RouterId src, RouterId dst, std::vector<LinkId>& out, bool column_first) const;
  // The global link a minimal route from `src` into `dst_group` takes, towards router `toward`
  // (the destination, or for Valiant's first leg the final destination): see the .cpp.
  [[nodiscard]] const GlobalPort& global_port(RouterId src, int dst_group, RouterId toward) const;
  // The Valiant path through intermediate group `group` (a third group): minimally to where the
  // source router's global link into it lands, then minimally on.
  void append_group_valiant(RouterId src, RouterId dst, int group, std::vector<LinkId>& out) const;

  DragonflyOptions options_;
  std::vector<LinkId> local_link_;  // (group*a + r)*a + r2 -> link or kNone
  // per (group, target group): the ports joining them, in copy order
  std::vector<std::vector<GlobalPort>> global_ports_;
};

}  // namespace gridlock::topo
