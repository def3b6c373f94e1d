#pragma once
/// @file
/// The common interface of every network topology model: nodes, routers, directed links with
/// capacities, and deterministic routes between nodes.
///
/// Notation shared by all models:
/// - A *node* is a compute host (an MPI process runs on a node); it attaches to one *router*.
/// - A *network link* is a directed router-to-router link. Its `direction` is the port it leaves
///   from on the source router (`X+`, `g1`, `up0`, ...); its `in_port` is the port it arrives on at
///   the destination router. Hardware that counts traffic on the receiving side (the paper's Gemini
///   `USED_BW`) reports it under `in_port`.
/// - Every node also has one *injection* link (node to router) and one *ejection* link (router to
///   node). They are not hops: `route()` returns network links only, so the hop count of two nodes
///   on the same router is 0, as in the paper's HOPS metric.
///
/// LIMITATIONS (all models): routes are static and deterministic (no adaptive routing); a link has
/// one capacity per direction; routers have no internal contention model.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gridlock::topo {

/// Most nodes (and most routers or switches) a topology model may have: 2^22, the scale the
/// oracle and the mapping tools are built for (a few hundred MB of routes tables at most).
inline constexpr long long kMaxTopologyNodes = 1LL << 22;

/// Most network links a topology model may have: 2^25, about what the largest torus allowed (2^22
/// routers, six links each) has; such a model takes 4-7 GB and 10-20 s to build.
inline constexpr long long kMaxTopologyLinks = 1LL << 25;

/// Most ports of one kind per router or switch: a fat tree's children and up-links, a dragonfly's
/// routers per group, nodes per router and global links per router.
inline constexpr int kMaxRadix = 4096;

/// Index of a node (0-based, dense).
using NodeId = std::uint32_t;
/// Index of a router or switch (0-based, dense).
using RouterId = std::uint32_t;
/// Index of a directed link (0-based, dense): network links first, then terminal links.
using LinkId = std::uint32_t;
/// "No link here": the value of an unconnected port in a topology's link tables.
inline constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();

/// What a link connects.
enum class LinkKind : std::uint8_t {
  kNetwork,    ///< Router to router: counted as a hop.
  kInjection,  ///< Node to its router.
  kEjection,   ///< Router to its node.
};

/// A compute node attached to a router.
struct Node {
  NodeId id = 0;        ///< Dense index.
  std::string name;     ///< Host name, e.g. `nid00012`.
  RouterId router = 0;  ///< The router the node attaches to.
};

/// A router or switch.
struct Router {
  RouterId id = 0;          ///< Dense index.
  std::string name;         ///< Model-specific label, e.g. `(0,0,6)` or `g3r1`.
  std::vector<int> coords;  ///< Model-specific coordinates (torus: x,y,z; dragonfly: group,router).
};

/// A directed link.
struct Link {
  LinkId id = 0;                       ///< Dense index.
  LinkKind kind = LinkKind::kNetwork;  ///< Network or terminal link.
  RouterId src_router = 0;             ///< Router the link leaves (terminal links: the node's router).
  RouterId dst_router = 0;             ///< Router the link enters (terminal links: the node's router).
  NodeId node = 0;                     ///< For terminal links: the node; unused otherwise.
  std::string direction;               ///< Port name on the sending side, e.g. `X+`.
  std::string in_port;                 ///< Port name on the receiving side, e.g. `X-`.
  double capacity_bytes_per_s = 0;     ///< Peak data rate in this direction.
};

/// One model-specific parameter of a topology (gridlock/topo/topology_json.hpp writes it as JSON).
struct Parameter {
  /// An integer, a number, a string, a list of integers (e.g. torus dimensions) or named numbers
  /// (e.g. a capacity per dimension).
  using Value = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>,
                             std::vector<std::pair<std::string, double>>>;
  std::string name;  ///< Key, e.g. `dims`.
  Value value;       ///< Value.
};

/// A topology's parameters, in the order they are reported.
using Parameters = std::vector<Parameter>;

