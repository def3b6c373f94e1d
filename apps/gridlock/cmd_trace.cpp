// `gridlock schedule from-trace`: an MPI trace (OTF2) converted into a schedule for `gridlock sim`.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/progress.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/trace/from_trace.hpp"
#include "gridlock/trace/otf2_reader.hpp"
#include "memory_option.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct FromTraceArgs {
  std::string trace;
  std::string output;
  double compute_scale = 1.0;
  bool no_compute = false;
  bool no_p2p = false;
  bool no_collectives = false;
  std::string algo;
  std::string ranks_subset;
  bool drop_unmatched = false;
  std::string max_memory;
  std::uint32_t extrapolate = 1;
  bool quiet = false;
};

void run_from_trace(const FromTraceArgs& a) {
  check_writable(a.output);
  // Only phases: a conversion's parts are short next to reading the archive.
  Progress progress(!a.quiet && Progress::stderr_is_terminal(), true);
  progress.phase(fmt::format("reading the definitions of {}...", a.trace));
  const std::unique_ptr<trace::TraceReader> reader = trace::open_otf2(a.trace);
  std::error_code ec;
  if (std::filesystem::equivalent(reader->info().path, a.output, ec)) {
    throw InputError(fmt::format("-o {} is the trace's own anchor file: name another output", a.output));
  }
  trace::ConvertOptions options;
  options.compute_scale = a.compute_scale;
  options.compute = !a.no_compute;
  options.p2p = !a.no_p2p;
  options.collectives = !a.no_collectives;
  options.drop_unmatched = a.drop_unmatched;
  options.extrapolate = a.extrapolate;
  if (!a.algo.empty()) {
    options.algorithms = trace::parse_algorithms(a.algo);
  }
  if (!a.ranks_subset.empty()) {
    options.ranks = trace::parse_rank_list(a.ranks_subset, reader->info().num_ranks);
  }
  {
    // The schedule's ranks, copies included, before they are built (--extrapolate 1000000 on a
    // trace of a few ranks names billions of ranks).
    MemoryBudget budget(max_memory_from(a.max_memory));
    const std::uint64_t ranks = saturating_mul(
        options.ranks.empty() ? reader->info().num_ranks : options.ranks.size(), a.extrapolate);
    budget.reserve(sim::estimate_schedule_rank_bytes(ranks, false),
                   fmt::format("the schedule of {} ranks (--extrapolate {})", ranks, a.extrapolate),
                   "give a smaller --extrapolate or --ranks-subset");
  }
  progress.phase(fmt::format("converting {} ranks...", reader->info().num_ranks));
  const trace::ConvertedTrace converted = trace::convert_trace(*reader, options);
  progress.phase(fmt::format("writing {}: {} operations...", a.output, converted.schedule.total_ops()));
  sim::save_schedule(converted.schedule, a.output);
  progress.clear();
  const trace::ConvertReport& r = converted.report;
  std::uint64_t collective_calls = 0;
  for (const auto& [name, count] : r.collectives) {
    collective_calls += count;
  }
  fmt::print(
      "wrote {}: {} ranks (of {} traced), {} operations: {} sends and {} receives point-to-point, {} "
      "collective calls, {} compute ops ({} in all{})\n",
      a.output, r.ranks, r.traced_ranks, converted.schedule.total_ops(), r.sends, r.recvs, collective_calls,
      r.calcs, format_time_ps(r.compute_ps),
      a.compute_scale == 1.0 ? std::string() : fmt::format(", scaled by {}", a.compute_scale));
  for (const auto& [name, count] : r.collectives) {
    fmt::print("  {}: {} calls\n", name, count);
  }
  for (const auto& [reason, count] : r.skipped) {
    fmt::print(stderr, "gridlock: warning: {} left out: {}\n", count, reason);
  }
}

}  // namespace

void add_from_trace_command(CLI::App& schedule) {
  auto args = std::make_shared<FromTraceArgs>();
  auto* cmd = schedule.add_subcommand(
      "from-trace",
      "Convert an MPI trace (OTF2: libgridlock-trace.so or Score-P) into a schedule for `gridlock sim`");
  cmd->add_option("trace", args->trace, "OTF2 archive: its anchor file traces.otf2 or its directory")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "Output schedule: .gsched (any case) for binary, anything else GOAL text")
      ->required();
  output_file(cmd->get_option("--output"));
  cmd->add_option(
         "--compute-scale", args->compute_scale,
         "Scale the compute time between MPI calls by this factor (e.g. 0.5 for a CPU twice as fast)")
      ->capture_default_str();
  cmd->add_flag("--no-compute", args->no_compute, "Leave the compute out: communication only");
  cmd->add_flag("--no-p2p", args->no_p2p, "Leave the point-to-point messages out");
  cmd->add_flag("--no-collectives", args->no_collectives, "Leave the collectives out");
  cmd->add_option("--algo", args->algo,
                  "Collective algorithms, e.g. allreduce=ring,bcast=binary (defaults: bcast=binomial, "
                  "reduce=binomial, allreduce=recdoub, allgather=ring, alltoall=linear)");
  cmd->add_option("--ranks-subset", args->ranks_subset,
                  "Keep only these traced ranks, e.g. 0-15,32 (they become ranks 0..n-1; messages to the "
                  "others are left out, collectives run on the kept members)");
  cmd->add_flag("--drop-unmatched", args->drop_unmatched,
                "Convert a trace of a run that aborted or was cut: leave out messages and collectives "
                "without partners instead of refusing the trace");
  cmd->add_option("--extrapolate", args->extrapolate,
                  "Weak scaling: K copies of the traced ranks side by side, collectives on all ranks span "
                  "them all (refused for non-local patterns such as master-worker)")
      ->check(CLI::Range(1U, sim::kMaxRanks))
      ->capture_default_str();
  add_max_memory_option(*cmd, args->max_memory);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  cmd->get_option("--compute-scale")->excludes("--no-compute");
  cmd->get_option("--algo")->excludes("--no-collectives");
  cmd->callback([args] { run_from_trace(*args); });
}

}  // namespace gridlock::cli
