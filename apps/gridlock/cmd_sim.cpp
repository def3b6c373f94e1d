// `gridlock sim`, `gridlock schedgen`, `gridlock schedule convert|info`: the LogGOPS simulator.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "closed_stdout.hpp"
#include "commands.hpp"
#include "distinct_outputs.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/progress.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/net/report.hpp"
#include "gridlock/net/report_json.hpp"
#include "gridlock/net/system.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/noise.hpp"
#include "gridlock/sim/replica_report.hpp"
#include "gridlock/sim/replica_report_json.hpp"
#include "gridlock/sim/replica_study.hpp"
#include "gridlock/sim/replicas.hpp"
#include "gridlock/sim/run_report.hpp"
#include "gridlock/sim/run_report_json.hpp"
#include "gridlock/sim/schedule_info.hpp"
#include "gridlock/sim/schedule_info_json.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/trace/from_trace.hpp"
#include "gridlock/trace/otf2_reader.hpp"
#include "memory_option.hpp"
#include "noise_options.hpp"
#include "output_guard.hpp"
#include "placement_options.hpp"
#include "sim_options.hpp"
#include "system_options.hpp"

namespace gridlock::cli {
namespace {

// Ordered by size (strings, 8-byte, 4-byte, flags): clang-analyzer's padding check.
struct SimArgs {
  std::string schedule;
  std::string program;
  std::string ranks;  // One count, or a list of scales for --replicas.
  NoiseText noise;
  std::string event_order = "auto";
  std::string csv;
  std::string svg;
  SimModelText model;
  std::string json;
  std::string timeline;
  // --network and the options that go with it (docs/network-models.md, "Using the models").
  std::string network;
  // --system: a machine preset (docs/predict.md, "System presets") sets the network and the
  // defaults of the options below that were not given (`given`).
  std::string system;
  std::optional<net::SystemPreset> preset;
  std::set<std::string> given;
  std::string net_model = "flow";
  std::string placement = "identity";
  std::string hop_latency = "0";
  std::string packet_size = "2KiB";  // --net-model packet
  std::string buffer = "32KiB";      // --net-model packet
  std::string routing = "minimal";   // --net-model packet
  std::string max_memory;
  std::uint64_t seed = 1;
  std::uint64_t replicas = 0;
  std::optional<double> bottleneck_slowdown_pct;  // --replicas: noise-bottleneck threshold, percent
  unsigned threads = 0;
  std::uint32_t ranks_per_node = 1;  // --network: identity and random placements
  std::uint32_t vcs = 3;             // --net-model packet
  bool replicas_given = false;       // --replicas was on the command line (0 is an error, not "off")
  bool quiet = false;
  bool progress = false;  // --progress: progress lines on stderr even when it is not a terminal
  bool per_rank = false;
  bool network_given = false;         // --network was on the command line (an empty spec is an error)
  bool spread = false;                // per-message route spread (flow model)
  bool congestion_control = false;    // --net-model packet
  bool packet_options_given = false;  // any of packet_size, buffer, vcs, routing, congestion_control given
};

struct SchedgenArgs {
  std::string program;
  std::string max_memory;
  std::uint32_t ranks = 0;
  std::uint64_t seed = 1;
  std::string output;
  bool progress = false;
};

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string max_memory;
};

struct InfoArgs {
  std::string input;
  std::string json;
  std::string max_memory;
  std::uint32_t top = 10;
};

using sim::kNoiseSeedStream;

// A run on a simulated network: what --network and its options set up. Everything but the
// placement (which needs the schedule's rank count) is checked before the schedule is read.
struct NetworkRun {
  net::ModelKind kind = net::ModelKind::kFlow;
  net::NetworkParams params;
  net::PlacementChoice placement;
  net::PacketOptions packet;
  std::string spec;  // --network (or the --system preset's)
  // The whole topology, built before the schedule is read; or, where the spec has parts, the part
  // the placement uses, built with it (place_network_run()).
  std::shared_ptr<const topo::Topology> topology;
  std::shared_ptr<const net::Network> network;
  std::unique_ptr<net::Model> model;
};

std::uint32_t checked_u32(std::uint64_t value, std::string_view what) {
  if (value > 0xFFFFFFFFU) {
    throw InputError(fmt::format("{} {} bytes: at most 4 GiB", what, value));
  }
  return static_cast<std::uint32_t>(value);
}

NetworkRun prepare_network_run(const SimArgs& a, MemoryBudget& budget) {
  NetworkRun run;
  run.kind = net::parse_model_kind(a.net_model);
  const auto from_preset = [&a](const char* option) { return a.preset && a.given.count(option) == 0; };
  run.params.hop_latency_ps =
      from_preset("--hop-latency") ? a.preset->hop_latency_ps : parse_time_ps(a.hop_latency, "--hop-latency");
  // A bound far above any router (100 ns) keeps hops x latency and the times after it inside the
  // engine's 64-bit picoseconds: the flow model adds them without an overflow check.
  if (run.params.hop_latency_ps > net::kMaxHopLatencyPs) {
    throw InputError(
        fmt::format("--hop-latency {}: at most 1 s per hop (routers take about 100ns)", a.hop_latency));
  }
  run.params.spread = a.spread;
  run.params.spread_seed = a.seed;
  run.placement.spec = net::parse_placement_spec(a.placement);
  run.placement.ranks_per_node = a.ranks_per_node;
  run.placement.seed = a.seed;
  if (a.packet_options_given && run.kind != net::ModelKind::kPacket) {
    throw InputError(
        "--packet-size, --buffer, --vcs, --routing and --congestion-control configure the packet model: "
        "add --net-model packet");
  }
  run.packet.packet_bytes =
      from_preset("--packet-size")
          ? a.preset->packet.packet_bytes
          : checked_u32(parse_byte_size(a.packet_size, "--packet-size"), "--packet-size");
  run.packet.buffer_bytes = from_preset("--buffer")
                                ? a.preset->packet.buffer_bytes
                                : checked_u32(parse_byte_size(a.buffer, "--buffer"), "--buffer");
  run.packet.vcs = from_preset("--vcs") ? a.preset->packet.vcs : a.vcs;
  run.packet.routing = from_preset("--routing") ? a.preset->packet.routing : net::parse_routing(a.routing);
  run.packet.congestion_control =
      from_preset("--congestion-control") ? a.preset->packet.congestion_control : a.congestion_control;
  run.packet.seed = a.seed;
  if (run.kind == net::ModelKind::kPacket) {
    net::check_packet_sizes(run.packet);
  }
  run.spec = a.network;
  if (topo::has_topology_parts(a.network)) {
    // Only the part the placement uses is built, once the schedule gives the rank count; the
    // spec's formulas check it now.
    (void)topo::topology_info(a.network);
    return run;
  }
  run.topology = make_whole_topology(a.network, budget);
  return run;
}

void place_network_run(NetworkRun& run, std::uint32_t ranks, MemoryBudget& budget) {
  const auto reserve_model = [&] {
    budget.reserve(
        net::estimate_model_bytes(run.kind, run.topology->links().size(), ranks, run.packet),
        fmt::format("the {} model on {} for {} ranks", net::to_string(run.kind), run.topology->spec(), ranks),
        "give a smaller --network (or, for the packet model, a smaller --buffer)");
  };
  net::Placement placement;
  if (run.topology) {
    reserve_model();
    placement = make_placement(*run.topology, ranks, run.placement.spec, run.placement.ranks_per_node,
                               run.placement.seed);
  } else {
    // The model's state is per link of the part.
    PlacedTopology placed = make_placed_topology(run.spec, ranks, run.placement.spec,
                                                 run.placement.ranks_per_node, run.placement.seed, budget);
    run.topology = std::move(placed.topology);
    placement = std::move(placed.placement);
    reserve_model();
  }
  run.network = std::make_shared<const net::Network>(run.topology, std::move(placement), run.params);
  run.model = net::make_model(run.kind, run.network, run.packet);
}

noise::NoiseSpec noise_spec_of(const SimArgs& a) {
  noise::NoiseSpec spec = noise_spec_from(a.noise);
  if (spec.kind != noise::NoiseSpec::Kind::kNone) {
    return spec;
  }
  if (a.model.loggops.noise_rule) {
    throw InputError(fmt::format("--noise-rule needs noise: {}", cli::kHowToGiveNoise));
  }
  if (a.noise.cosched || a.replicas_given) {
    const char* needing = a.noise.cosched && a.replicas_given ? "--noise-cosched and --replicas need"
                          : a.noise.cosched                   ? "--noise-cosched needs"
                                                              : "--replicas needs";
    throw InputError(fmt::format("{} noise: {}", needing, cli::kHowToGiveNoise));
  }
  return spec;
}

sim::Schedule load_or_generate(const std::string& schedule, const std::string& program, std::uint32_t ranks,
                               std::uint64_t seed, MemoryBudget& budget, bool keep_sources = true) {
  if (schedule.empty() == program.empty()) {
    throw InputError("give either a schedule file or --program SPEC (with --ranks), not both or neither");
  }
  if (!program.empty()) {
    if (ranks == 0) {
      throw InputError("--program needs --ranks N (N >= 1)");
    }
    budget.reserve(saturating_add(sim::estimate_simulation_bytes(ranks, 0),
                                  sim::estimate_schedule_rank_bytes(ranks, false)),
                   fmt::format("--program on --ranks {}", ranks), "give fewer --ranks");
    // Generating takes time in the operations (ranks that share a program still build it) and the
    // simulation memory: checked from the spec's formulas first. The caller reserves the real count.
    const std::uint64_t ops = sim::estimate_program_ops(program, ranks, seed);
    MemoryBudget check = budget;
    check.reserve(sim::estimate_simulation_bytes(0, ops),
                  fmt::format("simulating about {} operations of --program '{}' on --ranks {}", ops,
                              printable_excerpt(program), ranks),
                  "give fewer --ranks or a smaller --program");
    return sim::generate(program, ranks, seed);
  }
  if (ranks != 0) {
    throw InputError(
        fmt::format("--ranks is for --program: the schedule file {} sets its own rank count", schedule));
  }
  return sim::load_schedule(schedule, keep_sources, &budget, sim::kSimulationBytesPerRank);
}

// Progress on stderr: on a terminal unless -q, and with --progress in batch logs too.
bool show_progress(const SimArgs& a) { return !a.quiet && (a.progress || Progress::stderr_is_terminal()); }

// True when this process is one of several ranks of an MPI job (Open MPI, MPICH/PMI).
bool under_mpi_job() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read once at start-up
    if (v != nullptr && std::strtol(v, nullptr, 10) > 1) {
      return true;
    }
  }
  return false;
}