/// What a topology is, in numbers (gridlock/topo/topology_json.hpp writes it as JSON).
struct TopologySummary {
  std::string kind;                             ///< Model name.
  std::string spec;                             ///< Canonical spec string.
  Parameters parameters;                        ///< Model-specific parameters.
  std::uint64_t nodes = 0;                      ///< Number of nodes.
  std::uint64_t routers = 0;                    ///< Number of routers or switches.
  std::uint64_t network_links = 0;              ///< Router-to-router links.
  std::uint64_t terminal_links = 0;             ///< Injection and ejection links.
  double min_network_capacity_bytes_per_s = 0;  ///< Smallest network link capacity (0: none).
  double max_network_capacity_bytes_per_s = 0;  ///< Largest network link capacity (0: none).
  std::string first_node;                       ///< Name of node 0 (topology_info() only).
  std::string last_node;                        ///< Name of the last node (topology_info() only).
};

/// A topology: a fixed set of nodes, routers and links plus a deterministic routing function.
/// Instances are immutable after construction and safe to share between threads.
class Topology {
 public:
  /// Virtual destructor: models derive from this class.
  virtual ~Topology() = default;
  Topology(const Topology&) = delete;             ///< Not copyable (links are referenced by id).
  Topology& operator=(const Topology&) = delete;  ///< Not copyable.
  Topology(Topology&&) = delete;                  ///< Not movable.
  Topology& operator=(Topology&&) = delete;       ///< Not movable.

  /// Model name: `torus`, `dragonfly` or `fattree`.
  [[nodiscard]] virtual std::string_view kind() const noexcept = 0;
  /// Canonical spec string with every parameter spelled out; parsing it gives the same topology.
  [[nodiscard]] virtual std::string spec() const = 0;
  /// Model-specific parameters (dimensions, tie-break rule, capacities, ...).
  [[nodiscard]] virtual Parameters parameters() const = 0;

  /// All nodes, indexed by NodeId.
  [[nodiscard]] const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// All routers, indexed by RouterId.
  [[nodiscard]] const std::vector<Router>& routers() const noexcept { return routers_; }
  /// All links, indexed by LinkId.
  [[nodiscard]] const std::vector<Link>& links() const noexcept { return links_; }
  /// Number of router-to-router links (their ids are 0 .. network_link_count()-1).
  [[nodiscard]] std::size_t network_link_count() const noexcept { return network_links_; }

  /// The node with this name, or with this decimal index when no node has that name.
  [[nodiscard]] std::optional<NodeId> find_node(std::string_view name) const;
  /// Like find_node() but throws InputError naming the node and giving valid examples.
  [[nodiscard]] NodeId node_id(std::string_view name) const;
  /// The router with this name.
  [[nodiscard]] std::optional<RouterId> find_router(std::string_view name) const;
  /// The network link leaving `router` through port `direction`.
  [[nodiscard]] std::optional<LinkId> link_out(RouterId router, std::string_view direction) const;
  /// The network link entering `router` through port `in_port`.
  [[nodiscard]] std::optional<LinkId> link_in(RouterId router, std::string_view in_port) const;
  /// The node-to-router link of `node`.
  [[nodiscard]] LinkId injection_link(NodeId node) const { return injection_.at(node); }
  /// The router-to-node link of `node`.
  [[nodiscard]] LinkId ejection_link(NodeId node) const { return ejection_.at(node); }

  /// Replaces `out` with the ordered network links a message from `src` to `dst` crosses: the
  /// node-level route, which may depend on the nodes and not only on their routers (fat tree:
  /// D-mod-k by destination node). Throws std::out_of_range for invalid ids.
  void route_into(NodeId src, NodeId dst, std::vector<LinkId>& out) const;
  /// The ordered network links from `src` to `dst` (empty when both share a router).
  [[nodiscard]] std::vector<LinkId> route(NodeId src, NodeId dst) const;
  /// Number of network links on the route (the paper's HOPS).
  [[nodiscard]] std::size_t hop_count(NodeId src, NodeId dst) const;
  /// Router-level route, for router pairs: the network links from router `src` to router `dst`.
  /// The same as route_into() for nodes on these routers on the torus and the dragonfly; on the
  /// fat tree it chooses the up ports by destination leaf, not by destination node.
  void route_routers_into(RouterId src, RouterId dst, std::vector<LinkId>& out) const;

