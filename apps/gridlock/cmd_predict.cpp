// `gridlock predict gpcnet`: GPCNeT's congestion benchmark on a simulated network
// (gridlock::predict::predict_gpcnet), and `gridlock predict mapping`: what a task mapping recovers
// under congestion (gridlock::predict::predict_mapping); docs/predict.md. Parses, calls the library,
// prints the tables.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/results_json.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/net/system.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/predict/predict_gpcnet.hpp"
#include "gridlock/predict/predict_mapping.hpp"
#include "gridlock/sim/loggops_options.hpp"
#include "gridlock/topo/spec.hpp"
#include "memory_option.hpp"
#include "output_guard.hpp"
#include "packet_options.hpp"
#include "system_options.hpp"

namespace gridlock::cli {
namespace {

struct PredictGpcnetArgs {
  std::string network;
  std::string system;
  std::uint32_t nodes = 0;
  std::string allocation = "compact";
  std::string net_model = "flow";
  std::uint64_t seed = 1;
  std::uint32_t ranks_per_node = 1;
  std::uint32_t iterations = 0;
  std::uint32_t rings = 4;
  std::string precision;
  std::uint64_t max_iterations = 0;
  std::string rma_target = "nic";
  PacketOptionsText packet;
  sim::LogGOPSText loggops;
  std::string json;
  std::string max_memory;
  bool quiet = false;
};

void run_predict_gpcnet(const CLI::App& cmd, const PredictGpcnetArgs& a) {
  const std::optional<net::SystemPreset> preset = system_from(a.system);
  if (!preset && a.network.empty()) {
    throw InputError(
        "predict gpcnet: give --network SPEC (e.g. dragonfly:g=9,a=4,p=2,h=2) or --system NAME (gridlock "
        "predict systems lists them)");
  }
  predict::GpcnetOptions options;
  options.max_memory_bytes = max_memory_from(a.max_memory);
  options.network_spec = preset ? preset->network_spec : a.network;
  options.model = net::parse_model_kind(a.net_model);
  options.seed = a.seed;
  options.ranks_per_node = a.ranks_per_node;
  options.iterations = a.iterations;
  options.rings = a.rings;
  if (cmd.count("--precision") > 0) {
    options.precision_percent = predict::parse_gpcnet_precision(a.precision);
  }
  options.max_iterations = a.max_iterations;
  options.rma_by_nic = a.rma_target == "nic";
  options.hop_latency_ps = hop_latency_with(cmd, a.packet.hop_latency, preset);
  options.packet = packet_options_with(cmd, a.packet, preset);
  options.params =
      sim::loggops_from_text(a.loggops, preset ? preset->params : net::default_predict_params()).params;
  // The job's nodes: --nodes of the machine (a preset's nodes, or the topology's), taken as
  // --allocation says; without --nodes every node of the machine.
  const auto policy = mapping::parse_allocation_policy(a.allocation);
  const std::uint64_t machine_nodes =
      preset ? preset->nodes : topo::topology_info(options.network_spec).nodes;
  if (a.nodes > 0 || preset) {
    const auto count = a.nodes > 0 ? a.nodes : static_cast<std::uint32_t>(machine_nodes);
    if (machine_nodes > UINT32_MAX) {
      throw InputError(fmt::format("--nodes {}: the network has {} nodes, more than --nodes can take",
                                   a.nodes, machine_nodes));
    }
    options.nodes =
        mapping::allocate_nodes(static_cast<std::uint32_t>(machine_nodes), count, policy, a.seed, "--nodes");
    options.allocation = policy == mapping::AllocationPolicy::kRandom
                             ? fmt::format("random, seed {}", a.seed)
                             : std::string(mapping::to_string(policy));
  }
  if (!a.quiet) {
    options.progress = [](std::string_view line) { fmt::print(stderr, "predict: {}\n", line); };
  }
  gpcnet::Report report = predict::predict_gpcnet(options);
  if (preset) {
    report.context["system"] = net::system_json(*preset);
  }
  // The result file first: a closed standard output (`| head`) must not lose it.
  if (!a.json.empty()) {
    write_json_file(a.json, report.context, gpcnet::report_body(report));
  }
  fmt::print("gridlock predict gpcnet: {} model on {}, {} nodes x {} ranks, seed {}\n", a.net_model,
             report.context.value("network", options.network_spec), report.context.value("nodes", 0U),
             a.ranks_per_node, a.seed);
  if (preset) {
    fmt::print("{}\n", system_line(*preset));
  }
  if (!options.nodes.empty()) {
    fmt::print("allocation: {} nodes of the machine's {}, {}\n", options.nodes.size(), machine_nodes,
               options.allocation);
  }
  const sim::LogGOPSParams& p = options.params;
  fmt::print(
      "values: routing {}, packet {} B, buffer {} B per VC, {} VCs, congestion control {}, hop latency {} "
      "ps, "
      "L {} ps, o {} ps, g {} ps, G {} ps/B, O {} ps/B{}\n",
      net::to_string(options.packet.routing), options.packet.packet_bytes, options.packet.buffer_bytes,
      options.packet.vcs, options.packet.congestion_control ? "on" : "off", options.hop_latency_ps,
      p.latency.ps, p.overhead_send.ps, p.gap.ps, p.gap_per_byte.ps, p.overhead_per_byte.ps,
      preset ? " (the preset's unless given on the command line)" : "");
  gpcnet::print_tables(report, stdout);
}

struct PredictMappingArgs {
  std::string network = "torus:2x2x8";
  std::string system;
  std::string nodes;
  std::uint32_t cores_per_node = 4;
  std::string tasks = "stencil3d:4x4x4";
  std::string methods;
  std::string source = "sim:paper";
  std::string net_model = "flow";
  std::uint64_t seed = 1;
  std::uint32_t seeds = 1;
  std::uint32_t iterations = 20;
  std::string compute = "0";
  // --hop-latency, --packet-size and --buffer; the other packet options are the defaults or the
  // --system preset's.
  PacketOptionsText packet;
  std::string congestors;
  std::string congestor_size = "1MiB";
  sim::LogGOPSText loggops;
  std::string json;
  std::string max_memory;
  bool quiet = false;
};

// `A:B,C:D` into node-name pairs.
std::vector<std::pair<std::string, std::string>> parse_pairs(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size() ||
        item.find(':', colon + 1) != std::string::npos) {
      throw InputError(
          fmt::format("--congestors '{}': expected node pairs A:B separated by commas, e.g. "
                      "nid00016:nid00040,nid00048:nid00042",
                      text));
    }
    pairs.emplace_back(item.substr(0, colon), item.substr(colon + 1));
    start = end + 1;
  }
  return pairs;
}

