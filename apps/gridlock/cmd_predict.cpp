// `gridlock predict gpcnet`: GPCNeT's congestion benchmark on a simulated network
// (gridlock::net::predict_gpcnet; docs/predict.md). Parses, calls the library, prints the tables.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/bench/results.hpp"
#include "gridlock/bench/results_json.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/net/predict_gpcnet.hpp"
#include "gridlock/sim/loggops_options.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct PredictGpcnetArgs {
  std::string network;
  std::string net_model = "flow";
  std::uint64_t seed = 1;
  std::uint32_t ranks_per_node = 1;
  std::uint32_t iterations = 0;
  std::uint32_t rings = 4;
  std::string hop_latency = "100ns";
  std::string routing = "minimal";
  bool congestion_control = false;
  std::string packet_size = "2KiB";
  std::string buffer = "32KiB";
  sim::LogGOPSText loggops;
  std::string json;
  bool quiet = false;
};

std::uint32_t to_u32(std::uint64_t value, const char* option) {
  if (value > 0xFFFFFFFFU) {
    throw InputError(fmt::format("{} {} bytes: at most 4 GiB", option, value));
  }
  return static_cast<std::uint32_t>(value);
}

void run_predict_gpcnet(const PredictGpcnetArgs& a) {
  net::GpcnetOptions options;
  options.network_spec = a.network;
  options.model = net::parse_model_kind(a.net_model);
  options.seed = a.seed;
  options.ranks_per_node = a.ranks_per_node;
  options.iterations = a.iterations;
  options.rings = a.rings;
  options.hop_latency_ps = parse_time_ps(a.hop_latency, "--hop-latency");
  options.packet.routing = net::parse_routing(a.routing);
  options.packet.congestion_control = a.congestion_control;
  options.packet.packet_bytes = to_u32(parse_byte_size(a.packet_size, "--packet-size"), "--packet-size");
  options.packet.buffer_bytes = to_u32(parse_byte_size(a.buffer, "--buffer"), "--buffer");
  options.params = sim::loggops_from_text(a.loggops, net::default_predict_params()).params;
  if (!a.quiet) {
    options.progress = [](std::string_view line) { fmt::print(stderr, "predict: {}\n", line); };
  }
  const bench::Report report = net::predict_gpcnet(options);
  fmt::print("gridlock predict gpcnet: {} model on {}, {} nodes x {} ranks, seed {}\n", a.net_model,
             report.context.value("network", a.network), report.context.value("nodes", 0U), a.ranks_per_node,
             a.seed);
  bench::print_tables(report, stdout);
  if (!a.json.empty()) {
    write_json_file(a.json, report.context, bench::report_body(report));
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
                  "Topology spec as `gridlock topo` takes it, e.g. dragonfly:g=9,a=4,p=2,h=2")
      ->required();
  cmd->add_option("--net-model", args->net_model, "Network model: flow (max-min fair flows) or packet")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the node shuffle and the random rings")
      ->capture_default_str();
  cmd->add_option("--ranks-per-node", args->ranks_per_node, "Ranks per node (GPCNeT's PPort)")
      ->capture_default_str();
  cmd->add_option("--iterations", args->iterations,
                  "Timed iterations per ring block of every canary (0: latency 50, BW+Sync 8, allreduce 200)")
      ->capture_default_str();
  cmd->add_option("--rings", args->rings, "Random rings of the ring canaries (GPCNeT: 30)")
      ->capture_default_str();
  cmd->add_option("--hop-latency", args->hop_latency, "Latency of each router-to-router hop")
      ->capture_default_str();
  cmd->add_option("--routing", args->routing, "Packet model: minimal, valiant or ugal (dragonfly)")
      ->capture_default_str();
  cmd->add_flag("--congestion-control", args->congestion_control,
                "Packet model: endpoint congestion control (docs/network-models.md)");
  cmd->add_option("--packet-size", args->packet_size, "Packet model: payload bytes per packet")
      ->capture_default_str();
  cmd->add_option("--buffer", args->buffer, "Packet model: buffer per input port and virtual channel")
      ->capture_default_str();
  cmd->add_option("-L", args->loggops.latency, "LogGOPS L (default 0.5us)");
  cmd->add_option("-o", args->loggops.overhead, "LogGOPS o on both sides (default 0.3us)");
  cmd->add_option("-g", args->loggops.gap, "LogGOPS g (default 50ns)");
  cmd->add_option("-G", args->loggops.gap_per_byte, "LogGOPS G: the NIC's time per byte (default 0.1ns)");
  cmd->add_option("--json", args->json, "Write the report as JSON (gridlock-bench's schema)");
  output_file(cmd->get_option("--json"));
  cmd->add_flag("-q,--quiet", args->quiet, "No progress lines on stderr");
  cmd->callback([args] { run_predict_gpcnet(*args); });
}

}  // namespace gridlock::cli
