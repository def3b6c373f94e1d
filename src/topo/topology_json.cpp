#include "gridlock/topo/topology_json.hpp"

#include <type_traits>
#include <utility>

namespace gridlock::topo {

Json to_json(const Parameters& parameters) {
  // An empty list stays `null`, as an unset nlohmann value was before parameters were plain.
  Json out;
  for (const Parameter& p : parameters) {
    out[p.name] = std::visit(
        [](const auto& v) -> Json {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, double>>>) {
            Json named = Json::object();
            for (const auto& [key, number] : v) {
              named[key] = number;
            }
            return named;
          } else {
            return Json(v);
          }
        },
        p.value);
  }
  return out;
}

Json to_json(const TopologySummary& summary) {
  Json out;
  out["kind"] = summary.kind;
  out["spec"] = summary.spec;
  out["parameters"] = to_json(summary.parameters);
  out["nodes"] = summary.nodes;
  out["routers"] = summary.routers;
  out["network_links"] = summary.network_links;
  out["terminal_links"] = summary.terminal_links;
  out["network_link_capacity_bytes_per_s"] = {{"min", summary.min_network_capacity_bytes_per_s},
                                              {"max", summary.max_network_capacity_bytes_per_s}};
  if (!summary.first_node.empty()) {
    out["first_node"] = summary.first_node;
  }
  if (!summary.last_node.empty()) {
    out["last_node"] = summary.last_node;
  }
  return out;
}

Json route_json(const Topology& topology, NodeId src, NodeId dst) {
  const auto links = topology.route(src, dst);
  const auto& nodes = topology.nodes();
  const auto& routers = topology.routers();
  Json out;
  out["src"] = nodes.at(src).name;
  out["dst"] = nodes.at(dst).name;
  out["src_router"] = routers[nodes[src].router].name;
  out["dst_router"] = routers[nodes[dst].router].name;
  out["hops"] = links.size();
  Json list = Json::array();
  for (const LinkId id : links) {
    const Link& link = topology.links()[id];
    list.push_back({{"id", id},
                    {"from", routers[link.src_router].name},
                    {"direction", link.direction},
                    {"to", routers[link.dst_router].name},
                    {"in_port", link.in_port},
                    {"capacity_bytes_per_s", link.capacity_bytes_per_s}});
  }
  out["links"] = std::move(list);
  return out;
}

}  // namespace gridlock::topo
