#include <malloc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/topo/dragonfly.hpp"
#include "gridlock/topo/fat_tree.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/topology_json.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::topo {
namespace {

// Checks that the route is a connected path from the source's router to the destination's router.
void expect_connected(const Topology& t, NodeId src, NodeId dst) {
  const auto links = t.route(src, dst);
  RouterId at = t.nodes()[src].router;
  for (const LinkId id : links) {
    ASSERT_LT(id, t.network_link_count());
    ASSERT_EQ(t.links()[id].src_router, at) << t.route_text(src, dst);
    at = t.links()[id].dst_router;
  }
  EXPECT_EQ(at, t.nodes()[dst].router) << t.route_text(src, dst);
}

std::array<int, 3> coords_of_node(const Torus3D& t, std::string_view name) {
  return t.coords_of(t.nodes()[t.node_id(name)].router);
}

TEST(Torus, SnakeNumberingMatchesPaperMachine) {
  const Torus3D t(TorusOptions{});
  EXPECT_EQ(t.nodes().size(), 64U);
  EXPECT_EQ(t.routers().size(), 32U);
  EXPECT_EQ(coords_of_node(t, "nid00012"), (std::array<int, 3>{0, 0, 6}));
  EXPECT_EQ(coords_of_node(t, "nid00016"), (std::array<int, 3>{0, 1, 7}));
  EXPECT_EQ(coords_of_node(t, "nid00017"), (std::array<int, 3>{0, 1, 7}));
  EXPECT_EQ(coords_of_node(t, "nid00038"), (std::array<int, 3>{1, 1, 3}));
  EXPECT_EQ(coords_of_node(t, "nid00050"), (std::array<int, 3>{1, 0, 6}));
}

TEST(Torus, PaperWorkedExample) {
  const Torus3D t(TorusOptions{});
  const auto src = t.node_id("nid00012");
  const auto dst = t.node_id("nid00038");
  EXPECT_EQ(t.route_text(src, dst), "(0,0,6) X+ (1,0,6) Y+ (1,1,6) Z- (1,1,5) Z- (1,1,4) Z- (1,1,3)");
  EXPECT_EQ(t.hop_count(src, dst), 5U);
  // The first hop's bandwidth is read on the X- port of (1,0,6), as nid00050 reports it.
  const auto first = t.route(src, dst).front();
  EXPECT_EQ(t.links()[first].in_port, "X-");
  EXPECT_EQ(t.link_in(t.nodes()[t.node_id("nid00050")].router, "X-"), first);
}

TEST(Torus, TieBreakRules) {
  TorusOptions o;
  o.dims = {1, 1, 8};
  o.numbering = NodeNumbering::kLinear;
  o.nodes_per_router = 1;
  o.tie_break = TieBreak::kPlusIfDestOdd;
  const Torus3D odd(o);
  // 0 -> 4: distance 4 both ways; destination 4 is even -> minus.
  EXPECT_EQ(odd.route_text(0, 4), "(0,0,0) Z- (0,0,7) Z- (0,0,6) Z- (0,0,5) Z- (0,0,4)");
  EXPECT_EQ(odd.route_text(1, 5), "(0,0,1) Z+ (0,0,2) Z+ (0,0,3) Z+ (0,0,4) Z+ (0,0,5)");
  o.tie_break = TieBreak::kPlusIfDestEven;
  const Torus3D even(o);
  EXPECT_EQ(even.route_text(0, 4), "(0,0,0) Z+ (0,0,1) Z+ (0,0,2) Z+ (0,0,3) Z+ (0,0,4)");
  o.tie_break = TieBreak::kMinus;
  const Torus3D minus(o);
  EXPECT_EQ(minus.route_text(1, 5), "(0,0,1) Z- (0,0,0) Z- (0,0,7) Z- (0,0,6) Z- (0,0,5)");
  o.tie_break = TieBreak::kPlus;
  const Torus3D plus(o);
  EXPECT_EQ(plus.route_text(0, 4), "(0,0,0) Z+ (0,0,1) Z+ (0,0,2) Z+ (0,0,3) Z+ (0,0,4)");
}

TEST(Torus, WrapAroundTakesShorterWay) {
  TorusOptions o;
  o.dims = {1, 1, 8};
  o.numbering = NodeNumbering::kLinear;
  o.nodes_per_router = 1;
  const Torus3D t(o);
  EXPECT_EQ(t.route_text(0, 7), "(0,0,0) Z- (0,0,7)");
  EXPECT_EQ(t.route_text(7, 0), "(0,0,7) Z+ (0,0,0)");
  EXPECT_EQ(t.route_text(6, 1), "(0,0,6) Z+ (0,0,7) Z+ (0,0,0) Z+ (0,0,1)");
}

TEST(Torus, SizeTwoDimensionHasTwoLinksEachWay) {
  const Torus3D t(TorusOptions{});
  const RouterId a = t.router_at(0, 0, 0);
  const RouterId b = t.router_at(1, 0, 0);
  const auto plus = t.link_out(a, "X+");
  const auto minus = t.link_out(a, "X-");
  ASSERT_TRUE(plus && minus);
  EXPECT_NE(*plus, *minus);
  EXPECT_EQ(t.links()[*plus].dst_router, b);
  EXPECT_EQ(t.links()[*minus].dst_router, b);
}

TEST(Torus, AllPairsConnectedWithClosedFormHops) {
  for (const auto& dims :
       {std::array<int, 3>{2, 2, 8}, std::array<int, 3>{3, 4, 5}, std::array<int, 3>{4, 1, 6}}) {
    for (const auto rule :
         {TieBreak::kPlusIfDestOdd, TieBreak::kPlusIfDestEven, TieBreak::kPlus, TieBreak::kMinus}) {
      TorusOptions o;
      o.dims = dims;
      o.tie_break = rule;
      o.nodes_per_router = 1;
      const Torus3D t(o);
      for (NodeId s = 0; s < t.nodes().size(); ++s) {
        for (NodeId d = 0; d < t.nodes().size(); ++d) {
          expect_connected(t, s, d);
          const auto cs = t.coords_of(t.nodes()[s].router);
          const auto cd = t.coords_of(t.nodes()[d].router);
          ASSERT_EQ(t.hop_count(s, d), static_cast<std::size_t>(Torus3D::closed_form_hops(dims, cs, cd)));
        }
      }
    }
  }
}

TEST(Torus, NodesOnOneRouterHaveNoHops) {
  const Torus3D t(TorusOptions{});
  EXPECT_EQ(t.hop_count(t.node_id("nid00016"), t.node_id("nid00017")), 0U);
  EXPECT_EQ(t.route_text(t.node_id("nid00016"), t.node_id("nid00017")), "(0,1,7)");
}

TEST(Torus, CoordinatesFile) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "gridlock_topo_coords";
  std::filesystem::create_directories(dir);
  const auto good = dir / "good.txt";
  std::ofstream(good) << "# name x y z\nalpha 0 0 0\nbeta, 1, 1, 3\n\ngamma 1 1 3  # same router\n";
  TorusOptions o;
  o.coords_file = good;
  const Torus3D t(o);
  ASSERT_EQ(t.nodes().size(), 3U);
  EXPECT_EQ(t.coords_of(t.nodes()[t.node_id("beta")].router), (std::array<int, 3>{1, 1, 3}));
  EXPECT_EQ(t.hop_count(t.node_id("beta"), t.node_id("gamma")), 0U);
  const auto bad = dir / "bad.txt";
  std::ofstream(bad) << "alpha 0 0 0\nbeta 0 5 0\n";
  o.coords_file = bad;
  try {
    const Torus3D broken(o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0 to 1"), std::string::npos) << e.what();
  }
  // A name listed twice says where, like every other error of the file.
  const auto twice = dir / "twice.txt";
  std::ofstream(twice) << "alpha 0 0 0\nbeta 0 1 0\n# comment\nalpha 1 1 1\n";
  o.coords_file = twice;
  try {
    const Torus3D broken(o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("twice.txt:4: node 'alpha' is already listed on line 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(Dragonfly, AllPairsConnectedWithClosedFormHops) {
  for (const int rows : {0, 2}) {
    DragonflyOptions o;
    o.rows = rows;
    const Dragonfly t(o);
    EXPECT_EQ(t.nodes().size(), 72U);
    for (NodeId s = 0; s < t.nodes().size(); ++s) {
      for (NodeId d = 0; d < t.nodes().size(); ++d) {
        expect_connected(t, s, d);
        ASSERT_EQ(t.hop_count(s, d), t.minimal_hops_closed_form(s, d));
        ASSERT_LE(t.hop_count(s, d), rows == 0 ? 3U : 5U);
      }
    }
  }
}

TEST(Dragonfly, MinimalRouteUsesOneGlobalLinkAndValiantTwo) {
  const Dragonfly t(DragonflyOptions{});
  const NodeId s = 0;   // group 0
  const NodeId d = 71;  // group 8
  const auto count_global = [&](const std::vector<LinkId>& links) {
    return std::count_if(links.begin(), links.end(),
                         [&](LinkId id) { return t.links()[id].direction.front() == 'g'; });
  };
  EXPECT_EQ(count_global(t.route(s, d)), 1);
  const auto candidates = t.valiant_candidates(s, d);
  EXPECT_EQ(candidates.size(), 7U);
  for (const int mid : candidates) {
    const auto links = t.valiant_route(s, d, mid);
    EXPECT_EQ(count_global(links), 2);
    std::set<int> groups;
    RouterId at = t.nodes()[s].router;
    for (const LinkId id : links) {
      ASSERT_EQ(t.links()[id].src_router, at);
      at = t.links()[id].dst_router;
      groups.insert(t.group_of(at));
    }
    EXPECT_EQ(at, t.nodes()[d].router);
    EXPECT_TRUE(groups.count(mid) == 1);
  }
  EXPECT_TRUE(t.valiant_candidates(0, 1).empty());
  EXPECT_THROW((void)t.valiant_route(s, d, 0), InputError);
}

// With several global links between two groups, minimal routes chose the copy by the source
// router alone: on a 2-group dragonfly every router's traffic went through the global links of
// the first routers of its group (4 of 8 links here; 10 of 96 routers on the Crystal preset,
// whose isolated BW+Sync at 696 nodes came out at a fifth of the paper's). Now a router with its
// own link into the destination group takes it, and the pairs spread over all the copies.
TEST(Dragonfly, SeveralGlobalCopiesAreAllUsedFromTheSourceRouter) {
  DragonflyOptions o;
  o.groups = 2;
  o.routers_per_group = 4;
  o.nodes_per_router = 1;
  o.global_links_per_router = 2;
  const Dragonfly t(o);
  std::set<LinkId> used;
  for (NodeId s = 0; s < 4; ++s) {
    for (NodeId d = 4; d < 8; ++d) {
      const auto links = t.route(s, d);
      ASSERT_FALSE(links.empty());
      // Network links only: the first is the source router's own global link.
      const LinkId first = links.front();
      EXPECT_EQ(t.links()[first].direction.front(), 'g') << s << " -> " << d;
      EXPECT_EQ(t.links()[first].src_router, t.nodes()[s].router);
      used.insert(first);
      EXPECT_EQ(t.hop_count(s, d), links.size());
    }
  }
  EXPECT_EQ(used.size(), 8U) << "every global link of group 0 carries some pair";
}

// Adaptive routing's Valiant paths (valiant_choices, append_valiant_route) on every kind of
// pair: contiguous from the source's router to the destination's; within a group through an
// intermediate router that is neither end, reached minimally (the returned turn) and left
// minimally; between the 2 groups of a 2-group machine through another gateway of the source
// group over one global link; with a third group through it, over two global links. Every choice
// is a different intermediate. Until now a pair within a group, or any pair on 2 groups, had none
// (UGAL was minimal routing there).
TEST(Dragonfly, ValiantPathsTurnAtAnIntermediateRouterOrGroup) {
  for (const char* spec :
       {"dragonfly:g=2,a=4,p=1,h=2", "dragonfly:g=5,a=4,p=1,h=1", "dragonfly:g=2,a=6,p=1,h=1,intra=2d:2x3",
        "dragonfly:g=3,a=6,p=1,h=1,intra=2d:3x2"}) {
    const auto built = make_topology(spec);
    const auto& t = dynamic_cast<const Dragonfly&>(*built);
    const int g = t.options().groups;
    const std::size_t a = static_cast<std::size_t>(t.options().routers_per_group);
    const bool two_d = t.options().rows > 0;
    const auto is_global = [&](LinkId id) { return t.links()[id].direction.front() == 'g'; };
    for (NodeId s = 0; s < t.nodes().size(); ++s) {
      for (NodeId d = 0; d < t.nodes().size(); ++d) {
        const RouterId rs = t.nodes()[s].router;
        const RouterId rd = t.nodes()[d].router;
        const bool same_group = t.group_of(rs) == t.group_of(rd);
        const std::size_t choices = t.valiant_choices(s, d);
        const std::size_t expected = rs == rd     ? 0
                                     : same_group ? a - 2
                                     : g == 2     ? a - 1
                                                  : static_cast<std::size_t>(g - 2);
        ASSERT_EQ(choices, expected) << spec << " " << s << " -> " << d;
        std::set<RouterId> intermediates;
        for (std::size_t c = 0; c < choices; ++c) {
          std::vector<LinkId> links{7};  // appended after what the caller holds
          const std::size_t turn = t.append_valiant_route(s, d, c, links);
          ASSERT_EQ(links.front(), 7U);
          links.erase(links.begin());
          RouterId at = rs;
          for (const LinkId id : links) {
            ASSERT_EQ(t.links()[id].src_router, at) << spec << " " << s << " -> " << d << " via " << c;
            at = t.links()[id].dst_router;
          }
          ASSERT_EQ(at, rd);
          const auto globals = static_cast<std::size_t>(std::count_if(links.begin(), links.end(), is_global));
          if (same_group) {
            ASSERT_GE(turn, 1U);
            ASSERT_LE(turn, two_d ? 2U : 1U);
            ASSERT_LE(links.size() - turn, two_d ? 2U : 1U);
            const RouterId mid = t.links()[links[turn - 1]].dst_router;
            EXPECT_NE(mid, rs);
            EXPECT_NE(mid, rd);
            EXPECT_EQ(t.group_of(mid), t.group_of(rs));
            EXPECT_EQ(globals, 0U);
            intermediates.insert(mid);
          } else if (g == 2) {
            EXPECT_EQ(turn, 0U);
            EXPECT_EQ(globals, 1U);
            EXPECT_FALSE(is_global(links.front())) << "starts on a local link to another gateway";
            const auto gateway = std::find_if(links.begin(), links.end(), is_global);
            EXPECT_NE(t.links()[*gateway].src_router, rs);
            intermediates.insert(t.links()[*gateway].src_router);
          } else {
            EXPECT_EQ(turn, 0U);
            EXPECT_EQ(globals, 2U);
            const auto first = std::find_if(links.begin(), links.end(), is_global);
            const RouterId mid = t.links()[*first].dst_router;
            EXPECT_NE(t.group_of(mid), t.group_of(rs));
            EXPECT_NE(t.group_of(mid), t.group_of(rd));
            intermediates.insert(static_cast<RouterId>(t.group_of(mid)));
          }
        }
        EXPECT_EQ(intermediates.size(), choices) << spec << " " << s << " -> " << d;
        std::vector<LinkId> out;
        EXPECT_THROW((void)t.append_valiant_route(s, d, choices, out), InputError);
      }
    }
  }
}

TEST(Dragonfly, RejectsTooFewGlobalPorts) {
  DragonflyOptions o;
  o.groups = 20;
  EXPECT_THROW(Dragonfly{o}, InputError);
}

TEST(FatTree, AllPairsConnectedWithClosedFormHops) {
  for (const auto* spec : {"fattree:4x4", "fattree:4x4x4,taper=2", "fattree:2x3x2,up=2x3", "fattree:8"}) {
    const auto t = make_topology(spec);
    const auto& tree = dynamic_cast<const FatTree&>(*t);
    for (NodeId s = 0; s < t->nodes().size(); ++s) {
      for (NodeId d = 0; d < t->nodes().size(); ++d) {
        expect_connected(*t, s, d);
        ASSERT_EQ(t->hop_count(s, d), tree.closed_form_hops(s, d)) << spec;
      }
    }
  }
}

TEST(FatTree, TaperReducesUpLinks) {
  const auto full = make_topology("fattree:16x8");
  const auto tapered = make_topology("fattree:16x8,taper=2");
  // 8 leaves; full: 16 spines, tapered 2:1: 8 spines.
  EXPECT_EQ(full->routers().size(), 8U + 16U);
  EXPECT_EQ(tapered->routers().size(), 8U + 8U);
  EXPECT_EQ(full->network_link_count(), 2U * 8 * 16);
  EXPECT_EQ(tapered->network_link_count(), 2U * 8 * 8);
  EXPECT_EQ(full->hop_count(0, 127), 2U);
  EXPECT_EQ(full->hop_count(0, 15), 0U);
}

TEST(FatTree, DestinationsSpreadOverSpines) {
  const auto t = make_topology("fattree:4x4");
  std::set<RouterId> spines;
  for (NodeId d = 4; d < 16; ++d) {
    spines.insert(t->links()[t->route(0, d).front()].dst_router);
  }
  EXPECT_GT(spines.size(), 1U);
}

// Flows per network link of a set of node-to-node routes.
std::map<LinkId, int> link_loads(const Topology& t, const std::vector<std::pair<NodeId, NodeId>>& pairs) {
  std::map<LinkId, int> loads;
  std::vector<LinkId> route;
  for (const auto& [s, d] : pairs) {
    t.route_into(s, d, route);
    for (const LinkId id : route) {
      ++loads[id];
    }
  }
  return loads;
}

TEST(FatTree, ShiftPermutationIsNonBlocking) {
  // fattree:8x8: 8 nodes per leaf, 8 leaves, 8 spines, full bisection. Node i -> node i+8 (the
  // next leaf): D-mod-k by destination node sends each leaf's 8 flows up 8 different spines and
  // into the next leaf down 8 different spines, so every one of the 128 network links carries
  // exactly one flow (by destination leaf, all 8 would share one up-link and one down-link).
  const auto t = make_topology("fattree:8x8");
  const auto n = static_cast<NodeId>(t->nodes().size());
  ASSERT_EQ(n, 64U);
  ASSERT_EQ(t->network_link_count(), 128U);
  for (const NodeId shift : {8U, 9U, 24U, 63U}) {
    std::vector<std::pair<NodeId, NodeId>> pairs;
    std::size_t crossing = 0;
    for (NodeId i = 0; i < n; ++i) {
      pairs.emplace_back(i, (i + shift) % n);
      crossing += t->nodes()[i].router != t->nodes()[(i + shift) % n].router ? 1 : 0;
    }
    const auto loads = link_loads(*t, pairs);
    int most = 0;
    for (const auto& [link, flows] : loads) {
      most = std::max(most, flows);
    }
    EXPECT_EQ(most, 1) << "shift " << shift;
    // Every crossing flow takes one up-link and one down-link of its own.
    EXPECT_EQ(loads.size(), 2 * crossing) << "shift " << shift;
  }
}

TEST(FatTree, OneLeafIsReachedThroughEverySpine) {
  // The nodes of a leaf are reached through different spines (4 nodes per leaf, 4 spines), and
  // routes from one source leaf into different nodes use different up-links: on a three-level tree
  // the routes into one level-2 subtree's 16 nodes use 16 different top switches.
  const auto two = make_topology("fattree:4x4");
  std::set<RouterId> spines;
  for (NodeId d = 4; d < 8; ++d) {
    spines.insert(two->links()[two->route(0, d).front()].dst_router);
  }
  EXPECT_EQ(spines.size(), 4U);
  const auto three = make_topology("fattree:4x4x4");
  std::set<RouterId> tops;
  for (NodeId d = 16; d < 32; ++d) {
    const auto route = three->route(0, d);
    ASSERT_EQ(route.size(), 4U);
    tops.insert(three->links()[route[1]].dst_router);
  }
  EXPECT_EQ(tops.size(), 16U);
}

TEST(FatTree, RouterPairsRouteByDestinationLeaf) {
  // route_routers_into() has no destination node: D-mod-k by destination leaf, so every node of
  // leaf 1 is reached from leaf 0 through one spine, and the node route to one of them is it.
  const auto t = make_topology("fattree:4x4");
  std::vector<LinkId> by_leaf;
  t->route_routers_into(t->nodes()[0].router, t->nodes()[4].router, by_leaf);
  ASSERT_EQ(by_leaf.size(), 2U);
  int same = 0;
  for (NodeId d = 4; d < 8; ++d) {
    same += t->route(0, d) == by_leaf ? 1 : 0;
  }
  EXPECT_EQ(same, 1);
}

// Every choice index between two nodes gives a connected route; every distinct route has equally
// many indices (true of the topologies below: a uniform index is a uniform route) and the
// deterministic route is one of them.
// Returns the distinct routes.
std::map<std::vector<LinkId>, int> check_route_choices(const Topology& t, NodeId src, NodeId dst) {
  std::map<std::vector<LinkId>, int> routes;
  const std::uint64_t choices = t.route_choices(src, dst);
  std::vector<LinkId> links;
  for (std::uint64_t c = 0; c < choices; ++c) {
    t.route_choice_into(src, dst, c, links);
    RouterId at = t.nodes()[src].router;
    for (const LinkId id : links) {
      EXPECT_EQ(t.links()[id].src_router, at) << t.spec() << " choice " << c;
      at = t.links()[id].dst_router;
    }
    EXPECT_EQ(at, t.nodes()[dst].router) << t.spec() << " choice " << c;
    ++routes[links];
  }
  for (const auto& [route, count] : routes) {
    EXPECT_EQ(count, routes.begin()->second) << t.spec() << " " << src << " -> " << dst;
  }
  EXPECT_EQ(routes.count(t.route(src, dst)), 1U) << t.spec() << " " << src << " -> " << dst;
  EXPECT_THROW(t.route_choice_into(src, dst, choices, links), std::out_of_range);
  return routes;
}

TEST(RouteChoices, FatTreeUpPortsAreMinimalAndAllUsed) {
  for (const auto* spec : {"fattree:4x4", "fattree:4x4x4,taper=2", "fattree:2x3x2,up=2x3"}) {
    const auto t = make_topology(spec);
    const auto& tree = dynamic_cast<const FatTree&>(*t);
    for (NodeId s = 0; s < t->nodes().size(); s += 3) {
      for (NodeId d = 0; d < t->nodes().size(); ++d) {
        const auto routes = check_route_choices(*t, s, d);
        for (const auto& [route, count] : routes) {
          EXPECT_EQ(route.size(), tree.closed_form_hops(s, d)) << spec;
        }
        // One route per combination of up ports: w2 * ... * w_L distinct ones.
        EXPECT_EQ(routes.size(), t->route_choices(s, d)) << spec;
      }
    }
  }
  const auto t = make_topology("fattree:4x4");
  EXPECT_EQ(t->route_choices(0, 1), 1U);  // one leaf
  EXPECT_EQ(t->route_choices(0, 4), 4U);  // four spines
}

TEST(RouteChoices, TorusOrdersAndHalfWayRingsAreMinimal) {
  for (const auto* spec : {"torus:4x4x4,npr=1", "torus:2x2x8,npr=1", "torus:3x4x1,npr=1"}) {
    const auto t = make_topology(spec);
    const auto& torus = dynamic_cast<const Torus3D&>(*t);
    for (NodeId s = 0; s < t->nodes().size(); s += 5) {
      for (NodeId d = 0; d < t->nodes().size(); ++d) {
        const auto routes = check_route_choices(*t, s, d);
        const auto a = torus.coords_of(t->nodes()[s].router);
        const auto b = torus.coords_of(t->nodes()[d].router);
        for (const auto& [route, count] : routes) {
          EXPECT_EQ(route.size(),
                    static_cast<std::size_t>(Torus3D::closed_form_hops(torus.options().dims, a, b)));
        }
      }
    }
  }
  // (0,0,0) -> (2,1,0) on a 4x4x4: two orders (X then Y, Y then X) times two ways round X.
  const auto t = make_topology("torus:4x4x4,npr=1,numbering=linear");
  const auto& torus = dynamic_cast<const Torus3D&>(*t);
  const NodeId dst = torus.router_at(2, 1, 0);
  EXPECT_EQ(check_route_choices(*t, 0, dst).size(), 4U);
}

TEST(RouteChoices, DragonflyCopiesAndLocalOrders) {
  for (const auto* spec :
       {"dragonfly:g=5,a=4,p=1,h=2", "dragonfly:g=5,a=4,p=1,h=1,intra=2d:2x2", "dragonfly:g=9,a=4,p=2,h=2"}) {
    const auto t = make_topology(spec);
    const auto& df = dynamic_cast<const Dragonfly&>(*t);
    for (NodeId s = 0; s < t->nodes().size(); s += 3) {
      for (NodeId d = 0; d < t->nodes().size(); ++d) {
        const auto routes = check_route_choices(*t, s, d);
        const bool other_group = df.group_of(t->nodes()[s].router) != df.group_of(t->nodes()[d].router);
        for (const auto& [route, count] : routes) {
          const auto global = std::count_if(
              route.begin(), route.end(), [&](LinkId id) { return t->links()[id].direction.front() == 'g'; });
          EXPECT_EQ(global, other_group ? 1 : 0) << spec;
        }
      }
    }
  }
  // g=5, a=4, h=2: 8 global ports per group for 4 other groups, two copies per pair of groups.
  const auto two_copies = make_topology("dragonfly:g=5,a=4,p=1,h=2");
  EXPECT_EQ(check_route_choices(*two_copies, 0, 4).size(), 2U);
  // 72 nodes, a*h = g-1: one global link per pair of groups, one minimal route.
  const auto one_copy = make_topology("dragonfly:g=9,a=4,p=2,h=2");
  EXPECT_EQ(one_copy->route_choices(0, 71), 1U);
}

TEST(Spec, ParsesAndRoundTrips) {
  for (const auto* spec : {"torus:2x2x8", "torus:4x4x4,tie=plus,numbering=linear,npr=1,cap=4GB/s:2GB/s:4GB/s",
                           "dragonfly:g=5,a=4,p=1,h=1,intra=2d:2x2", "fattree:4x4x2,taper=2,cap=12.5e9"}) {
    const auto t = make_topology(spec);
    const auto again = make_topology(t->spec());
    EXPECT_EQ(again->spec(), t->spec());
    EXPECT_EQ(again->nodes().size(), t->nodes().size());
    EXPECT_EQ(again->links().size(), t->links().size());
  }
  const auto t = make_topology("torus:2x2x8,cap=4GB/s:2GB/s:4GB/s");
  EXPECT_EQ(t->links()[*t->link_out(0, "Y+")].capacity_bytes_per_s, 2e9);
}

// The InputError make_topology throws for `spec`, or "no error".
std::string topology_error(const std::string& spec) {
  try {
    (void)make_topology(spec);
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return "no error";
}

TEST(Spec, ErrorsNameThePartAndTheForm) {
  EXPECT_NE(topology_error("mesh:2x2").find("unknown topology kind 'mesh'"), std::string::npos);
  EXPECT_NE(topology_error("torus").find("no ':'"), std::string::npos);
  EXPECT_NE(topology_error("torus:2x2").find("three sizes"), std::string::npos);
  EXPECT_NE(topology_error("torus:2xAx8").find("'A'"), std::string::npos);
  EXPECT_NE(topology_error("torus:2x2x8,tie=up").find("tie-break"), std::string::npos);
  EXPECT_NE(topology_error("torus:2x2x8,foo=1").find("unknown key 'foo'"), std::string::npos);
  EXPECT_NE(topology_error("torus:2x2x8,cap=fast").find("capacity"), std::string::npos);
  EXPECT_NE(topology_error("dragonfly:g=40,a=2,p=1,h=1").find("a*h >= g-1"), std::string::npos);
  EXPECT_NE(topology_error("fattree:").find("needs a shape"), std::string::npos);
  EXPECT_NE(topology_error("fattree:4x4,taper=0.5").find("taper"), std::string::npos);
  // A key given twice, or two keys that set the same thing, used to take the last or one silently.
  EXPECT_NE(topology_error("torus:2x2x8,npr=2,npr=3").find("key 'npr' is given twice"), std::string::npos);
  EXPECT_NE(topology_error("dragonfly:g=9,a=4,p=2,h=2,g=5").find("key 'g' is given twice"),
            std::string::npos);
  EXPECT_NE(topology_error("fattree:16x8,taper=2,up=4").find("keys 'taper=2' and 'up=4' conflict"),
            std::string::npos);
  // Every model refuses more than kMaxTopologyNodes nodes before building anything (a 4096^3 torus
  // used to start building 68 G routers).
  EXPECT_NE(topology_error("torus:4096x4096x4096").find("torus too large"), std::string::npos);
  EXPECT_NE(topology_error("torus:4x4x4,npr=2000000000").find("torus too large"), std::string::npos);
  EXPECT_NE(topology_error("torus:128x128x129,npr=2").find("at most 4194304"), std::string::npos);
  EXPECT_NE(topology_error("dragonfly:g=4097,a=1024,p=1,h=4").find("dragonfly too large"), std::string::npos);
  EXPECT_NE(topology_error("fattree:4096x4096").find("fat tree too large"), std::string::npos);
}

// Found by hand with UBSan: products of dragonfly counts overflowed int and long long before the
// size checks (a*h = -4 was printed for h=2147483647), and large but in-range counts built until
// memory ran out (h=10^7 on 12 routers: out of memory after 11 s). An infinite fat tree taper was
// accepted and written to JSON as null.
TEST(Spec, ExtremeCountsAreRefusedBeforeAnyOverflowOrBuild) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"dragonfly:g=2147483647,a=2147483647,p=2147483647,h=1", "must be 1..4096"},
      {"dragonfly:g=9,a=4,p=2,h=2147483647", "must be 1..4096 (got a=4 p=2 h=2147483647)"},
      {"dragonfly:g=3,a=4,p=1,h=10000000", "must be 1..4096"},
      {"dragonfly:g=2147483647,a=2,p=1,h=1", "g*a*p = 4294967294 nodes, at most 4194304"},
      {"dragonfly:g=1024,a=4096,p=1,h=1", "local plus g*a*h global links = 17179869184, at most 33554432"},
      {"dragonfly:g=9,a=4,p=2,h=2,intra=2d:2147483647x2", "R*C must equal a = 4"},
      {"dragonfly:g=9,a=4,p=2,h=2,intra=2d:2x-2", "R*C must equal a = 4"},
      {"fattree:1x4096x2,up=4096x1", "fat tree too large: 67125248 network links, at most 33554432"},
      {"fattree:4x4,taper=inf", "taper must be a finite number >= 1 (got inf)"},
      {"fattree:4x4,taper=nan", "taper must be a finite number >= 1 (got nan)"},
  };
  for (const auto& [spec, expected] : cases) {
    EXPECT_NE(topology_error(spec).find(expected), std::string::npos) << spec << ": " << topology_error(spec);
  }
  // At the bounds, the models still build: a and h of 4096 are allowed where the totals fit.
  EXPECT_EQ(make_topology("dragonfly:g=2,a=1,p=4096,h=4096")->nodes().size(), 8192U);
}

TEST(Topology, UnknownNodeErrorSaysHowToFix) {
  const auto t = make_topology("torus:2x2x8");
  try {
    (void)t->node_id("nid99999");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nid00000"), std::string::npos);
  }
  EXPECT_EQ(t->node_id("12"), t->node_id("nid00012"));
}

// `topo info` answers a torus from formulas: they must give what the built graph gives.
TEST(TopologyInfo, TorusFormulasMatchTheBuiltGraph) {
  for (const char* spec : {"torus:2x2x8", "torus:4x4x4,npr=2,cap=1GB/s:2GB/s:3GB/s", "torus:1x1x1",
                           "torus:1x3x2,npr=3,numbering=linear,tie=minus", "torus:5x1x1,terminal=100Gb/s"}) {
    const auto topology = make_topology(spec);
    TopologySummary built = topology->summary();
    built.first_node = topology->nodes().front().name;
    built.last_node = topology->nodes().back().name;
    EXPECT_EQ(to_json(topology_info(spec)), to_json(built)) << spec;
  }
}

TEST(TopologyInfo, HugeTorusAnswersWithoutBuildingTheGraph) {
  // 4,096,000 nodes: the graph would take gigabytes; the formulas answer at once.
  const TopologySummary info = topology_info("torus:160x160x80");  // two nodes per router
  EXPECT_EQ(info.nodes, 4096000U);
  EXPECT_EQ(info.routers, 2048000U);
  EXPECT_EQ(info.network_links, 6U * 2048000U);
  EXPECT_EQ(info.terminal_links, 2U * 4096000U);
  EXPECT_EQ(info.last_node, "nid4095999");
  EXPECT_THROW((void)topology_info("torus:4096x4096x4096"), InputError);
  EXPECT_THROW((void)topology_info("torus:0x2x2"), InputError);
}

// estimate_topology_size() answers from formulas what make_topology() would build, so that map and
// topo refuse a topology beyond --max-memory before allocating it (issue 36).
TEST(TopologySize, CountsMatchTheBuiltTopology) {
  for (const char* spec : {"torus:2x2x8", "torus:3x1x5,npr=3", "dragonfly:g=9,a=4,p=2,h=2",
                           "dragonfly:g=5,a=4,p=1,h=1,intra=2d:2x2", "fattree:16x8", "fattree:4x4x4,taper=2",
                           "fattree:4x4x2,up=2x3"}) {
    const auto built = make_topology(spec);
    const TopologySize size = estimate_topology_size(spec);
    EXPECT_EQ(size.nodes, built->nodes().size()) << spec;
    EXPECT_EQ(size.routers, built->routers().size()) << spec;
    // Dragonfly: an upper bound (global ports beyond g-1 partners stay unused).
    EXPECT_GE(size.links, built->links().size()) << spec;
    if (built->kind() != "dragonfly") {
      EXPECT_EQ(size.links, built->links().size()) << spec;
    }
    EXPECT_GT(size.bytes, size.links * 100) << spec;
  }
}

// The estimate is what building allocates (issue 36): dragonflies were about 30% low at the peak
// (their tables grew by doubling), 2-D ones more than twice too high (every router was counted with
// a-1 local links). Counted with malloc's statistics, which sanitizers do not keep.
TEST(TopologySize, BytesAreWhatBuildingAllocates) {
  for (const char* spec :
       {"dragonfly:g=33,a=16,p=8,h=2", "dragonfly:g=65,a=32,p=4,h=4",
        "dragonfly:g=49,a=48,p=4,h=1,intra=2d:6x8", "dragonfly:g=17,a=16,p=16,h=2,intra=2d:4x4",
        "fattree:32x32x8", "fattree:16x16x16,taper=2", "torus:16x16x16", "torus:8x8x32,npr=4"}) {
    // Small blocks and the large ones malloc maps on their own.
    const auto in_use = [] {
      const struct mallinfo2 info = mallinfo2();
      return info.uordblks + info.hblkhd;
    };
    const std::size_t before = in_use();
    const auto built = make_topology(spec);
    const std::size_t after = in_use();
    if (after <= before) {
      GTEST_SKIP() << "malloc keeps no statistics here (a sanitizer's allocator)";
    }
    const auto estimate = static_cast<double>(estimate_topology_size(spec).bytes);
    const auto allocated = static_cast<double>(after - before);
    EXPECT_NEAR(estimate / allocated, 1.0, 0.1)
        << spec << ": " << estimate << " estimated, " << allocated << " allocated";
  }
}

TEST(TopologySize, LargeTopologiesAreSizedWithoutBuildingThem) {
  // 2^21 routers x 2 nodes: about 3 GB once built, answered at once.
  const TopologySize torus = estimate_topology_size("torus:128x128x128");
  EXPECT_EQ(torus.nodes, 4194304U);
  EXPECT_GT(torus.bytes, std::uint64_t{5} << 29U);
  EXPECT_GT(estimate_topology_size("dragonfly:g=1024,a=64,p=64,h=16").bytes, std::uint64_t{1} << 30U);
  // A parameter out of range: zero, and make_topology() names the problem.
  EXPECT_EQ(estimate_topology_size("fattree:5000x2").bytes, 0U);
  EXPECT_THROW((void)estimate_topology_size("torus:0x2x2"), InputError);
  EXPECT_THROW((void)estimate_topology_size("ring:8"), InputError);
}

}  // namespace
// map builds only the part of a torus the allocation's routes use (issue 36): two nodes of
// torus:128x128x128 took 3.9 GB and 16 s. The part's routes, route choices, names and coordinates
// are the whole torus's.
TEST(TorusPart, RoutesAreTheWholeTorusRoutes) {
  const auto link_names = [](const Topology& t, const std::vector<LinkId>& route) {
    std::vector<std::string> out;
    out.reserve(route.size());
    for (const LinkId link : route) {
      out.push_back(t.link_name(link));
    }
    return out;
  };
  for (const auto& [spec, names] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"torus:2x2x8", {"nid00012", "nid00038", "nid00016", "50"}},
           {"torus:6x5x4,npr=3,numbering=linear,tie=minus", {"nid00007", "100", "nid00333", "nid00200", "7"}},
           {"torus:8x1x6,tie=plus", {"nid00000", "nid00047", "nid00090"}},
           {"torus:4x4x4,tie=dest-even-plus", {"nid00001", "nid00002", "nid00127"}},
           {"torus:16x16x16", {"nid00010", "nid05000"}}}) {
    const auto whole = make_topology(spec);
    const auto part = make_topology_part(spec, names);
    EXPECT_EQ(part->spec(), whole->spec());
    EXPECT_LE(part->routers().size(), whole->routers().size()) << spec;
    if (whole->nodes().size() > 1000) {
      EXPECT_LT(part->routers().size() * 10, whole->routers().size()) << spec;
    }
    for (const std::string& a : names) {
      const NodeId pa = part->node_id(a);
      const NodeId wa = whole->node_id(a);
      EXPECT_EQ(part->nodes()[pa].name, whole->nodes()[wa].name) << spec << " " << a;
      EXPECT_EQ(part->routers()[part->nodes()[pa].router].coords,
                whole->routers()[whole->nodes()[wa].router].coords);
      for (const std::string& b : names) {
        const NodeId pb = part->node_id(b);
        const NodeId wb = whole->node_id(b);
        EXPECT_EQ(link_names(*part, part->route(pa, pb)), link_names(*whole, whole->route(wa, wb)))
            << spec << " " << a << " -> " << b;
        ASSERT_EQ(part->route_choices(pa, pb), whole->route_choices(wa, wb));
        std::vector<LinkId> pr;
        std::vector<LinkId> wr;
        for (std::uint64_t choice = 0; choice < part->route_choices(pa, pb); ++choice) {
          part->route_choice_into(pa, pb, choice, pr);
          whole->route_choice_into(wa, wb, choice, wr);
          EXPECT_EQ(link_names(*part, pr), link_names(*whole, wr)) << spec << " choice " << choice;
        }
      }
    }
    const TopologySize size = estimate_topology_part_size(spec, names);
    EXPECT_EQ(size.nodes, part->nodes().size()) << spec;
    EXPECT_EQ(size.routers, part->routers().size()) << spec;
    EXPECT_EQ(size.links, part->links().size()) << spec;
  }
}

