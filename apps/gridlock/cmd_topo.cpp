// `gridlock topo route SPEC SRC DST`, `gridlock topo info SPEC` and `gridlock topo simgrid SPEC -o FILE`:
// topologies and routes for people, and as SimGrid platforms.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/topo/dragonfly.hpp"
#include "gridlock/topo/simgrid_platform.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/topology_json.hpp"
#include "memory_option.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct TopoRouteArgs {
  std::string spec;
  std::string src;
  std::string dst;
  std::optional<int> valiant_group;  // --valiant: a non-minimal route through this group
  bool json = false;
  std::string max_memory;  // empty: default_max_memory_bytes()
};

struct TopoInfoArgs {
  std::string spec;
  bool json = false;
  std::string max_memory;
};

struct TopoSimgridArgs {
  std::string spec;
  std::string output;
  std::string latency = "100ns";
  std::optional<std::string> terminal_latency;  // default: --latency
  std::string speed = "1Gf";
  std::size_t max_nodes = topo::kSimgridDefaultMaxNodes;
  bool quiet = false;
  std::string max_memory;
};

// Builds the topology of `spec` after checking its estimated size against --max-memory.
std::unique_ptr<topo::Topology> make_topology_within(const std::string& spec, const std::string& max_memory) {
  MemoryBudget budget(cli::max_memory_from(max_memory));
  budget.reserve(topo::estimate_topology_size(spec).bytes, fmt::format("the topology '{}'", spec),
                 "give a smaller topology");
  return topo::make_topology(spec);
}

void run_route(const TopoRouteArgs& args) {
  const auto topo = make_topology_within(args.spec, args.max_memory);
  const auto src = topo->node_id(args.src);
  const auto dst = topo->node_id(args.dst);
  Json out = topo::route_json(*topo, src, dst);
  std::string text = topo->route_text(src, dst);
  const auto* dragonfly = dynamic_cast<const topo::Dragonfly*>(topo.get());
  // Which groups --valiant may name, so that a user can pick (or sweep) them.
  std::string candidates_line;
  if (dragonfly != nullptr) {
    const std::vector<int> candidates = dragonfly->valiant_candidates(src, dst);
    out["valiant_candidates"] = candidates;
    const bool same_group =
        dragonfly->group_of(topo->nodes()[src].router) == dragonfly->group_of(topo->nodes()[dst].router);
    // Adaptive routing's non-minimal paths where no intermediate group applies (Dragonfly's file comment).
    const std::size_t routers = dragonfly->valiant_choices(src, dst);
    candidates_line =
        !candidates.empty()
            ? fmt::format("Valiant intermediate groups (--valiant G): {}", format_ranges(candidates, ", "))
        : same_group
            ? fmt::format(
                  "source and destination share a group: no Valiant candidates (--valiant G still routes "
                  "through another group G); ugal and valiant routing go through one of {} intermediate "
                  "routers of the group",
                  routers)
            : fmt::format(
                  "a 2-group dragonfly has no third group: no Valiant candidates; ugal and valiant routing "
                  "go through one of {} other gateway routers of the source group",
                  routers);
  }
  if (args.valiant_group.has_value()) {
    if (dragonfly == nullptr) {
      throw InputError("--valiant applies to dragonfly topologies only");
    }
    const auto links = dragonfly->valiant_route(src, dst, *args.valiant_group);
    text = topo->routers()[topo->nodes()[src].router].name;
    Json list = Json::array();
    for (const auto id : links) {
      const auto& link = topo->links()[id];
      text += fmt::format(" {} {}", link.direction, topo->routers()[link.dst_router].name);
      list.push_back({{"id", id},
                      {"from", topo->routers()[link.src_router].name},
                      {"direction", link.direction},
                      {"to", topo->routers()[link.dst_router].name},
                      {"in_port", link.in_port},
                      {"capacity_bytes_per_s", link.capacity_bytes_per_s}});
    }
    out["hops"] = links.size();
    out["links"] = std::move(list);
    out["valiant_group"] = *args.valiant_group;
  }
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{} -> {}: {} hops on {}\n{}\n", topo->nodes()[src].name, topo->nodes()[dst].name,
             out["hops"].get<std::size_t>(), topo->spec(), text);
  if (!candidates_line.empty()) {
    fmt::print("{}\n", candidates_line);
  }
}

void run_info(const TopoInfoArgs& args) {
  // topology_info() builds every topology but a torus without a coordinates file (formulas).
  if (!args.spec.starts_with("torus:") || args.spec.find("coords=") != std::string::npos) {
    MemoryBudget budget(cli::max_memory_from(args.max_memory));
    budget.reserve(topo::estimate_topology_size(args.spec).bytes, fmt::format("the topology '{}'", args.spec),
                   "give a smaller topology");
  } else if (!args.max_memory.empty()) {
    static_cast<void>(cli::max_memory_from(args.max_memory));  // checked even when nothing is built
  }
  const topo::TopologySummary summary = topo::topology_info(args.spec);
  if (args.json) {
    fmt::print("{}\n", topo::to_json(summary).dump(2));
    return;
  }
  fmt::print("kind: {}\nspec: {}\nnodes: {} ({} .. {})\nrouters: {}\nnetwork links: {}\nterminal links: {}\n",
             summary.kind, summary.spec, summary.nodes, summary.first_node, summary.last_node,
             summary.routers, summary.network_links, summary.terminal_links);
  fmt::print("network link capacity: {} .. {}\nparameters: {}\n",
             format_rate(summary.min_network_capacity_bytes_per_s),
             format_rate(summary.max_network_capacity_bytes_per_s), topo::to_json(summary.parameters).dump());
}

