#pragma once
/// @file
/// 3-D torus with dimension-order routing (Cray Gemini style).
///
/// Notation: routers sit at coordinates (x,y,z), 0 <= x < X, 0 <= y < Y, 0 <= z < Z, and are named
/// `(x,y,z)`. Each router has up to six ports `X+ X- Y+ Y- Z+ Z-`; the `X+` link of (x,y,z) leads to
/// ((x+1) mod X, y, z) and arrives on that router's `X-` port. Nodes are named `nid%05d` and attach
/// `nodes_per_router` to a router (two per Gemini by default).
///
/// Routing: X first, then Y, then Z; in each dimension the shorter way round. When both ways are
/// equally long (an even size, distance size/2) the tie-break rule decides. The default rule,
/// `dest-odd-plus` (+ when the destination coordinate is odd), reproduces the paper's worked
/// example: nid00012 (0,0,6) -> nid00038 (1,1,3) is X+ Y+ Z- Z- Z-. The paper's text says
/// "+ if the destination coordinate is even" (`dest-even-plus`), which contradicts its own example;
/// that rule, `plus` and `minus` are available as options.
///
/// Route choices (Topology::route_choice_into(), the per-message spread): any order of the three
/// dimensions, and either way round a ring whose distance is exactly half its size; each is
/// minimal.
///
/// Node numbering: `snake` (default) numbers nodes along Z, reversing direction on every other
/// Z line, Y lines in reverse order on odd X planes: on a 2x2x8 torus this gives the paper's
/// machine (nid00012 at (0,0,6), nid00016 at (0,1,7), nid00038 at (1,1,3), nid00050 at (1,0,6)).
/// `linear` numbers routers x-major, then y, then z. A coordinates file replaces both.
///
/// LIMITATIONS: a dimension of size 2 has two distinct links each way between the same routers
/// (the `+` and the wrap-around `-` port), as cabled on Gemini; a size-1 dimension has no links.
/// The model has no per-link irregularities (one capacity per dimension), no service nodes and no
/// adaptive routing; the default capacities are model parameters (Gemini-like, Y half of X and Z),
/// not measurements. At most kMaxTopologyNodes nodes (routers times nodes per router).
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gridlock/topo/topology.hpp"

namespace gridlock::topo {

/// How dimension-order routing breaks a tie between the + and - ways round.
enum class TieBreak : std::uint8_t {
  kPlusIfDestOdd,   ///< + when the destination coordinate is odd (the paper's worked example).
  kPlusIfDestEven,  ///< + when the destination coordinate is even (the paper's text).
  kPlus,            ///< Always +.
  kMinus,           ///< Always -.
};

/// How node names map to routers when no coordinates file is given.
enum class NodeNumbering : std::uint8_t {
  kSnake,   ///< Boustrophedon along Z, then Y, then X (Cray XE cabinet order; the paper's machine).
  kLinear,  ///< Router index x*Y*Z + y*Z + z; nodes of a router are consecutive.
};

/// Parameters of a Torus3D.
struct TorusOptions {
  std::array<int, 3> dims{2, 2, 8};  ///< Size in X, Y, Z (each >= 1).
  int nodes_per_router = 2;          ///< Nodes per router for regular numbering (>= 1).
  /// Link capacity per dimension, bytes/s (Gemini-like: Y links are slower).
  std::array<double, 3> capacity_bytes_per_s{9.375e9, 4.6875e9, 9.375e9};
  double terminal_capacity_bytes_per_s = 9.375e9;   ///< Node-to-router link capacity.
  TieBreak tie_break = TieBreak::kPlusIfDestOdd;    ///< Tie-break rule for size/2 distances.
  NodeNumbering numbering = NodeNumbering::kSnake;  ///< Regular numbering scheme.
  /// Optional file of `name x y z` lines (comma or space separated, `#` comments) giving the
  /// router coordinates of every node, in node-id order; replaces the regular numbering.
  std::filesystem::path coords_file;
};

/// 3-D torus with dimension-order routing.
class Torus3D final : public Topology {
 public:
  /// Builds the torus. Throws InputError on bad dimensions or a bad coordinates file (file:line).
  explicit Torus3D(TorusOptions options);

