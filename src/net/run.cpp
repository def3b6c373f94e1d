#include "gridlock/net/run.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/packet_options_text.hpp"
#include "gridlock/net/report.hpp"
#include "gridlock/net/report_json.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/sim/run_report_json.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {

std::string read_placement_rankfile(const PlacementSpec& spec, std::uint32_t ranks_per_node) {
  if (ranks_per_node != 1) {
    throw InputError(fmt::format(
        "--ranks-per-node {} and a rankfile placement: the rankfile {} says where each rank goes; leave out "
        "--ranks-per-node",
        ranks_per_node, spec.rankfile));
  }
  return read_input_file(spec.rankfile, "rankfile", "give the rankfile `gridlock map --rankfile` wrote");
}

Placement place_ranks(const topo::Topology& topology, std::uint32_t ranks, const PlacementChoice& choice,
                      const RankfileReader& rankfiles) {
  switch (choice.spec.kind) {
    case PlacementKind::kIdentity:
      return identity_placement(topology, ranks, choice.ranks_per_node);
    case PlacementKind::kRandom:
      return random_placement(topology, ranks, choice.ranks_per_node, choice.seed);
    case PlacementKind::kRankfile:
      break;
  }
  const std::string text = read_placement_rankfile(choice.spec, choice.ranks_per_node);
  std::vector<topo::NodeId> node_of_rank =
      rankfiles.nodes(topology, ranks, text, choice.spec.rankfile, {}, {});
  return explicit_placement(topology, ranks, std::move(node_of_rank),
                            fmt::format("rankfile {}", choice.spec.rankfile));
}

std::shared_ptr<const topo::Topology> make_whole_topology(std::string_view network, MemoryBudget& budget) {
  const topo::TopologySize size = topo::estimate_topology_size(network);
  budget.reserve(size.bytes,
                 fmt::format("--network {} ({} nodes, {} links)", network, size.nodes, size.links),
                 "give a smaller --network");
  return topo::make_topology(network);
}

namespace {

// The part of `network` that the nodes `names` use, its size reserved in `budget` first.
std::shared_ptr<const topo::Topology> make_reserved_part(std::string_view network,
                                                         const std::vector<std::string>& names,
                                                         std::uint32_t ranks, MemoryBudget& budget) {
  const topo::TopologySize size = topo::estimate_topology_part_size(network, names);
  budget.reserve(size.bytes,
                 fmt::format("the part of the network {} that {} ranks use ({} nodes, {} links)", network,
                             ranks, size.nodes, size.links),
                 "place the ranks on fewer nodes (--ranks-per-node) or give a smaller --network");
  return topo::make_topology_part(network, names);
}

// A rankfile placement on the part of `network` its hosts use.
PlacedTopology place_rankfile_on_part(std::string_view network, const topo::TopologySummary& whole,
                                      std::uint32_t ranks, const PlacementChoice& choice,
                                      MemoryBudget& budget, const RankfileReader& rankfiles) {
  const std::string text = read_placement_rankfile(choice.spec, choice.ranks_per_node);
  // Unknown hosts stay out of the part: the rankfile's reader names them with their line.
  std::vector<std::string> names = topo::known_nodes(network, rankfiles.hosts(text));
  if (names.empty()) {
    // A part of one node, so that the rankfile's reader says what the file lacks.
    names.push_back(whole.first_node);
  }
  PlacedTopology out;
  out.topology = make_reserved_part(network, names, ranks, budget);
  std::vector<topo::NodeId> node_of_rank =
      rankfiles.nodes(*out.topology, ranks, text, choice.spec.rankfile, whole.first_node, whole.last_node);
  out.placement = explicit_placement(*out.topology, ranks, std::move(node_of_rank),
                                     fmt::format("rankfile {}", choice.spec.rankfile));
  return out;
}

}  // namespace

PlacedTopology make_placed_topology(std::string_view network, std::uint32_t ranks,
                                    const PlacementChoice& choice, MemoryBudget& budget,
                                    const RankfileReader& rankfiles) {
  if (!topo::has_topology_parts(network)) {
    PlacedTopology out;
    out.topology = make_whole_topology(network, budget);
    out.placement = place_ranks(*out.topology, ranks, choice, rankfiles);
    return out;
  }
  const topo::TopologySummary whole = topo::topology_info(network);
  if (choice.spec.kind == PlacementKind::kRankfile) {
    return place_rankfile_on_part(network, whole, ranks, choice, budget, rankfiles);
  }
  // The placement on the whole topology's node indices first (identity and random need only its
  // node count), then the part those nodes use.
  Placement placement =
      choice.spec.kind == PlacementKind::kRandom
          ? random_placement(whole.nodes, whole.spec, ranks, choice.ranks_per_node, choice.seed)
          : identity_placement(whole.nodes, whole.spec, ranks, choice.ranks_per_node);
  std::vector<topo::NodeId> used = placement.node_of_rank;
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::vector<std::string> names;
  names.reserve(used.size());
  for (const topo::NodeId node : used) {
    names.push_back(std::to_string(node));
  }
  PlacedTopology out;
  out.topology = make_reserved_part(network, names, ranks, budget);
  // The part's id of each used node, then of each rank's node.
  std::vector<topo::NodeId> part_id(used.size());
  for (std::size_t i = 0; i < used.size(); ++i) {
    const std::optional<topo::NodeId> id = out.topology->find_node(names[i]);
    if (!id) {
      throw InternalError(
          fmt::format("the part of {} built for node {} does not hold it", network, names[i]));
    }
    part_id[i] = *id;
  }
  for (topo::NodeId& node : placement.node_of_rank) {
    node = part_id[static_cast<std::size_t>(std::lower_bound(used.begin(), used.end(), node) - used.begin())];
  }
  out.placement = std::move(placement);
  return out;
}