TEST(TorusPart, LinksKeepTheWholeTorusIdsAndOrder) {
  // A model's report names a part's links by the whole torus's ids (network and terminal links),
  // and ties between links sort alike when part ids grow with whole ids.
  for (const auto& [spec, names] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"torus:2x2x8", {"nid00012", "nid00038", "50"}},
           {"torus:6x1x4,npr=3,numbering=linear", {"nid00007", "nid00070", "5"}},
           {"torus:8x8x8", {"nid00003", "nid00500", "nid01000", "77"}}}) {
    const auto whole = make_topology(spec);
    const auto part = make_topology_part(spec, names);
    EXPECT_EQ(whole->whole_link_count(), whole->links().size()) << spec;
    EXPECT_EQ(part->whole_link_count(), whole->links().size()) << spec;
    std::uint64_t previous = 0;
    for (const Link& link : part->links()) {
      const std::uint64_t id = part->whole_link_id(link.id);
      ASSERT_LT(id, whole->links().size()) << spec;
      EXPECT_EQ(whole->link_name(static_cast<LinkId>(id)), part->link_name(link.id)) << spec;
      EXPECT_EQ(whole->links()[id].kind, link.kind) << spec;
      EXPECT_TRUE(link.id == 0 || id > previous) << spec << " " << part->link_name(link.id);
      previous = id;
      EXPECT_EQ(whole->whole_link_id(static_cast<LinkId>(id)), id);
    }
  }
}