// The study's table on standard output, stopped quietly once standard output is closed (`| head`):
// the study goes on and its files are written; main() then ends as a closed pipe does.
class StdoutTableReporter final : public sim::ReplicaReporter {
 public:
  explicit StdoutTableReporter(sim::ReplicaReporter& table) : table_(table) {}
  void study_started(const sim::ReplicaStudyInfo& info) override {
    guard([&] { table_.study_started(info); });
  }
  void scale_started(std::uint32_t ranks) override {
    guard([&] { table_.scale_started(ranks); });
  }
  void scale_finished(const sim::ReplicaStudyResult& so_far) override {
    guard([&] { table_.scale_finished(so_far); });
  }
  void study_finished(const sim::ReplicaStudyResult& result) override {
    guard([&] { table_.study_finished(result); });
  }

 private:
  void guard(const std::function<void()>& call) {
    if (closed_) {
      return;
    }
    try {
      call();
    } catch (const std::system_error& e) {
      if (!is_broken_pipe(e)) {
        throw;
      }
      closed_ = true;
    }
  }
  sim::ReplicaReporter& table_;
  bool closed_ = false;
};

// `gridlock sim --replicas K --ranks P1,P2,...`: the Monte-Carlo study (paper §IV, Figs. 5-7).
void run_replica_study(const SimArgs& a, const sim::SimOptions& options, const noise::NoiseSpec& spec,
                       double network_scale) {
  if (under_mpi_job()) {
    throw InputError(
        "gridlock sim --replicas is serial (with --threads); under mpirun every rank would repeat the same "
        "study. Run it without mpirun, or spread the replicas over the ranks with `mpirun gridlock-bench "
        "sim-replicas` (same options, same results)");
  }
  sim::check_replica_count(a.replicas);
  sim::check_thread_count(a.threads);
  if (!a.timeline.empty()) {
    throw InputError("--timeline is for single runs, not --replicas");
  }
  sim::ReplicaStudySpec study_spec;
  study_spec.program = a.program;
  study_spec.schedule_path = a.schedule;
  study_spec.scales = sim::parse_scales(a.ranks);
  {
    // The largest scale's schedule and one simulation per thread at a time (their operations are
    // counted when the schedules are built).
    const std::uint64_t largest =
        study_spec.scales.empty() ? 0 : *std::max_element(study_spec.scales.begin(), study_spec.scales.end());
    const std::uint64_t threads =
        a.threads > 0 ? a.threads : std::max(1U, std::thread::hardware_concurrency());
    MemoryBudget budget(max_memory_from(a.max_memory));
    // A program's operations from its formulas (a schedule file's are counted as it is read).
    const std::uint64_t ops =
        a.program.empty() || largest == 0
            ? 0
            : sim::estimate_program_ops(a.program, static_cast<std::uint32_t>(largest), a.seed);
    budget.reserve(
        saturating_add(
            sim::estimate_schedule_rank_bytes(largest, false),
            saturating_mul(std::min(threads, a.replicas), sim::estimate_simulation_bytes(largest, ops))),
        fmt::format("--replicas on {} ranks with {} threads{}", largest, std::min(threads, a.replicas),
                    ops == 0 ? std::string() : fmt::format(" (about {} operations each)", ops)),
        "give fewer --ranks or --threads, or a smaller --program");
  }
  study_spec.seed = a.seed;
  study_spec.replicas = a.replicas;
  study_spec.options = options;
  study_spec.network_scale = network_scale;
  study_spec.noise = spec;
  study_spec.cosched = a.noise.cosched;
  study_spec.bottleneck_threshold = a.bottleneck_slowdown_pct.value_or(100.0) / 100.0;
  const sim::ReplicaStudy study(std::move(study_spec));
  for (const std::string* path : {&a.json, &a.csv, &a.svg}) {
    if (!path->empty()) {
      check_writable(*path);
    }
  }
  // No more threads than replicas (run_replicas would not start them): the count printed is the count used.
  const unsigned wanted = a.threads > 0 ? a.threads : std::max(1U, std::thread::hardware_concurrency());
  const auto threads = static_cast<unsigned>(std::min<std::uint64_t>(wanted, a.replicas));
  sim::ThreadReplicaRunner runner(threads, a.threads > threads
                                               ? fmt::format(" (--threads {}: one per replica)", a.threads)
                                               : std::string());
  Progress progress(show_progress(a), Progress::stderr_is_terminal());
  std::mutex print_mutex;
  if (progress.enabled()) {
    runner.progress = [&](std::uint32_t ranks, std::uint64_t done, std::uint64_t total) {
      if (done % 16 == 0 || done == total) {
        const std::lock_guard<std::mutex> lock(print_mutex);
        progress.update(fmt::format("{} ranks: {}/{} replicas", ranks, done, total));
      }
    };
  }
  sim::ConsoleReplicaReporter console(stdout);
  console.on_scale_started = [&](std::uint32_t ranks) {
    progress.phase(fmt::format("{} ranks: schedule and noiseless run...", ranks));
  };
  console.on_scale_finished = [&] { progress.clear(); };
  const Json context = sim::study_context("gridlock sim", study.spec(), study.pattern());
  std::vector<std::unique_ptr<sim::ReplicaReporter>> files = sim::file_reporters(
      a.json, a.csv, a.svg, context,
      sim::study_title(a.program.empty() ? a.schedule : a.program, spec, study.pattern(), a.noise.cosched));
  StdoutTableReporter table(console);
  std::vector<sim::ReplicaReporter*> reporters{&table};
  for (const auto& f : files) {
    reporters.push_back(f.get());
  }
  (void)study.run(runner, reporters);
}