  /// How many choice indices route_choice_into() takes between two nodes: 1 when the topology
  /// offers one minimal route, more on multipath networks (fat tree: the up port at each level;
  /// dragonfly: the global link copy and, in 2-D groups, row or column first; torus: the order of
  /// the dimensions and the way round a half-way ring). An index is a mixed-radix number with one
  /// digit per decision, so a uniform index decides each uniformly; a decision that makes no
  /// difference for the pair (a torus dimension without a move, say) leaves the route as it is.
  /// Throws std::out_of_range for invalid ids.
  [[nodiscard]] std::uint64_t route_choices(NodeId src, NodeId dst) const;
  /// Replaces `out` with the route of choice index `choice` (below route_choices(src, dst)) from
  /// `src` to `dst`: one of the topology's minimal routes (the per-message spread of
  /// docs/network-models.md). Throws std::out_of_range for invalid ids or an index too large.
  void route_choice_into(NodeId src, NodeId dst, std::uint64_t choice, std::vector<LinkId>& out) const;

  /// A readable link label: `(0,0,6) X+ -> (1,0,6)`, or `nid00012 -> (0,0,6)` for terminals.
  [[nodiscard]] std::string link_name(LinkId link) const;
  /// The route in the paper's notation: `(0,0,6) X+ (1,0,6) Y+ (1,1,6) Z- (1,1,5)`.
  [[nodiscard]] std::string route_text(NodeId src, NodeId dst) const;
  /// Summary: kind, spec, parameters, counts of nodes, routers and links, link capacities
  /// (first_node and last_node are left empty).
  [[nodiscard]] TopologySummary summary() const;

  /// Links (network and terminal) of the whole topology this one is a part of
  /// (make_topology_part()); links().size() for a whole topology.
  [[nodiscard]] virtual std::uint64_t whole_link_count() const;
  /// The id `link` has in the whole topology this one is a part of; `link` for a whole topology.
  /// A part keeps the whole topology's order of links (ids grow together). Throws
  /// std::out_of_range for an invalid id.
  [[nodiscard]] virtual std::uint64_t whole_link_id(LinkId link) const;

 protected:
  /// Derived constructors add routers, nodes and links, then call finish().
  Topology() = default;
  /// Sizes the tables for `nodes` nodes, `routers` routers and `network_links` router-to-router
  /// links before they are added (counts from the model's formulas), so that building does not
  /// hold a vector and its doubled copy at once: the peak is the built size
  /// (estimate_topology_size()).
  void reserve(std::size_t nodes, std::size_t routers, std::size_t network_links);
  /// Adds a router and returns its id.
  RouterId add_router(std::string name, std::vector<int> coords);
  /// Adds a node attached to `router` and returns its id.
  NodeId add_node(std::string name, RouterId router);
  /// Adds a directed network link and returns its id.
  LinkId add_link(RouterId src, RouterId dst, std::string direction, std::string in_port,
                  double capacity_bytes_per_s);
  /// Adds the terminal links (with `terminal_capacity_bytes_per_s`) and builds the name indexes.
  /// Throws InputError on duplicate node names.
  void finish(double terminal_capacity_bytes_per_s);
  /// The node with decimal index `index` (find_node()): node `index` unless a model numbers its
  /// nodes otherwise (a torus part: the index in the whole torus).
  [[nodiscard]] virtual std::optional<NodeId> node_of_index(std::uint64_t index) const;
  /// Appends the network links from router `src` to a different router `dst`.
  virtual void append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const = 0;
  /// Appends the network links from node `src` to node `dst` on a different router (route_into());
  /// the router route between their routers unless overridden.
  virtual void append_node_route(NodeId src, NodeId dst, std::vector<LinkId>& out) const;
  /// Choice indices between two different routers (see route_choices()); 1 unless overridden.
  [[nodiscard]] virtual std::uint64_t router_route_choices(RouterId src, RouterId dst) const;
  /// Appends the route of choice index `choice` (already checked to be below
  /// router_route_choices()) between two different routers; the deterministic route unless
  /// overridden.
  virtual void append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                          std::vector<LinkId>& out) const;

 private:
  std::vector<Node> nodes_;
  std::vector<Router> routers_;
  std::vector<Link> links_;
  std::size_t network_links_ = 0;
  std::vector<LinkId> injection_;
  std::vector<LinkId> ejection_;
  std::vector<std::vector<LinkId>> out_links_;                  // per router
  std::vector<std::vector<LinkId>> in_links_;                   // per router
  std::vector<std::pair<std::string, NodeId>> node_index_;      // sorted by name
  std::vector<std::pair<std::string, RouterId>> router_index_;  // sorted by name
};

}  // namespace gridlock::topo