void run_simgrid(const TopoSimgridArgs& args) {
  topo::SimgridPlatformOptions options;
  options.network_latency_ps = parse_time_ps(args.latency, "--latency");
  options.terminal_latency_ps = args.terminal_latency.has_value()
                                    ? parse_time_ps(*args.terminal_latency, "--terminal-latency")
                                    : options.network_latency_ps;
  options.host_speed_flops = topo::parse_speed_flops(args.speed, "--speed");
  options.max_nodes = args.max_nodes;
  // The node bound is checked before the topology is built: a large one takes gigabytes.
  if (const std::uint64_t nodes = topo::estimate_topology_size(args.spec).nodes; nodes > args.max_nodes) {
    throw InputError(fmt::format(
        "topology {} has {} nodes, more than the {} a SimGrid platform is generated for (one "
        "route per ordered node pair); use a smaller topology, or raise the bound with --max-nodes {}",
        args.spec, nodes, args.max_nodes, nodes));
  }
  const auto topo = make_topology_within(args.spec, args.max_memory);
  topo::write_simgrid_platform(*topo, options, args.output);
  if (!args.quiet) {
    const std::size_t n = topo->nodes().size();
    fmt::print("wrote {}: {} hosts, {} links, {} routes ({})\n", args.output, n, topo->links().size(),
               n * (n - 1), topo->spec());
  }
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto* topo = app.add_subcommand("topo", "Network topologies: routes between nodes and summaries");
  topo->require_subcommand(1);
  const auto route_args = std::make_shared<TopoRouteArgs>();
  auto* route = topo->add_subcommand("route", "Print the links a message from SRC to DST crosses");
  route->add_option("spec", route_args->spec, "Topology spec, e.g. torus:2x2x8 (see docs/topologies.md)")
      ->required();
  route->add_option("src", route_args->src, "Source node name (e.g. nid00012) or index")->required();
  route->add_option("dst", route_args->dst, "Destination node name or index")->required();
  route->add_option("--valiant", route_args->valiant_group,
                    "Dragonfly only: the non-minimal route through this intermediate group");
  route->add_flag("--json", route_args->json, "Print JSON instead of text");
  add_max_memory_option(*route, route_args->max_memory);
  route->callback([route_args] { run_route(*route_args); });
  const auto info_args = std::make_shared<TopoInfoArgs>();
  auto* info = topo->add_subcommand("info", "Summarize a topology: nodes, routers, links, capacities");
  info->add_option("spec", info_args->spec, "Topology spec, e.g. dragonfly:g=9,a=4,p=2,h=2")->required();
  info->add_flag("--json", info_args->json, "Print JSON instead of text");
  add_max_memory_option(*info, info_args->max_memory);
  info->callback([info_args] { run_info(*info_args); });
  const auto simgrid_args = std::make_shared<TopoSimgridArgs>();
  auto* simgrid = topo->add_subcommand(
      "simgrid", "Write a SimGrid platform (XML) whose hosts, links and routes are the topology's");
  simgrid->add_option("spec", simgrid_args->spec, "Topology spec, e.g. torus:2x2x8 (see docs/topologies.md)")
      ->required();
  simgrid
      ->add_option("-o,--output", simgrid_args->output,
                   "Platform file to write, e.g. platforms/gemini-2x2x8.xml")
      ->required();
  output_file(simgrid->get_option("--output"));
  simgrid->add_option("--latency", simgrid_args->latency, "Latency of each network link (per hop)")
      ->capture_default_str();
  simgrid->add_option("--terminal-latency", simgrid_args->terminal_latency,
                      "Latency of each injection and ejection link (default: --latency)");
  simgrid
      ->add_option("--speed", simgrid_args->speed, "Host speed in flop/s (SimGrid units: f, kf, Mf, Gf, ...)")
      ->capture_default_str();
  simgrid
      ->add_option("--max-nodes", simgrid_args->max_nodes,
                   "Refuse larger topologies (the file holds one route per ordered node pair)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, static_cast<std::size_t>(topo::kMaxTopologyNodes)));
  simgrid->add_flag("-q,--quiet", simgrid_args->quiet, "Print nothing on success");
  add_max_memory_option(*simgrid, simgrid_args->max_memory);
  simgrid->callback([simgrid_args] { run_simgrid(*simgrid_args); });
}

}  // namespace gridlock::cli