// The run's result files (JSON, timeline) and then its text on stdout; a run that did not
// complete ends with its stuck report after the JSON is written.
void report_sim_run(const SimArgs& a, const sim::RunInfo& info, const sim::SimResult& result,
                    const std::optional<NetworkRun>& network_run) {
  Json context = sim::run_context(info);
  if (a.preset) {
    context["system"] = net::system_json(*a.preset);
  }
  std::optional<net::NetReport> net_report;
  std::string net_description;
  if (network_run.has_value()) {
    net_report =
        net::make_net_report(*network_run->network, network_run->model->stats(), result.max_finish.ps);
    net_description = fmt::format("{}, hop latency {}", network_run->model->describe(),
                                  format_time_ps(network_run->network->params().hop_latency_ps));
  }
  if (!a.json.empty()) {
    if (net_report.has_value()) {
      net::write_run_json(
          a.json, context, result, a.per_rank,
          net::network_json(*network_run->network, network_run->placement, net_description, *net_report));
    } else {
      sim::write_run_json(a.json, context, result, a.per_rank);
    }
  }
  if (!result.complete) {
    throw InputError(sim::stuck_report(result));
  }
  if (!a.timeline.empty()) {
    sim::write_timeline(a.timeline, result, info.ranks, context);
  }
  sim::print_run(stdout, info, result, a.per_rank);
  if (a.preset) {
    fmt::print("{}\n", system_line(*a.preset));
  }
  if (net_report.has_value()) {
    net::print_net_report(stdout, *net_report, net_description);
  }
}

