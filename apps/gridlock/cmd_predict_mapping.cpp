// `gridlock predict mapping`: what a task mapping recovers under congestion
// (gridlock::predict::predict_mapping; docs/predict.md). Parses, calls the library, prints the table.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/net/system.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/predict/predict_mapping.hpp"
#include "gridlock/sim/loggops_options.hpp"
#include "memory_option.hpp"
#include "output_guard.hpp"
#include "packet_options.hpp"
#include "system_options.hpp"

namespace gridlock::cli {
namespace {

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
    options.congestor_pairs = mapping::parse_node_pairs(a.congestors, "--congestors");
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

}  // namespace

void add_predict_mapping_command(CLI::App& predict) {
  auto margs = std::make_shared<PredictMappingArgs>();
  auto* map = predict.add_subcommand(
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
}

}  // namespace gridlock::cli
