// `gridlock predict gpcnet`: GPCNeT's congestion benchmark on a simulated network
// (gridlock::predict::predict_gpcnet; docs/predict.md), and `gridlock predict systems`. Parses,
// calls the library, prints the tables; `predict mapping` and `predict traffic` have their own files.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/results_json.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/net/system.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/predict/predict_gpcnet.hpp"
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
    mapping::JobNodes job = mapping::allocate_job_nodes(machine_nodes, a.nodes, policy, a.seed);
    options.nodes = std::move(job.nodes);
    options.allocation = std::move(job.allocation);
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
  fmt::print("{}{}\n", net::values_line(options.packet, options.hop_latency_ps, options.params),
             preset ? " (the preset's unless given on the command line)" : "");
  gpcnet::print_tables(report, stdout);
}

// `gridlock predict systems`: the presets --system finds, one line each.
void run_predict_systems(const std::string& json) {
  const auto systems = net::list_systems();
  if (!json.empty()) {
    write_json_file(json, net::systems_context(), net::systems_body(systems));
  }
  fmt::print("{}", net::systems_table(systems));
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

  add_predict_mapping_command(*predict);
  add_predict_traffic_command(*predict);

  auto sjson = std::make_shared<std::string>();
  auto* systems = predict->add_subcommand(
      "systems", "List the system presets --system takes (name, nodes, network, title; docs/predict.md)");
  systems->add_option("--json", *sjson, "Write the list as JSON");
  output_file(systems->get_option("--json"));
  systems->callback([sjson] { run_predict_systems(*sjson); });
}

}  // namespace gridlock::cli