void run_sim(const SimArgs& a) {
  check_distinct_outputs(
      {{"--json", a.json}, {"--timeline", a.timeline}, {"--csv", a.csv}, {"--svg", a.svg}});
  // The engine records a timeline in the global order only; an explicit windowed order ran global.
  if (a.event_order == "windowed" && !a.timeline.empty()) {
    throw InputError(
        "--event-order windowed and --timeline: a timeline is recorded in the global order only (host by "
        "host, its slices would come out of order); leave out --event-order or give global");
  }
  sim::SimOptions options;
  const sim::LogGOPSChoice model =
      sim_model_from(a.model, "gridlock sim", a.quiet, a.preset ? &a.preset->params : nullptr);
  options.params = model.params;
  options.noise_rule = model.noise_rule;
  options.event_order = a.event_order == "global"     ? sim::EventOrder::kGlobal
                        : a.event_order == "windowed" ? sim::EventOrder::kWindowed
                                                      : sim::EventOrder::kAuto;
  if (!a.json.empty()) {
    check_writable(a.json);
  }
  if (!a.timeline.empty()) {
    check_writable(a.timeline);
  }
  const noise::NoiseSpec spec = noise_spec_of(a);
  if (a.network_given && a.network.empty()) {
    throw InputError(
        "--network '': give a topology spec, e.g. dragonfly:g=9,a=4,p=2,h=2 (docs/topologies.md)");
  }
  if (a.replicas_given && !a.network.empty()) {
    throw InputError(
        "--network is for single runs, not --replicas: simulate one scale on the network at a time "
        "(leave out --replicas)");
  }
  MemoryBudget budget(max_memory_from(a.max_memory));
  std::optional<NetworkRun> network_run;
  if (!a.network.empty()) {
    network_run = prepare_network_run(a, budget);
  }
  if (a.replicas_given) {
    run_replica_study(a, options, spec, model.network_scale);
    return;
  }
  if (a.bottleneck_slowdown_pct.has_value()) {
    throw InputError(
        "--bottleneck-slowdown is for Monte-Carlo studies: add --replicas K and a list of --ranks");
  }
  const std::vector<std::uint32_t> rank_list = sim::parse_scales(a.ranks);
  if (rank_list.size() > 1) {
    throw InputError("a list of --ranks is for --replicas K; give one rank count for a single run");
  }
  // A million-rank run takes seconds to minutes: say what is happening, on a terminal only.
  Progress progress(show_progress(a), Progress::stderr_is_terminal());
  const std::uint32_t ranks = rank_list.empty() ? 0 : rank_list[0];
  progress.phase(a.program.empty() ? fmt::format("loading {}...", a.schedule)
                                   : fmt::format("generating {} on {} ranks...", a.program, ranks));
  // Line numbers and labels serve only a deadlock report: read without them, and read the file
  // again in the rare run that needs them (a third of the reading time of a large GOAL file).
  const sim::Schedule schedule =
      load_or_generate(a.schedule, a.program, ranks, a.seed, budget, /*keep_sources=*/false);
  // The per-rank part was reserved with the schedule.
  budget.reserve(
      sim::estimate_simulation_bytes(0, schedule.total_ops()),
      fmt::format("simulating {} operations on {} ranks", schedule.total_ops(), schedule.num_ranks()),
      "give a smaller schedule");
  if (progress.enabled()) {
    progress.phase(fmt::format("simulating {} operations...", schedule.total_ops()));
    options.progress = [&progress](const sim::SimProgress& p) {
      progress.update(fmt::format(
          "simulating{}: {:.1f}% of {} operations done, {} events, simulated time {}",
          p.rerun ? " again in global order" : "",
          p.ops_total > 0 ? 100.0 * static_cast<double>(p.ops_completed) / static_cast<double>(p.ops_total)
                          : 100.0,
          p.ops_total, p.events, format_time_ps(p.now.ps)));
    };
  }
  noise::DetourPattern pattern;
  sim::NoiseInjection injection;
  if (spec.kind != noise::NoiseSpec::Kind::kNone) {
    pattern = noise::make_pattern(spec, derive_seed(a.seed, kNoiseSeedStream + 1));
    injection = sim::make_noise_injection(pattern, schedule.num_ranks(),
                                          derive_seed(a.seed, kNoiseSeedStream), 0, a.noise.cosched);
    options.noise = &injection;
  }
  if (!a.timeline.empty()) {
    sim::check_timeline_ops(schedule.total_ops());
    options.record_timeline = true;
    // One more than the limit, so that a longer timeline (which the engine would cut) is told apart.
    options.max_timeline_slices = sim::kMaxTimelineSlices + 1;
  }
  if (network_run.has_value()) {
    place_network_run(*network_run, schedule.num_ranks(), budget);
    options.network = network_run->model.get();
  }
  sim::SimResult result = sim::simulate(schedule, options);
  if (!result.complete && !a.schedule.empty()) {
    sim::describe_stuck_ops(result, sim::load_schedule(a.schedule));
  }
  if (options.record_timeline) {
    sim::check_timeline_slices(result);
  }
  progress.clear();

  sim::RunInfo info;
  info.schedule_path = a.schedule;
  info.program = a.program;
  info.seed = a.seed;
  info.ranks = schedule.num_ranks();
  info.params = options.params;
  info.network_scale = model.network_scale;
  if (options.noise != nullptr) {
    info.noise = sim::RunNoise{spec, &pattern, a.noise.cosched, options.noise_rule};
  }
  report_sim_run(a, info, result, network_run);
}