void run_predict_mapping(const CLI::App& cmd, const PredictMappingArgs& a) {
  const std::optional<net::SystemPreset> preset = system_from(a.system);
  predict::MappingPredictOptions options;
  options.max_memory_bytes = max_memory_from(a.max_memory);
  if (a.seeds > 0 && a.seed > UINT64_MAX - (a.seeds - 1)) {
    throw InputError(
        fmt::format("--seed {} with --seeds {}: the last seed would pass 2^64 - 1; give a smaller --seed",
                    a.seed, a.seeds));
  }
  options.network_spec = preset ? preset->network_spec : a.network;
  if (!a.nodes.empty()) {
    options.nodes = mapping::read_node_list(a.nodes);
  } else if (preset) {
    throw InputError(fmt::format(
        "predict mapping --system {}: give the job's --nodes (a hostlist or @FILE of the machine's nodes) "
        "and its --congestors; the defaults are the paper's nodes of torus:2x2x8",
        preset->name));
  }
  options.cores_per_node = a.cores_per_node;
  options.tasks = a.tasks;
  if (!a.methods.empty()) {
    const std::vector<std::string_view> methods = split(a.methods, ',');
    options.methods.assign(methods.begin(), methods.end());
  }
  options.source = a.source;
  options.model = net::parse_model_kind(a.net_model);
  options.seed = a.seed;
  options.seeds = a.seeds;
  options.iterations = a.iterations;
  options.compute_ps = parse_time_ps(a.compute, "--compute");
  options.hop_latency_ps = hop_latency_with(cmd, a.packet.hop_latency, preset);
  if (!a.congestors.empty()) {
    options.congestor_pairs = parse_pairs(a.congestors);
  }
  options.congestor_bytes = parse_byte_size(a.congestor_size, "--congestor-size");
  // A preset's routing, virtual channels and congestion control too (this command has no options
  // for them); its packet size and buffer unless given.
  options.packet = packet_options_with(cmd, a.packet, preset);
  options.params =
      sim::loggops_from_text(a.loggops, preset ? preset->params : net::default_predict_params()).params;
  if (!a.quiet) {
    options.progress = [](std::string_view line) { fmt::print(stderr, "predict: {}\n", line); };
  }
  predict::MappingReport report = predict::predict_mapping(options);
  if (preset) {
    report.context["system"] = net::system_json(*preset);
  }
  // The result file first: a closed standard output (`| head`) must not lose it.
  if (!a.json.empty()) {
    write_json_file(a.json, report.context, predict::mapping_report_body(report));
  }
  fmt::print("gridlock predict mapping: {} model on {}, {} nodes x {} cores, tasks {}, {} iterations, {}\n",
             a.net_model, report.context.value("network", a.network), options.nodes.size(), a.cores_per_node,
             report.context.value("tasks", a.tasks), a.iterations,
             a.seeds == 1 ? fmt::format("seed {}", a.seed)
                          : fmt::format("seeds {} .. {} (means)", a.seed, a.seed + a.seeds - 1));
  if (preset) {
    fmt::print("{}\n", system_line(*preset));
  }
  fmt::print("competing traffic: {}; link metrics for the weights from {}\n\n", report.congestor_summary,
             report.context.value("source", a.source));
  fmt::print("{}", predict::mapping_table(report));
  for (const auto& note : report.notes) {
    fmt::print("note: {}\n", note);
  }
  fmt::print(
      "\nrecovered: share of identity's congestion time (congested - alone) a mapping takes back; paper: "
      "Table II of Brandt et al.\n");
}

