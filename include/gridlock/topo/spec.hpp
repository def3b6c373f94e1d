#pragma once
/// @file
/// Topology spec strings: `torus:2x2x8`, `dragonfly:g=9,a=4,p=2,h=2`, `fattree:16x8,taper=2`.
///
/// Form: `<kind>:<shape>[,<key>=<value>]...`. Accepted keys:
/// - torus: shape `XxYxZ`; `npr` (nodes per router), `tie` (`dest-odd-plus`, `dest-even-plus`,
///   `plus`, `minus`), `numbering` (`snake`, `linear`), `cap` (one rate, or `X:Y:Z` rates),
///   `coords` (coordinates file).
/// - dragonfly: shape empty or keys only; `g`, `a`, `p`, `h`, `intra` (`all` or `2d:RxC`),
///   `local`, `global`, `terminal` (rates).
/// - fattree: shape `m1xm2[x...]`; `taper`, `up` (`w2x...`), `cap` (rate).
/// Rates are bytes/s with an optional SI or binary suffix and optional `/s`: `9.375GB/s`, `4e9`.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/topo/topology.hpp"

namespace gridlock::topo {

/// Builds the topology a spec string describes. Throws InputError naming the wrong part and the
/// accepted form.
[[nodiscard]] std::unique_ptr<Topology> make_topology(std::string_view spec);

/// The size of a topology before it is built (estimate_topology_size()).
struct TopologySize {
  std::uint64_t nodes = 0;    ///< Nodes (with a coordinates file: as the regular numbering would have).
  std::uint64_t routers = 0;  ///< Routers or switches.
  std::uint64_t links = 0;    ///< Network and terminal links (an upper bound where ports may stay unused).
  std::uint64_t bytes = 0;    ///< About how many bytes the built topology takes.
};

/// The size of the topology a spec describes, from formulas alone: nothing is built, so a caller
/// can refuse a topology too large for its memory budget (or its output) before allocating it.
/// All zero when a parameter is out of range (make_topology() then names it); throws InputError as
/// make_topology() does for a malformed spec.
[[nodiscard]] TopologySize estimate_topology_size(std::string_view spec);

/// The part of the topology a spec describes that routes between `nodes` (names, or decimal
/// indices as Topology::find_node() takes them) use, where the model has formulas for one: a torus
/// without a coordinates file (Torus3D(options, nodes): memory and time in the nodes' rings, not
/// in the torus). Otherwise the whole topology, as make_topology(). Node and link ids are the
/// part's own; names, coordinates, ports, capacities, routes and spec() are the topology's. Throws
/// InputError as make_topology() does, and for a name that is not a node of the topology.
[[nodiscard]] std::unique_ptr<Topology> make_topology_part(std::string_view spec,
                                                           std::span<const std::string> nodes);

/// True when make_topology_part() builds parts of the topology a spec describes (a torus without
/// a coordinates file), false when it builds the whole topology. Throws InputError as
/// make_topology() does for a malformed spec.
[[nodiscard]] bool has_topology_parts(std::string_view spec);

/// Those of `names` that are nodes of the topology a spec describes (names, or decimal indices
/// as Topology::find_node() takes them), in their order: from formulas where the spec has parts
/// (has_topology_parts()), otherwise from the built topology. Throws InputError as make_topology()
/// does.
[[nodiscard]] std::vector<std::string> known_nodes(std::string_view spec, std::span<const std::string> names);

/// The size of make_topology_part(spec, nodes), from formulas (estimate_topology_size() where
/// the part is the whole topology). Throws InputError as make_topology_part() does.
[[nodiscard]] TopologySize estimate_topology_part_size(std::string_view spec,
                                                       std::span<const std::string> nodes);

/// The summary() of the topology a spec describes, with the names of its first and last nodes
/// (`first_node`, `last_node`). Answered from formulas where the model has them (a torus without
/// a coordinates file: no graph is built, so `torus:160x160x80` answers at once), otherwise from
/// the built topology. Throws InputError as make_topology() does.
[[nodiscard]] TopologySummary topology_info(std::string_view spec);

/// Parses a data rate in bytes/s: a number with an optional byte suffix (`GB`, `GiB`, ...) and an
/// optional `/s`, e.g. `9.375GB/s`, `4.5e9`. Throws InputError naming `what`.
[[nodiscard]] double parse_rate_bytes_per_s(std::string_view text, std::string_view what = "rate");

}  // namespace gridlock::topo