void run_schedgen(const SchedgenArgs& a) {
  check_writable(a.output);
  Progress progress(a.progress || Progress::stderr_is_terminal(), Progress::stderr_is_terminal());
  progress.phase(fmt::format("generating {} on {} ranks...", a.program, a.ranks));
  MemoryBudget budget(max_memory_from(a.max_memory));
  budget.reserve(sim::estimate_schedule_rank_bytes(a.ranks, false), fmt::format("--ranks {}", a.ranks),
                 "give fewer --ranks");
  const sim::Schedule schedule = sim::generate(a.program, a.ranks, a.seed);
  progress.phase(fmt::format("writing {}: {} operations...", a.output, schedule.total_ops()));
  sim::save_schedule(schedule, a.output);
  progress.clear();
  fmt::print(
      "wrote {}: {} ranks, {} operations, {} messages, {} distinct programs, {} without their peers ({}, "
      "seed {})\n",
      a.output, schedule.num_ranks(), schedule.total_ops(), schedule.total_sends(),
      schedule.programs_with_peers().first_rank.size(), schedule.programs().size(), a.program, a.seed);
}

void run_convert(const ConvertArgs& a) {
  check_writable(a.output);
  MemoryBudget budget(max_memory_from(a.max_memory));
  const sim::Schedule schedule = sim::load_schedule(a.input, true, &budget);
  sim::save_schedule(schedule, a.output);
  fmt::print("wrote {}: {} ranks, {} operations\n", a.output, schedule.num_ranks(), schedule.total_ops());
}