// `gridlock predict systems`: the presets --system finds, one line each.
void run_predict_systems(const std::string& json) {
  const auto systems = net::list_systems();
  if (!json.empty()) {
    Json context = base_context("gridlock predict systems", schemas::kSystems);
    Json dirs = Json::array();
    for (const auto& dir : net::system_dirs()) {
      dirs.push_back(dir.string());
    }
    context["directories"] = dirs;
    Json list = Json::array();
    for (const auto& preset : systems) {
      list.push_back({{"name", preset.name},
                      {"title", preset.title},
                      {"nodes", preset.nodes},
                      {"network", preset.network_spec},
                      {"file", preset.file}});
    }
    write_json_file(json, context, Json{{"systems", list}});
  }
  if (systems.empty()) {
    fmt::print("no system presets found (GRIDLOCK_SYSTEMS_DIR adds a directory)\n");
    return;
  }
  fmt::print("{:<10} {:>6}  {:<60} {}\n", "name", "nodes", "network", "title");
  for (const auto& preset : systems) {
    fmt::print("{:<10} {:>6}  {:<60} {}\n", preset.name, preset.nodes, preset.network_spec, preset.title);
  }
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto* predict = app.add_subcommand("predict", "Predict benchmark results on a simulated network");
  predict->require_subcommand(1);
  auto args = std::make_shared<PredictGpcnetArgs>();
  auto* cmd = predict->add_subcommand(
      "gpcnet",
      "GPCNeT's congestion benchmark (canaries alone and beside congestors, Congestion Impact) on a "
      "simulated network: the tables and JSON of `gridlock-bench load`");
  cmd->add_option("--network", args->network,
                  "Topology spec as `gridlock topo` takes it, e.g. dragonfly:g=9,a=4,p=2,h=2 (or --system)");
  add_system_option(*cmd, args->system);
  cmd->add_option("--nodes", args->nodes,
                  "Nodes of the job, taken of the machine as --allocation says (default: every node)");
  cmd->add_option(
         "--allocation", args->allocation,
         "How --nodes are taken: compact (the first in node order), spread (evenly spaced) or random "
         "(seeded with --seed)")
      ->capture_default_str();
  cmd->add_option("--net-model", args->net_model, "Network model: flow (max-min fair flows) or packet")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the node shuffle and the random rings")
      ->capture_default_str();
  cmd->add_option("--ranks-per-node", args->ranks_per_node, "Ranks per node (GPCNeT's PPort)")
      ->capture_default_str();
  cmd->add_option("--iterations", args->iterations,
                  "Timed iterations per ring block of every canary (0: latency 50, BW+Sync 8, allreduce 200)")
      ->capture_default_str();
  cmd->add_option("--rma-target", args->rma_target,
                  "Who answers the RMA congestors' puts and gets at their root: nic (RDMA, no CPU time) or "
                  "cpu (each answer pays o)")
      ->check(CLI::IsMember({"nic", "cpu"}))
      ->capture_default_str();
  cmd->add_option("--rings", args->rings, "Random rings of the ring canaries (GPCNeT: 30)")
      ->capture_default_str();
  cmd->add_option(
      "--precision", args->precision,
      "Stopping rule: run each canary until the 95% intervals of its mean and 99% tail are within "
      "+-P% (e.g. 5 or 5%; 0.1 to 50), instead of a fixed count");
  cmd->add_option("--max-iterations", args->max_iterations,
                  "With --precision: most timed iterations per canary rank (default 20x the fixed count)");
  add_packet_model_options(*cmd, args->packet, false, true);
  cmd->add_option("-L", args->loggops.latency, "LogGOPS L (default 0.5us)");
  cmd->add_option("-o", args->loggops.overhead, "LogGOPS o on both sides (default 0.3us)");
  cmd->add_option("-g", args->loggops.gap, "LogGOPS g (default 50ns)");
  cmd->add_option("-G", args->loggops.gap_per_byte, "LogGOPS G: the NIC's time per byte (default 0.1ns)");
  cmd->add_option("--json", args->json, "Write the report as JSON (gridlock-bench's schema)");
  output_file(cmd->get_option("--json"));
  add_max_memory_option(*cmd, args->max_memory);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress lines on stderr");
  cmd->callback([cmd, args] { run_predict_gpcnet(*cmd, *args); });

  auto margs = std::make_shared<PredictMappingArgs>();
  auto* map = predict->add_subcommand(
      "mapping",
      "What task mappings recover under congestion (the mapping paper's Table II): an application's "
      "halo exchange alone and beside competing traffic on a simulated network, per mapping");
  map->add_option("--network", margs->network, "Topology spec as `gridlock topo` takes it (or --system)")
      ->capture_default_str();
  add_system_option(*map, margs->system);
  map->add_option("--nodes", margs->nodes,
                  "Allocated nodes: hostlist or @FILE (default: the paper's 16 nodes of torus:2x2x8)");
  map->add_option("--cores-per-node", margs->cores_per_node, "Ranks (cores) per allocated node")
      ->capture_default_str();
  map->add_option("--tasks", margs->tasks,
                  "Task graph as `gridlock map` takes it (its messages, every iteration)")
      ->capture_default_str();
  map->add_option("--methods", margs->methods,
                  "Comma-separated mappings (identity, cyclic, random, geometric, scotch:<metric>); default: "
                  "all baselines and Scotch with none, hops, bw, stalls, hops+stalls");
  map->add_option("--source", margs->source,
                  "Link metrics for the machine weights (as `gridlock map --source`)")
      ->capture_default_str();
  map->add_option("--net-model", margs->net_model, "Network model: flow (max-min fair flows) or packet")
      ->capture_default_str();
  map->add_option("--seed", margs->seed, "Seed of the random baseline, Scotch and the packet model")
      ->capture_default_str();
  map->add_option("--seeds", margs->seeds,
                  "Scotch and random placements with seeds --seed .. --seed + N - 1: figures are means, "
                  "with their range")
      ->capture_default_str();
  map->add_option("--iterations", margs->iterations, "Iterations of the application (the paper: 10,000)")
      ->capture_default_str();
  map->add_option("--compute", margs->compute, "Computation per task after each exchange, e.g. 50us")
      ->capture_default_str();
  map->add_option("--hop-latency", margs->packet.hop_latency, "Latency of each router-to-router hop")
      ->capture_default_str();
  map->add_option("--congestors", margs->congestors,
                  "Competing traffic: node pairs A:B,... exchanging messages both ways (default: the "
                  "paper's nid00016:nid00040,nid00048:nid00042,nid00012:nid00038)");
  map->add_option("--congestor-size", margs->congestor_size, "Message size of the competing traffic")
      ->capture_default_str();
  map->add_option("--packet-size", margs->packet.packet_size, "Packet model: payload bytes per packet")
      ->capture_default_str();
  map->add_option("--buffer", margs->packet.buffer, "Packet model: buffer per input port and virtual channel")
      ->capture_default_str();
  map->add_option("-L", margs->loggops.latency, "LogGOPS L (default 0.5us)");
  map->add_option("-o", margs->loggops.overhead, "LogGOPS o on both sides (default 0.3us)");
  map->add_option("-g", margs->loggops.gap, "LogGOPS g (default 50ns)");
  map->add_option("-G", margs->loggops.gap_per_byte, "LogGOPS G: the NIC's time per byte (default 0.1ns)");
  map->add_option("--json", margs->json, "Write the report as JSON (docs/formats/predict-mapping-json.md)");
  output_file(map->get_option("--json"));
  add_max_memory_option(*map, margs->max_memory);
  map->add_flag("-q,--quiet", margs->quiet, "No progress lines on stderr");
  map->callback([map, margs] { run_predict_mapping(*map, *margs); });

  add_predict_traffic_command(*predict);

  auto sjson = std::make_shared<std::string>();
  auto* systems = predict->add_subcommand(
      "systems", "List the system presets --system takes (name, nodes, network, title; docs/predict.md)");
  systems->add_option("--json", *sjson, "Write the list as JSON");
  output_file(systems->get_option("--json"));
  systems->callback([sjson] { run_predict_systems(*sjson); });
}

}  // namespace gridlock::cli
