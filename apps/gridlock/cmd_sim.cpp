// `gridlock sim`, `gridlock schedgen`, `gridlock schedule convert`: the LogGOPS simulator.
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::cli {
namespace {

constexpr std::uint64_t kMaxTimelineOps = 1'000'000;

struct SimArgs {
  std::string schedule;
  std::string program;
  std::uint32_t ranks = 0;
  std::uint64_t seed = 1;
  std::string latency = "2.5us";
  std::string overhead = "1.5us";
  std::string overhead_send;
  std::string overhead_recv;
  std::string gap = "1us";
  std::string gap_per_byte = "6ns";
  std::string overhead_per_byte = "0";
  std::uint64_t eager_threshold = 65535;
  bool per_rank = false;
  std::string json;
  std::string timeline;
};

struct SchedgenArgs {
  std::string program;
  std::uint32_t ranks = 0;
  std::uint64_t seed = 1;
  std::string output;
};

struct ConvertArgs {
  std::string input;
  std::string output;
};

sim::LogGOPSParams parse_params(const SimArgs& a) {
  sim::LogGOPSParams p;
  p.latency = sim::SimTime{parse_time_ps(a.latency, "-L (latency)")};
  const std::uint64_t o = parse_time_ps(a.overhead, "-o (overhead)");
  p.overhead_send = sim::SimTime{a.overhead_send.empty() ? o : parse_time_ps(a.overhead_send, "--o-send")};
  p.overhead_recv = sim::SimTime{a.overhead_recv.empty() ? o : parse_time_ps(a.overhead_recv, "--o-recv")};
  p.gap = sim::SimTime{parse_time_ps(a.gap, "-g (gap)")};
  p.gap_per_byte = sim::SimTime{parse_time_ps(a.gap_per_byte, "-G (gap per byte)")};
  p.overhead_per_byte = sim::SimTime{parse_time_ps(a.overhead_per_byte, "-O (overhead per byte)")};
  p.eager_threshold_bytes = a.eager_threshold;
  return p;
}

Json params_json(const sim::LogGOPSParams& p) {
  return Json{{"L_ps", p.latency.ps},
              {"o_send_ps", p.overhead_send.ps},
              {"o_recv_ps", p.overhead_recv.ps},
              {"g_ps", p.gap.ps},
              {"G_ps", p.gap_per_byte.ps},
              {"O_ps", p.overhead_per_byte.ps},
              {"S_bytes", p.eager_threshold_bytes}};
}

sim::Schedule load_or_generate(const std::string& schedule, const std::string& program, std::uint32_t ranks,
                               std::uint64_t seed) {
  if (schedule.empty() == program.empty()) {
    throw InputError("give either a schedule file or --program SPEC (with --ranks), not both or neither");
  }
  if (!program.empty()) {
    if (ranks == 0) {
      throw InputError("--program needs --ranks N (N >= 1)");
    }
    return sim::generate(program, ranks, seed);
  }
  return sim::load_schedule(schedule);
}

void write_timeline(const std::string& path, const sim::SimResult& result, const sim::Schedule& schedule,
                    Json context) {
  static constexpr const char* kKinds[] = {"?", "send", "recv", "calc", "msg"};
  Json events = Json::array();
  for (std::uint32_t r = 0; r < schedule.num_ranks(); ++r) {
    events.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", r}, {"args", {{"name", fmt::format("rank {}", r)}}}});
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 0}, {"args", {{"name", "cpu"}}}});
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 1}, {"args", {{"name", "nic"}}}});
  }
  for (const sim::TimelineSlice& s : result.timeline) {
    const std::string name = s.kind == 3   ? std::string("calc")
                             : s.kind == 1 ? fmt::format("send {}b to {}", s.bytes, s.peer)
                             : s.kind == 2 ? fmt::format("recv {}b from {}", s.bytes, s.peer)
                                           : fmt::format("msg {}b, peer {}", s.bytes, s.peer);
    // Trace-event times are microseconds; picoseconds are exact in the args.
    events.push_back({{"name", name},
                      {"cat", kKinds[s.kind]},
                      {"ph", "X"},
                      {"pid", s.rank},
                      {"tid", s.track},
                      {"ts", static_cast<double>(s.start.ps) / 1e6},
                      {"dur", static_cast<double>(s.end.ps - s.start.ps) / 1e6},
                      {"args", {{"start_ps", s.start.ps}, {"end_ps", s.end.ps}}}});
  }
  const Json trace{
      {"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(context)}};
  write_file_atomic(path, trace.dump(1) + "\n");
}

void run_sim(const SimArgs& a) {
  sim::SimOptions options;
  options.params = parse_params(a);
  if (!a.json.empty()) {
    check_writable(a.json);
  }
  if (!a.timeline.empty()) {
    check_writable(a.timeline);
  }
  const sim::Schedule schedule = load_or_generate(a.schedule, a.program, a.ranks, a.seed);
  if (!a.timeline.empty()) {
    if (schedule.total_ops() > kMaxTimelineOps) {
      throw InputError(
          fmt::format("--timeline is for small runs (at most {} operations); this schedule has {}",
                      kMaxTimelineOps, schedule.total_ops()));
    }
    options.record_timeline = true;
  }
  const sim::SimResult result = sim::simulate(schedule, options);

  Json context = base_context("gridlock sim", "gridlock.sim.result", 1);
  context["schedule"] = a.program.empty() ? Json(a.schedule) : Json(nullptr);
  context["program"] = a.program.empty() ? Json(nullptr) : Json(a.program);
  context["seed"] = a.seed;
  context["ranks"] = schedule.num_ranks();
  context["loggops"] = params_json(options.params);

  const double events_per_s =
      result.wall_seconds > 0 ? static_cast<double>(result.events) / result.wall_seconds : 0;
  if (!a.json.empty()) {
    Json body;
    body["complete"] = result.complete;
    body["max_finish_ps"] = result.max_finish.ps;
    body["max_finish_rank"] = result.max_finish_rank;
    body["ops_total"] = result.ops_total;
    body["ops_completed"] = result.ops_completed;
    body["messages"] = result.messages;
    body["events"] = result.events;
    body["wall_seconds"] = result.wall_seconds;
    body["cpu_seconds"] = result.cpu_seconds;
    body["events_per_second"] = events_per_s;
    if (a.per_rank) {
      Json finish = Json::array();
      for (const sim::SimTime t : result.finish) {
        finish.push_back(t.ps);
      }
      body["finish_ps"] = std::move(finish);
    }
    if (!result.complete) {
      Json stuck = Json::array();
      for (const sim::StuckOp& s : result.stuck) {
        stuck.push_back({{"rank", s.rank}, {"op", s.op}, {"operation", s.description}, {"state", s.state}});
      }
      body["stuck"] = std::move(stuck);
      body["stuck_ranks"] = result.stuck_ranks;
      body["unexpected_messages"] = result.unexpected_left;
    }
    write_json_file(a.json, context, Json{{"result", std::move(body)}});
  }
  if (!result.complete) {
    throw InputError(sim::stuck_report(result));
  }
  if (!a.timeline.empty()) {
    write_timeline(a.timeline, result, schedule, context);
  }
  const sim::LogGOPSParams& p = options.params;
  fmt::print("schedule: {} ranks, {} operations, {} messages{}\n", schedule.num_ranks(), result.ops_total,
             result.messages,
             a.program.empty() ? fmt::format(" ({})", a.schedule)
                               : fmt::format(" ({}, seed {})", a.program, a.seed));
  fmt::print("LogGOPS: L={} o_send={} o_recv={} g={} G={} O={} S={} B\n", format_time_ps(p.latency.ps),
             format_time_ps(p.overhead_send.ps), format_time_ps(p.overhead_recv.ps), format_time_ps(p.gap.ps),
             format_time_ps(p.gap_per_byte.ps), format_time_ps(p.overhead_per_byte.ps),
             p.eager_threshold_bytes);
  fmt::print("max finish: {} ({} ps) at rank {}\n", format_time_ps(result.max_finish.ps),
             result.max_finish.ps, result.max_finish_rank);
  const double events_per_cpu_s =
      result.cpu_seconds > 0 ? static_cast<double>(result.events) / result.cpu_seconds : 0;
  fmt::print("events: {} in {:.3f} s wall, {:.3f} s CPU ({:.1f} M events/s wall, {:.1f} M/s CPU)\n",
             result.events, result.wall_seconds, result.cpu_seconds, events_per_s / 1e6,
             events_per_cpu_s / 1e6);
  if (a.per_rank) {
    for (std::uint32_t r = 0; r < schedule.num_ranks(); ++r) {
      fmt::print("rank {}: {} ps\n", r, result.finish[r].ps);
    }
  }
}

void run_schedgen(const SchedgenArgs& a) {
  check_writable(a.output);
  const sim::Schedule schedule = sim::generate(a.program, a.ranks, a.seed);
  sim::save_schedule(schedule, a.output);
  fmt::print("wrote {}: {} ranks, {} operations, {} messages, {} distinct programs ({}, seed {})\n", a.output,
             schedule.num_ranks(), schedule.total_ops(), schedule.total_sends(), schedule.programs().size(),
             a.program, a.seed);
}

void run_convert(const ConvertArgs& a) {
  check_writable(a.output);
  const sim::Schedule schedule = sim::load_schedule(a.input);
  sim::save_schedule(schedule, a.output);
  fmt::print("wrote {}: {} ranks, {} operations\n", a.output, schedule.num_ranks(), schedule.total_ops());
}

void add_param_options(CLI::App& cmd, SimArgs& a) {
  cmd.add_option("-L", a.latency, "Latency L (e.g. 2.5us)")->capture_default_str();
  cmd.add_option("-o", a.overhead, "CPU overhead o per message, both sides")->capture_default_str();
  cmd.add_option("--o-send", a.overhead_send, "Sender overhead (extension; default: -o)");
  cmd.add_option("--o-recv", a.overhead_recv, "Receiver overhead (extension; default: -o)");
  cmd.add_option("-g", a.gap, "Gap g between messages on a NIC")->capture_default_str();
  cmd.add_option("-G", a.gap_per_byte, "Gap per byte G (sub-ns allowed, e.g. 0.25ns)")->capture_default_str();
  cmd.add_option("-O", a.overhead_per_byte, "CPU overhead per byte O")->capture_default_str();
  cmd.add_option("-S", a.eager_threshold, "Eager threshold S in bytes (larger: rendezvous)")
      ->capture_default_str();
}

}  // namespace