void run_info(const InfoArgs& a) {
  if (!a.json.empty()) {
    check_writable(a.json);
  }
  sim::ScheduleInfoOptions options;
  options.top_pairs = a.top;
  sim::Schedule schedule;
  if (trace::is_otf2_path(a.input)) {
    // A trace is described as the schedule `schedule from-trace` makes of it, with each rank's
    // traced wall time for the compute share; what a conversion leaves out is said, not refused.
    const std::unique_ptr<trace::TraceReader> reader = trace::open_otf2(a.input);
    trace::ConvertOptions convert;
    convert.drop_unmatched = true;
    trace::ConvertedTrace converted = trace::convert_trace(*reader, convert);
    schedule = std::move(converted.schedule);
    options.source_kind = "otf2";
    for (const std::uint64_t ns : converted.report.wall_ns) {
      options.wall_ps.push_back(ns * 1000);
    }
    for (const auto& [reason, count] : converted.report.skipped) {
      fmt::print(stderr, "gridlock: note: {} left out of the trace's schedule: {}\n", count, reason);
    }
  } else {
    MemoryBudget budget(max_memory_from(a.max_memory));
    schedule = sim::load_schedule(a.input, /*keep_sources=*/false, &budget);
    options.source_kind = sim::schedule_file_kind(a.input);
  }
  const sim::ScheduleInfo info = sim::summarize(schedule, options);
  if (!a.json.empty()) {
    sim::write_schedule_info_json(a.json, sim::schedule_info_context("gridlock schedule info", a.input, info),
                                  info);
  }
  fmt::print("{}", sim::format_schedule_info(info, a.input));
}

