#pragma once
/// @file
/// JSON forms of the topology types (the `gridlock topo` outputs and the oracle's
/// `/v1/topology` and `/v1/route` replies). The only topo header that includes nlohmann/json.
#include "gridlock/core/output.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::topo {

/// Parameters as one JSON object, in their order (named numbers become a nested object).
[[nodiscard]] Json to_json(const Parameters& parameters);

/// Summary: kind, spec, parameters, counts of nodes, routers and links, the network link
/// capacities (`{min, max}`), then `first_node` and `last_node` where they are set.
[[nodiscard]] Json to_json(const TopologySummary& summary);

/// The route from `src` to `dst` as JSON: source, destination, their routers, hop count and each
/// link (id, from, direction, to, in_port, capacity). Throws std::out_of_range for invalid ids.
[[nodiscard]] Json route_json(const Topology& topology, NodeId src, NodeId dst);

}  // namespace gridlock::topo
