// `gridlock sim`: the LogGOPS simulator. The command parses its options, then calls gridlock::sim
// (the schedule, a single run, the Monte-Carlo study) and gridlock::net (a run on a network model).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/progress.hpp"
#include "gridlock/net/run.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/replica_study.hpp"
#include "gridlock/sim/replicas.hpp"
#include "gridlock/sim/runs.hpp"
#include "memory_option.hpp"
#include "network_run_options.hpp"
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
  // --system: a machine preset (docs/predict.md, "System presets") sets the network and the
  // defaults of the network options not given.
  std::string system;
  // --network and the options that go with it (docs/network-models.md, "Using the models").
  net::NetworkRunOptions net;
  std::string max_memory;
  std::uint64_t seed = 1;
  std::uint64_t replicas = 0;
  std::optional<double> bottleneck_slowdown_pct;  // --replicas: noise-bottleneck threshold, percent
  unsigned threads = 0;
  bool replicas_given = false;  // --replicas was on the command line (0 is an error, not "off")
  bool quiet = false;
  bool progress = false;  // --progress: progress lines on stderr even when it is not a terminal
  bool per_rank = false;
  bool network_given = false;  // --network was on the command line (an empty spec is an error)
};

noise::NoiseSpec noise_spec_of(const SimArgs& a) {
  noise::NoiseSpec spec = noise_spec_from(a.noise);
  if (spec.kind != noise::NoiseSpec::Kind::kNone) {
    return spec;
  }
  if (a.model.loggops.noise_rule) {
    throw InputError(fmt::format("--noise-rule needs noise: {}", noise::kHowToGiveNoise));
  }
  if (a.noise.cosched || a.replicas_given) {
    const char* needing = a.noise.cosched && a.replicas_given ? "--noise-cosched and --replicas need"
                          : a.noise.cosched                   ? "--noise-cosched needs"
                                                              : "--replicas needs";
    throw InputError(fmt::format("{} noise: {}", needing, noise::kHowToGiveNoise));
  }
  return spec;
}

// Progress on stderr: on a terminal unless -q, and with --progress in batch logs too.
bool show_progress(const SimArgs& a) { return !a.quiet && (a.progress || Progress::stderr_is_terminal()); }

// `gridlock sim --replicas K --ranks P1,P2,...`: the Monte-Carlo study (paper §IV, Figs. 5-7).
void run_replica_study(const SimArgs& a, const sim::SimOptions& options, const noise::NoiseSpec& spec,
                       double network_scale) {
  sim::check_threaded_study(a.replicas, a.threads);
  if (!a.timeline.empty()) {
    throw InputError("--timeline is for single runs, not --replicas");
  }
  const double threshold = a.bottleneck_slowdown_pct.value_or(100.0) / 100.0;
  sim::ReplicaStudySpec study{a.program,     a.schedule, sim::parse_scales(a.ranks),
                              a.seed,        a.replicas, options,
                              network_scale, spec,       a.noise.cosched,
                              threshold};
  sim::ThreadStudyRun run{"gridlock sim", a.json, a.csv, a.svg, a.threads, show_progress(a)};
  MemoryBudget budget(max_memory_from(a.max_memory));
  (void)sim::run_threaded_study(std::move(study), run, budget, stdout);
}

// One run: the schedule, the simulation (on the network when there is one), the report.
void run_single(const SimArgs& a, sim::SimOptions options, const noise::NoiseSpec& spec, double network_scale,
                MemoryBudget& budget, std::optional<net::NetworkRun>& network_run) {
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
  const sim::Schedule schedule = sim::load_for_run({a.schedule, a.program, ranks, a.seed}, budget);
  if (progress.enabled()) {
    progress.phase(fmt::format("simulating {} operations...", schedule.total_ops()));
    options.progress = [&progress](const sim::SimProgress& p) { progress.update(sim::progress_line(p)); };
  }
  sim::SingleRunSpec run_spec{a.schedule,      a.program,           a.seed, network_scale, spec,
                              a.noise.cosched, !a.timeline.empty(), {}};
  if (network_run.has_value()) {
    run_spec.before_simulate = [&](sim::SimOptions& o) {
      net::place_network_run(*network_run, schedule.num_ranks(), budget, mapping_rankfiles());
      o.network = network_run->model.get();
    };
  }
  const sim::SingleRun run = sim::run_single(schedule, std::move(options), run_spec);
  progress.clear();
  const net::RunOutputs outputs{a.json, a.timeline, a.per_rank, a.net.preset ? &*a.net.preset : nullptr};
  net::report_run(stdout, outputs, run.info, run.result, network_run ? &*network_run : nullptr);
}

void run_sim(const SimArgs& a) {
  // The engine records a timeline in the global order only; an explicit windowed order ran global.
  if (a.event_order == "windowed" && !a.timeline.empty()) {
    throw InputError(
        "--event-order windowed and --timeline: a timeline is recorded in the global order only (host by "
        "host, its slices would come out of order); leave out --event-order or give global");
  }
  const sim::LogGOPSChoice model =
      sim_model_from(a.model, "gridlock sim", a.quiet, a.net.preset ? &a.net.preset->params : nullptr);
  sim::SimOptions options;
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
  if (a.network_given && a.net.network.empty()) {
    throw InputError(
        "--network '': give a topology spec, e.g. dragonfly:g=9,a=4,p=2,h=2 (docs/topologies.md)");
  }
  if (a.replicas_given && !a.net.network.empty()) {
    throw InputError(
        "--network is for single runs, not --replicas: simulate one scale on the network at a time "
        "(leave out --replicas)");
  }
  MemoryBudget budget(max_memory_from(a.max_memory));
  std::optional<net::NetworkRun> network_run;
  if (!a.net.network.empty()) {
    network_run = net::prepare_network_run(a.net, budget);
  }
  if (a.replicas_given) {
    run_replica_study(a, options, spec, model.network_scale);
    return;
  }
  run_single(a, options, spec, model.network_scale, budget, network_run);
}

// The sim command's checks after parsing: options of a network run need --network or --system,
// and the preset is read (its values are defaults only).
void finish_sim_args(SimArgs& args, const CLI::App& sim_cmd) {
  // Checked here rather than with CLI11's needs(): either --network or --system will do.
  const bool network = sim_cmd.count("--network") > 0 || sim_cmd.count("--system") > 0;
  for (const char* name : kNetworkRunOptionNames) {
    if (sim_cmd.count(name) > 0 && !network) {
      throw InputError(fmt::format("{} requires --network (or --system)", name));
    }
  }
  args.net.preset = system_from(args.system);
  if (args.net.preset) {
    args.net.network = args.net.preset->network_spec;
  }
  args.net.seed = args.seed;
  args.replicas_given = sim_cmd.count("--replicas") > 0;
  args.network_given = sim_cmd.count("--network") > 0 || args.net.preset.has_value();
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
  add_network_run_options(*sim_cmd, sim_args->net);
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

}  // namespace

void add_sim_commands(CLI::App& app) {
  add_sim_command(app);
  add_schedule_file_commands(app);
}

}  // namespace gridlock::cli