// The options of a run on a network model (docs/network-models.md), in the order --help lists them.
void add_sim_network_options(CLI::App& sim_cmd, SimArgs& args) {
  sim_cmd.add_option("--network", args.network,
                     "Simulate on this network (a topology spec as `gridlock topo` takes it, e.g. "
                     "dragonfly:g=9,a=4,p=2,h=2): messages share links (docs/network-models.md)");
  sim_cmd.add_option("--net-model", args.net_model, "With --network: flow (max-min fair flows) or packet")
      ->capture_default_str();
  sim_cmd
      .add_option("--placement", args.placement,
                  "With --network: identity, random (nodes shuffled with --seed) or rankfile:FILE")
      ->capture_default_str();
  sim_cmd
      .add_option("--ranks-per-node", args.ranks_per_node,
                  "With --network and an identity or random placement: ranks on each node")
      ->check(CLI::Range(1U, 4096U))
      ->capture_default_str();
  sim_cmd
      .add_option("--hop-latency", args.hop_latency,
                  "With --network: latency of each router-to-router hop, e.g. 100ns")
      ->capture_default_str();
  sim_cmd.add_option("--packet-size", args.packet_size, "With --net-model packet: payload bytes per packet")
      ->capture_default_str();
  sim_cmd
      .add_option("--buffer", args.buffer,
                  "With --net-model packet: buffer per input port and virtual channel, in bytes")
      ->capture_default_str();
  sim_cmd.add_option("--vcs", args.vcs, "With --net-model packet: virtual channels per link (1-8)")
      ->capture_default_str();
  sim_cmd
      .add_option("--routing", args.routing,
                  "With --net-model packet: minimal, valiant or ugal (valiant and ugal: dragonfly only)")
      ->capture_default_str();
  sim_cmd.add_flag("--spread", args.spread,
                   "With --network: each message takes one of the topology's minimal routes, drawn with "
                   "--seed (flow model)");
  sim_cmd.add_flag("--congestion-control", args.congestion_control,
                   "With --net-model packet: endpoint congestion control (rate halved on marks)");
}

// The sim command's checks after parsing: options of a network run need --network or --system,
// the preset is read, and what was given is noted (a preset's values are defaults only).
void finish_sim_args(SimArgs& args, const CLI::App& sim_cmd) {
  // Checked here rather than with CLI11's needs(): either --network or --system will do.
  const bool network = sim_cmd.count("--network") > 0 || sim_cmd.count("--system") > 0;
  args.given.clear();
  for (const char* name : {"--net-model", "--placement", "--ranks-per-node", "--hop-latency", "--packet-size",
                           "--buffer", "--vcs", "--routing", "--congestion-control", "--spread"}) {
    if (sim_cmd.count(name) > 0) {
      if (!network) {
        throw InputError(fmt::format("{} requires --network (or --system)", name));
      }
      args.given.insert(name);
    }
  }
  args.preset = system_from(args.system);
  if (args.preset) {
    args.network = args.preset->network_spec;
  }
  args.replicas_given = sim_cmd.count("--replicas") > 0;
  args.network_given = sim_cmd.count("--network") > 0 || args.preset.has_value();
  args.packet_options_given = false;
  for (const char* name : {"--packet-size", "--buffer", "--vcs", "--routing", "--congestion-control"}) {
    args.packet_options_given = args.packet_options_given || sim_cmd.count(name) > 0;
  }
}

// `gridlock sim`.
void add_sim_command(CLI::App& app) {
  auto sim_args = std::make_shared<SimArgs>();
  auto* sim_cmd =
      app.add_subcommand("sim", "Simulate a GOAL schedule with the LogGOPS model (LogGOPSim semantics)");
  sim_cmd->add_option("schedule", sim_args->schedule, "Schedule file (GOAL text or .gsched binary)");
  sim_cmd->add_option("--program", sim_args->program,
                      "Generate the schedule in memory instead (see schedgen)");
  sim_cmd->add_option("--ranks", sim_args->ranks, "Ranks for --program (with --replicas: a list P1,P2,...)");
  sim_cmd->add_option("--seed", sim_args->seed, "Seed for --program and the noise phases (printed)")
      ->capture_default_str();
  add_noise_model_options(*sim_cmd, sim_args->noise);
  sim_cmd->add_option("--replicas", sim_args->replicas,
                      "Monte-Carlo study: K replicas with different noise phases per scale (--ranks list)");
  sim_cmd->add_option(
      "--bottleneck-slowdown", sim_args->bottleneck_slowdown_pct,
      "With --replicas: median slowdown (percent) from which on noise counts as the bottleneck "
      "(default 100)");
  sim_cmd->add_option("--threads", sim_args->threads,
                      "Threads for --replicas (default: all cores; at most 1024, and one per replica)");
  sim_cmd->add_option("--csv", sim_args->csv, "With --replicas: write one CSV row per scale");
  output_file(sim_cmd->get_option("--csv"));
  sim_cmd->add_option("--svg", sim_args->svg, "With --replicas: draw the box plot of every scale (SVG)");
  output_file(sim_cmd->get_option("--svg"));
  sim_cmd->add_flag("-q,--quiet", sim_args->quiet, "No progress on stderr");
  sim_cmd->add_flag("--progress", sim_args->progress,
                    "Progress lines on stderr (every 10 s) even when it is not a terminal, for batch jobs");
  add_sim_model_options(*sim_cmd, sim_args->model);
  sim_cmd
      ->add_option("--event-order", sim_args->event_order,
                   "auto, global (LogGOPSim's, one event at a time) or windowed (host by host); same results")
      ->check(CLI::IsMember({"auto", "global", "windowed"}))
      ->capture_default_str();
  sim_cmd->add_flag("--per-rank", sim_args->per_rank, "Print (and write to --json) every rank's finish time");
  sim_cmd->add_option("--json", sim_args->json, "Write the result as JSON with a context block");
  output_file(sim_cmd->get_option("--json"));
  sim_cmd->add_option("--timeline", sim_args->timeline, "Write a Chrome trace-event timeline (small runs)");
  output_file(sim_cmd->get_option("--timeline"));
  add_sim_network_options(*sim_cmd, *sim_args);
  add_max_memory_option(*sim_cmd, sim_args->max_memory);
  // Options that only mean something beside another are refused alone rather than ignored.
  sim_cmd->get_option("--csv")->needs("--replicas");
  sim_cmd->get_option("--svg")->needs("--replicas");
  sim_cmd->get_option("--threads")->needs("--replicas");
  sim_cmd->get_option("--per-rank")->excludes("--replicas");
  add_system_option(*sim_cmd, sim_args->system);
  sim_cmd->callback([sim_args, sim_cmd] {
    finish_sim_args(*sim_args, *sim_cmd);
    run_sim(*sim_args);
  });
}

