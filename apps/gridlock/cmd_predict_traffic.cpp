// `gridlock predict traffic`: open-loop synthetic traffic on a network model, latency against
// offered load (gridlock::predict::run_traffic; docs/predict.md, "Synthetic traffic"). Parses, checks
// the bounds and the memory estimate, calls the library, prints the table.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/predict/traffic.hpp"
#include "gridlock/predict/traffic_json.hpp"
#include "gridlock/topo/spec.hpp"
#include "output_guard.hpp"
#include "packet_options.hpp"
#include "system_options.hpp"

namespace gridlock::cli {
namespace {

// Largest --max-time: 10 s of simulated time is about 5e7 packet-times of a 2 KiB packet at
// 10 GB/s, hours of wall time on any network worth simulating.
constexpr std::uint64_t kMaxTimePs = 10'000'000'000'000;

struct PredictTrafficArgs {
  std::string network;
  std::string system;
  std::string net_model = "packet";
  std::string pattern = "uniform";
  std::string load = "0.1:0.9:0.1";
  PacketOptionsText packet;
  std::uint64_t seed = 1;
  std::string max_time;
  std::string max_memory;
  std::string json;
  std::string csv;
  bool quiet = false;
  bool progress = false;
};

void run_predict_traffic(const CLI::App& cmd, const PredictTrafficArgs& a) {
  const std::optional<net::SystemPreset> preset = system_from(a.system);
  if (!preset && a.network.empty()) {
    throw InputError(
        "predict traffic: give --network SPEC or --system NAME (gridlock predict systems lists them)");
  }
  predict::TrafficOptions options;
  options.network_spec = preset ? preset->network_spec : a.network;
  options.model = net::parse_model_kind(a.net_model);
  options.pattern = predict::parse_pattern(a.pattern);
  options.loads = predict::parse_loads(a.load);
  options.packet = packet_options_with(cmd, a.packet, preset);
  options.hop_latency_ps = hop_latency_with(cmd, a.packet.hop_latency, preset);
  options.seed = a.seed;
  if (!a.max_time.empty()) {
    options.max_time_ps = parse_time_ps(a.max_time, "--max-time");
    if (options.max_time_ps == 0 || options.max_time_ps > kMaxTimePs) {
      throw InputError(
          fmt::format("--max-time {}: give more than 0 and at most 10s of simulated time "
                      "(docs/limits.md)",
                      a.max_time));
    }
  }
  {
    // The topology is built twice (here and in run_traffic): cheap next to the runs, and the
    // estimate refuses before anything large is allocated.
    const auto topology = topo::make_topology(options.network_spec);
    MemoryBudget budget(a.max_memory.empty() ? default_max_memory_bytes() : parse_max_memory(a.max_memory));
    budget.reserve(
        predict::traffic_memory_estimate(options, topology->nodes().size(), topology->links().size()),
        fmt::format("synthetic traffic on {} nodes", topology->nodes().size()),
        "a smaller network or --buffer");
  }
  if (a.progress) {
    options.progress = [](std::string_view line) { fmt::print(stderr, "predict traffic: {}\n", line); };
  }
  const predict::TrafficReport report = predict::run_traffic(options);
  // The files first, each written whole (atomically), then stdout.
  if (!a.json.empty() || !a.csv.empty()) {
    Json context = predict::traffic_context(report, options);
    if (preset) {
      context["system"] = net::system_json(*preset);
    }
    if (!a.json.empty()) {
      write_json_file(a.json, context, predict::traffic_body(report));
    }
    if (!a.csv.empty()) {
      write_file_atomic(a.csv, predict::traffic_csv(report, context));
    }
  }
  if (!a.quiet) {
    fmt::print("gridlock predict traffic: {}, {} model, pattern {}, seed {}\n", report.network, a.net_model,
               report.pattern, a.seed);
    if (preset) {
      fmt::print("{}\n", system_line(*preset));
    }
    fmt::print("{}\n", report.model);
    fmt::print("{}; {} of {} nodes send; injection {} per node, packet-time {}\n", report.pattern_description,
               report.senders, report.nodes, format_rate(report.injection_bytes_per_s),
               format_time_ps(report.packet_time_ps));
  }
  fmt::print("{}", predict::traffic_table(report));
}

}  // namespace

void add_predict_traffic_command(CLI::App& predict) {
  auto args = std::make_shared<PredictTrafficArgs>();
  auto* cmd = predict.add_subcommand(
      "traffic",
      "Open-loop synthetic traffic on a simulated network: latency and accepted throughput against offered "
      "load, and the saturation throughput (docs/predict.md, \"Synthetic traffic\")");
  cmd->add_option("--network", args->network,
                  "Topology spec as `gridlock topo` takes it, e.g. dragonfly:g=9,a=4,p=2,h=2 (or --system)");
  add_system_option(*cmd, args->system);
  cmd->add_option("--net-model", args->net_model, "Network model: packet or flow")->capture_default_str();
  cmd->add_option("--pattern", args->pattern, "uniform, randperm, shift:K, worst-case, hotspot:N or incast:N")
      ->capture_default_str();
  cmd->add_option(
         "--load", args->load,
         "Offered loads, fractions of the injection bandwidth in (0, 1]: 0.5, 0.1,0.3,0.5 or A:B:STEP")
      ->capture_default_str();
  add_packet_model_options(*cmd, args->packet, true, false);
  cmd->add_option("--seed", args->seed, "Seed of the generation, the pattern and the routing choices")
      ->capture_default_str();
  cmd->add_option("--max-time", args->max_time,
                  "Simulated time per load at most for warm-up and measurement, e.g. 2ms (default: the batch "
                  "cap)");
  cmd->add_option("--max-memory", args->max_memory,
                  "Refuse a run whose estimate exceeds this (bytes or % of RAM; default 80%)");
  cmd->add_option("--json", args->json, "Write the curve as JSON (docs/formats/predict-traffic-json.md)");
  output_file(cmd->get_option("--json"));
  cmd->add_option(
      "--csv", args->csv,
      "Write the curve as CSV, one row per load (context as # lines; docs/formats/predict-traffic-json.md)");
  output_file(cmd->get_option("--csv"));
  cmd->add_flag("-q,--quiet", args->quiet, "Only the table");
  cmd->add_flag("--progress", args->progress, "One line per load on stderr");
  cmd->callback([cmd, args] { run_predict_traffic(*cmd, *args); });
}

}  // namespace gridlock::cli