NetworkRun prepare_network_run(const NetworkRunOptions& options, MemoryBudget& budget) {
  NetworkRun run;
  run.kind = parse_model_kind(options.net_model);
  const SystemPreset* preset = options.preset ? &*options.preset : nullptr;
  if (options.hop_latency.empty()) {
    run.params.hop_latency_ps = preset != nullptr ? preset->hop_latency_ps : 0;
  } else {
    run.params.hop_latency_ps = parse_time_ps(options.hop_latency, "--hop-latency");
  }
  // A bound far above any router (100 ns) keeps hops x latency and the times after it inside the
  // engine's 64-bit picoseconds: the flow model adds them without an overflow check.
  if (run.params.hop_latency_ps > kMaxHopLatencyPs) {
    throw InputError(
        fmt::format("--hop-latency {}: at most 1 s per hop (routers take about 100ns)", options.hop_latency));
  }
  run.params.spread = options.spread;
  run.params.spread_seed = options.seed;
  run.placement.spec = parse_placement_spec(options.placement);
  run.placement.ranks_per_node = options.ranks_per_node;
  run.placement.seed = options.seed;
  if ((options.packet_bytes || options.buffer_bytes || options.vcs || options.routing ||
       options.congestion_control || options.ugal_rule || options.ugal_threshold_bytes) &&
      run.kind != ModelKind::kPacket) {
    throw InputError(
        "--packet-size, --buffer, --vcs, --routing, --ugal-rule, --ugal-threshold and --congestion-control "
        "configure the packet model: add --net-model packet");
  }
  const PacketOptions defaults = preset != nullptr ? preset->packet : PacketOptions{};
  run.packet.packet_bytes = options.packet_bytes.value_or(defaults.packet_bytes);
  run.packet.buffer_bytes = options.buffer_bytes.value_or(defaults.buffer_bytes);
  run.packet.vcs = options.vcs.value_or(defaults.vcs);
  run.packet.routing = options.routing.value_or(defaults.routing);
  run.packet.congestion_control = options.congestion_control.value_or(defaults.congestion_control);
  run.packet.ugal_rule = options.ugal_rule.value_or(defaults.ugal_rule);
  run.packet.ugal_threshold_bytes = options.ugal_threshold_bytes.value_or(defaults.ugal_threshold_bytes);
  run.packet.seed = options.seed;
  if (run.kind == ModelKind::kPacket) {
    check_packet_sizes(run.packet);
    check_ugal_options(run.packet, options.ugal_rule.has_value(), options.ugal_threshold_bytes.has_value());
  }
  run.spec = options.network;
  if (topo::has_topology_parts(options.network)) {
    // Only the part the placement uses is built, once the schedule gives the rank count; the
    // spec's formulas check it now.
    (void)topo::topology_info(options.network);
    return run;
  }
  run.topology = make_whole_topology(options.network, budget);
  return run;
}

void place_network_run(NetworkRun& run, std::uint32_t ranks, MemoryBudget& budget,
                       const RankfileReader& rankfiles) {
  const auto reserve_model = [&] {
    budget.reserve(
        estimate_model_bytes(run.kind, run.topology->links().size(), ranks, run.packet),
        fmt::format("the {} model on {} for {} ranks", to_string(run.kind), run.topology->spec(), ranks),
        "give a smaller --network (or, for the packet model, a smaller --buffer)");
  };
  Placement placement;
  if (run.topology) {
    reserve_model();
    placement = place_ranks(*run.topology, ranks, run.placement, rankfiles);
  } else {
    // The model's state is per link of the part.
    PlacedTopology placed = make_placed_topology(run.spec, ranks, run.placement, budget, rankfiles);
    run.topology = std::move(placed.topology);
    placement = std::move(placed.placement);
    reserve_model();
  }
  run.network = std::make_shared<const Network>(run.topology, std::move(placement), run.params);
  run.model = make_model(run.kind, run.network, run.packet);
}

void report_run(std::FILE* out, const RunOutputs& outputs, const sim::RunInfo& info,
                const sim::SimResult& result, const NetworkRun* network_run) {
  Json context = sim::run_context(info);
  if (outputs.preset != nullptr) {
    context["system"] = system_json(*outputs.preset);
  }
  std::optional<NetReport> net_report;
  std::string net_description;
  if (network_run != nullptr) {
    net_report = make_net_report(*network_run->network, network_run->model->stats(), result.max_finish.ps);
    net_description = fmt::format("{}, hop latency {}", network_run->model->describe(),
                                  format_time_ps(network_run->network->params().hop_latency_ps));
  }
  if (!outputs.json.empty()) {
    if (net_report.has_value()) {
      write_run_json(
          outputs.json, context, result, outputs.per_rank,
          network_json(*network_run->network, network_run->placement, net_description, *net_report));
    } else {
      sim::write_run_json(outputs.json, context, result, outputs.per_rank);
    }
  }
  if (!result.complete) {
    throw InputError(sim::stuck_report(result));
  }
  if (!outputs.timeline.empty()) {
    sim::write_timeline(outputs.timeline, result, info.ranks, context);
  }
  sim::print_run(out, info, result, outputs.per_rank);
  if (outputs.preset != nullptr) {
    fmt::print(out, "{}\n", system_line(*outputs.preset));
  }
  if (net_report.has_value()) {
    print_net_report(out, *net_report, net_description);
  }
}

}  // namespace gridlock::net