// `gridlock schedgen`.
void add_schedgen_command(CLI::App& app) {
  auto gen_args = std::make_shared<SchedgenArgs>();
  auto* gen = app.add_subcommand("schedgen", "Generate a schedule (collectives, halos, compositions)");
  gen->add_option("--program", gen_args->program,
                  "Program spec, e.g. '10x[allreduce(size=8B); calc(time=5us)]'")
      ->required();
  gen->add_option("--ranks", gen_args->ranks, "Number of ranks")
      ->required()
      ->check(CLI::Range(1U, sim::kMaxRanks));
  gen->add_option("--seed", gen_args->seed, "Seed for random patterns (printed)")->capture_default_str();
  gen->add_option("-o,--output", gen_args->output,
                  "Output file: .gsched (any case) for binary, anything else GOAL text")
      ->required();
  output_file(gen->get_option("--output"));
  gen->add_flag("--progress", gen_args->progress,
                "Say on stderr when generating and writing start, even when it is not a terminal");
  add_max_memory_option(*gen, gen_args->max_memory);
  gen->footer(sim::generator_help());
  gen->callback([gen_args] { run_schedgen(*gen_args); });
}

// `gridlock schedule convert|from-trace|info`.
void add_schedule_commands(CLI::App& app) {
  auto conv_args = std::make_shared<ConvertArgs>();
  auto* schedule = app.add_subcommand("schedule", "Schedule files");
  schedule->require_subcommand(1);
  auto* convert = schedule->add_subcommand("convert", "Convert between GOAL text and .gsched binary");
  convert->add_option("input", conv_args->input, "Input schedule (text or binary)")->required();
  convert
      ->add_option("output", conv_args->output, "Output: .gsched (any case) for binary, anything else text")
      ->required();
  output_file(convert->get_option("output"));
  add_max_memory_option(*convert, conv_args->max_memory);
  convert->callback([conv_args] { run_convert(*conv_args); });
  add_from_trace_command(*schedule);

  auto info_args = std::make_shared<InfoArgs>();
  auto* info = schedule->add_subcommand(
      "info", "Summarise a schedule: operations, bytes, sizes, compute, unmatched messages, pairs");
  info->add_option("input", info_args->input,
                   "Schedule (GOAL text or .gsched binary) or OTF2 trace (directory or traces.otf2)")
      ->required();
  info->add_option("--json", info_args->json, "Also write the summary as JSON with a context block");
  output_file(info->get_option("--json"));
  info->add_option("--top", info_args->top, "Pairs listed by bytes (0: none)")
      ->check(CLI::Range(0U, 100000U))
      ->capture_default_str();
  add_max_memory_option(*info, info_args->max_memory);
  info->callback([info_args] { run_info(*info_args); });
}

}  // namespace

void add_sim_commands(CLI::App& app) {
  add_sim_command(app);
  add_schedgen_command(app);
  add_schedule_commands(app);
}

}  // namespace gridlock::cli