TEST(TorusPart, SizedByTheNodesNotTheTorus) {
  const std::vector<std::string> two{"nid00000", "nid00001"};
  const TopologySize size = estimate_topology_part_size("torus:128x128x128", two);
  EXPECT_EQ(size.nodes, 2U);
  EXPECT_LE(size.routers, 3U * 128U);
  EXPECT_LT(size.bytes, std::uint64_t{1} << 20U);
  const auto part = make_topology_part("torus:128x128x128", two);
  EXPECT_EQ(part->nodes().size(), 2U);
  EXPECT_EQ(part->hop_count(0, 1), 0U);  // two nodes of one router
  // The last node, by name and by index; a node once under each.
  const std::vector<std::string> far{"nid00000", "4194303", "nid4194303"};
  const auto far_part = make_topology_part("torus:128x128x128", far);
  EXPECT_EQ(far_part->nodes().size(), 2U);
  EXPECT_EQ(far_part->find_node("4194303"), far_part->find_node("nid4194303"));
  EXPECT_FALSE(far_part->find_node("1").has_value());
  EXPECT_EQ(far_part->hop_count(0, 1), 1U);  // the snake ends at (127,0,0)
  // Other kinds, and a torus with a coordinates file: the whole topology.
  EXPECT_EQ(make_topology_part("dragonfly:g=9,a=4,p=2,h=2", two)->nodes().size(), 72U);
}

TEST(TorusPart, UnknownNodesAreNamedAsTheWholeTorusWould) {
  try {
    (void)make_topology_part("torus:2x2x8", std::vector<std::string>{"nid00001", "nid00064", "nid1", "64"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("3 nodes are not in topology 'torus:2x2x8,"), std::string::npos)
        << e.what();
    EXPECT_NE(
        std::string(e.what()).find("nid00064, nid1, 64 (its nodes are nid00000..nid00063, or indices 0..63)"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace gridlock::topo