  /// Builds only the part of the torus that routes between `nodes` take (node names, or decimal
  /// indices as find_node() takes them): those nodes, in index order, and the routers and links of
  /// every ring through two of their coordinates (a minimal route, route choices included, runs
  /// along such rings), with the whole torus's names, coordinates, ports, capacities and routes. A
  /// decimal index is a node's index in the whole torus. Memory and time grow with those rings, not
  /// with the torus: two nodes of torus:128x128x128 take a few hundred routers instead of 2 million.
  /// spec() is the whole torus's, summary() counts the part, and router_at() throws
  /// std::out_of_range for a router outside it. Throws InputError as the constructor does, for a
  /// coordinates file (no formula places its nodes), and for a name that is no node of the torus.
  Torus3D(TorusOptions options, std::span<const std::string> nodes);

  /// The nodes, routers and network links of Torus3D(options, nodes), counted from formulas
  /// without building it. Throws InputError as that constructor does.
  [[nodiscard]] static std::array<std::uint64_t, 3> part_counts(const TorusOptions& options,
                                                                std::span<const std::string> nodes);

  /// The index in the torus `options` describe (regular numbering) of the node `name` names, as
  /// find_node() resolves it (a node name, else a decimal index); nothing for no node.
  [[nodiscard]] static std::optional<std::uint64_t> node_index_of(const TorusOptions& options,
                                                                  std::string_view name);

  /// `torus`.
  [[nodiscard]] std::string_view kind() const noexcept override { return "torus"; }
  /// Canonical spec: `torus:XxYxZ,npr=..,tie=..,numbering=..,cap=X:Y:Z,terminal=..[,coords=..]`.
  [[nodiscard]] std::string spec() const override;
  /// Dimensions, nodes per router, tie-break rule, numbering, capacities.
  [[nodiscard]] Parameters parameters() const override;

  /// The options the torus was built with.
  [[nodiscard]] const TorusOptions& options() const noexcept { return options_; }
  /// The router at (x,y,z); coordinates must be in range (and, in a part, on its rings).
  [[nodiscard]] RouterId router_at(int x, int y, int z) const;
  /// Coordinates of a router.
  [[nodiscard]] std::array<int, 3> coords_of(RouterId router) const;
  /// The summary() of the torus `options` describe, from formulas instead of the graph (a 4M-node
  /// torus answers at once), with `first_node` and `last_node` names added. Throws InputError as
  /// the constructor does; options with a coordinates file have no formula (build the torus).
  [[nodiscard]] static TopologySummary summary_of(const TorusOptions& options);
  /// In a part, the links of the whole torus.
  [[nodiscard]] std::uint64_t whole_link_count() const override;
  /// In a part, the id of `link` in the whole torus (formulas of its constructor's link order).
  [[nodiscard]] std::uint64_t whole_link_id(LinkId link) const override;
  /// Closed form of the hop count between two routers: sum over dimensions of min(d, size-d).
  [[nodiscard]] static int closed_form_hops(const std::array<int, 3>& dims, const std::array<int, 3>& a,
                                            const std::array<int, 3>& b) noexcept;

 protected:
  /// Dimension-order routing X, Y, Z, the shorter way round, ties by the tie-break rule.
  void append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const override;
  /// Six dimension orders times one tie bit per dimension (48 indices).
  [[nodiscard]] std::uint64_t router_route_choices(RouterId src, RouterId dst) const override;
  /// The dimension order and tie directions of `choice`.
  void append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                  std::vector<LinkId>& out) const override;
  /// In a part, the node of that index in the whole torus.
  [[nodiscard]] std::optional<NodeId> node_of_index(std::uint64_t index) const override;

 private:
  // The shorter way round in each dimension of `order`; a half-way tie by the tie-break rule, or
  // by bit d of `*tie_bits` when given.
  void append_dimension_route(RouterId src, RouterId dst, const std::array<int, 3>& order,
                              const std::uint64_t* tie_bits, std::vector<LinkId>& out) const;
  // The + and - links of every router in each dimension of size >= 2 for which
  // `keep(coordinates, dimension)` holds (the whole torus: all; a part: its rings).
  void add_dimension_links(const std::array<int, 3>& dims,
                           const std::function<bool(const std::array<int, 3>&, int)>& keep);

  TorusOptions options_;
  std::vector<LinkId> port_link_;  // router*6 + port (X+,X-,Y+,Y-,Z+,Z-) -> link or kNone
  // A part: the whole torus's indices of its routers and nodes, sorted (position = id); empty for
  // the whole torus.
  std::vector<std::uint64_t> part_routers_;
  std::vector<std::uint64_t> part_nodes_;
};

/// Name of a tie-break rule as used in spec strings (`dest-odd-plus`, ...).
[[nodiscard]] std::string_view to_string(TieBreak rule) noexcept;

}  // namespace gridlock::topo
