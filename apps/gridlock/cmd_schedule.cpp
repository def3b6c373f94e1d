// `gridlock schedgen`, `gridlock schedule convert|info`: schedule files (`schedule from-trace`
// lives in cmd_trace.cpp).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/progress.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/schedule_info.hpp"
#include "gridlock/sim/schedule_info_json.hpp"
#include "gridlock/trace/from_trace.hpp"
#include "gridlock/trace/otf2_reader.hpp"
#include "memory_option.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

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

void add_schedule_file_commands(CLI::App& app) {
  add_schedgen_command(app);
  add_schedule_commands(app);
}

}  // namespace gridlock::cli