void add_sim_commands(CLI::App& app) {
  auto sim_args = std::make_shared<SimArgs>();
  auto* sim_cmd =
      app.add_subcommand("sim", "Simulate a GOAL schedule with the LogGOPS model (LogGOPSim semantics)");
  sim_cmd->add_option("schedule", sim_args->schedule, "Schedule file (GOAL text or .gsched binary)");
  sim_cmd->add_option("--program", sim_args->program,
                      "Generate the schedule in memory instead (see schedgen)");
  sim_cmd->add_option("--ranks", sim_args->ranks, "Ranks for --program");
  sim_cmd->add_option("--seed", sim_args->seed, "Seed for --program")->capture_default_str();
  add_param_options(*sim_cmd, *sim_args);
  sim_cmd->add_flag("--per-rank", sim_args->per_rank, "Print (and write to --json) every rank's finish time");
  sim_cmd->add_option("--json", sim_args->json, "Write the result as JSON with a context block");
  sim_cmd->add_option("--timeline", sim_args->timeline, "Write a Chrome trace-event timeline (small runs)");
  sim_cmd->callback([sim_args] { run_sim(*sim_args); });

  auto gen_args = std::make_shared<SchedgenArgs>();
  auto* gen = app.add_subcommand("schedgen", "Generate a schedule (collectives, halos, compositions)");
  gen->add_option("--program", gen_args->program,
                  "Program spec, e.g. '10x[allreduce(size=8B); calc(time=5us)]'")
      ->required();
  gen->add_option("--ranks", gen_args->ranks, "Number of ranks")
      ->required()
      ->check(CLI::Range(1U, sim::kMaxRanks));
  gen->add_option("--seed", gen_args->seed, "Seed for random patterns (printed)")->capture_default_str();
  gen->add_option("-o,--output", gen_args->output, "Output file: .gsched for binary, anything else GOAL text")
      ->required();
  gen->footer(sim::generator_help());
  gen->callback([gen_args] { run_schedgen(*gen_args); });

  auto conv_args = std::make_shared<ConvertArgs>();
  auto* schedule = app.add_subcommand("schedule", "Schedule files");
  schedule->require_subcommand(1);
  auto* convert = schedule->add_subcommand("convert", "Convert between GOAL text and .gsched binary");
  convert->add_option("input", conv_args->input, "Input schedule (text or binary)")->required();
  convert->add_option("output", conv_args->output, "Output: .gsched for binary, anything else text")
      ->required();
  convert->callback([conv_args] { run_convert(*conv_args); });
}

}  // namespace gridlock::cli
