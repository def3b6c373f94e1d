#include "gridlock/sim/runs.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/progress.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/noise.hpp"
#include "gridlock/sim/replica_report.hpp"
#include "gridlock/sim/replica_report_json.hpp"
#include "gridlock/sim/replicas.hpp"

namespace gridlock::sim {

Schedule load_or_generate(const ScheduleSource& source, MemoryBudget& budget, bool keep_sources) {
  if (source.schedule.empty() == source.program.empty()) {
    throw InputError("give either a schedule file or --program SPEC (with --ranks), not both or neither");
  }
  const std::uint32_t ranks = source.ranks;
  if (!source.program.empty()) {
    if (ranks == 0) {
      throw InputError("--program needs --ranks N (N >= 1)");
    }
    budget.reserve(
        saturating_add(estimate_simulation_bytes(ranks, 0), estimate_schedule_rank_bytes(ranks, false)),
        fmt::format("--program on --ranks {}", ranks), "give fewer --ranks");
    // Generating takes time in the operations (ranks that share a program still build it) and the
    // simulation memory: checked from the spec's formulas first. The caller reserves the real count.
    const std::uint64_t ops = estimate_program_ops(source.program, ranks, source.seed);
    MemoryBudget check = budget;
    check.reserve(estimate_simulation_bytes(0, ops),
                  fmt::format("simulating about {} operations of --program '{}' on --ranks {}", ops,
                              printable_excerpt(source.program), ranks),
                  "give fewer --ranks or a smaller --program");
    return generate(source.program, ranks, source.seed);
  }
  if (ranks != 0) {
    throw InputError(fmt::format("--ranks is for --program: the schedule file {} sets its own rank count",
                                 source.schedule));
  }
  return load_schedule(source.schedule, keep_sources, &budget, kSimulationBytesPerRank);
}

Schedule load_for_run(const ScheduleSource& source, MemoryBudget& budget) {
  // Line numbers and labels serve only a deadlock report: read without them, and read the file
  // again in the rare run that needs them (a third of the reading time of a large GOAL file).
  Schedule schedule = load_or_generate(source, budget, /*keep_sources=*/false);
  // The per-rank part was reserved with the schedule.
  budget.reserve(
      estimate_simulation_bytes(0, schedule.total_ops()),
      fmt::format("simulating {} operations on {} ranks", schedule.total_ops(), schedule.num_ranks()),
      "give a smaller schedule");
  return schedule;
}

std::string progress_line(const SimProgress& p) {
  return fmt::format("simulating{}: {:.1f}% of {} operations done, {} events, simulated time {}",
                     p.rerun ? " again in global order" : "",
                     p.ops_total > 0
                         ? 100.0 * static_cast<double>(p.ops_completed) / static_cast<double>(p.ops_total)
                         : 100.0,
                     p.ops_total, p.events, format_time_ps(p.now.ps));
}

unsigned replica_thread_count(unsigned requested, std::uint64_t replicas) {
  const unsigned wanted = requested > 0 ? requested : std::max(1U, std::thread::hardware_concurrency());
  // run_replicas would not start more threads than replicas: the count printed is the count used.
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, replicas)));
}

void reserve_replica_study(MemoryBudget& budget, const std::string& program,
                           const std::vector<std::uint32_t>& scales, std::uint64_t seed, unsigned threads,
                           std::uint64_t replicas) {
  const std::uint32_t largest = scales.empty() ? 0 : *std::max_element(scales.begin(), scales.end());
  const std::uint64_t wanted = threads > 0 ? threads : std::max(1U, std::thread::hardware_concurrency());
  const std::uint64_t running = std::min(wanted, replicas);
  const std::uint64_t ops =
      program.empty() || largest == 0 ? 0 : estimate_program_ops(program, largest, seed);
  budget.reserve(saturating_add(estimate_schedule_rank_bytes(largest, false),
                                saturating_mul(running, estimate_simulation_bytes(largest, ops))),
                 fmt::format("--replicas on {} ranks with {} threads{}", largest, running,
                             ops == 0 ? std::string() : fmt::format(" (about {} operations each)", ops)),
                 "give fewer --ranks or --threads, or a smaller --program");
}

SingleRun run_single(const Schedule& schedule, SimOptions options, const SingleRunSpec& spec) {
  SingleRun run;
  NoiseInjection injection;
  if (spec.noise.kind != noise::NoiseSpec::Kind::kNone) {
    run.pattern = std::make_unique<noise::DetourPattern>(
        noise::make_pattern(spec.noise, derive_seed(spec.seed, kNoiseSeedStream + 1)));
    injection = make_noise_injection(*run.pattern, schedule.num_ranks(),
                                     derive_seed(spec.seed, kNoiseSeedStream), 0, spec.cosched);
    options.noise = &injection;
  }
  if (spec.timeline) {
    check_timeline_ops(schedule.total_ops());
    options.record_timeline = true;
    // One more than the limit, so that a longer timeline (which the engine would cut) is told apart.
    options.max_timeline_slices = kMaxTimelineSlices + 1;
  }
  if (spec.before_simulate) {
    spec.before_simulate(options);
  }
  run.result = simulate(schedule, options);
  if (!run.result.complete && !spec.schedule_path.empty()) {
    describe_stuck_ops(run.result, load_schedule(spec.schedule_path));
  }
  if (options.record_timeline) {
    check_timeline_slices(run.result);
  }
  run.info.schedule_path = spec.schedule_path;
  run.info.program = spec.program;
  run.info.seed = spec.seed;
  run.info.ranks = schedule.num_ranks();
  run.info.params = options.params;
  run.info.network_scale = spec.network_scale;
  if (run.pattern) {
    run.info.noise = RunNoise{spec.noise, run.pattern.get(), spec.cosched, options.noise_rule};
  }
  return run;
}

bool under_mpi_job() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before any thread starts
    if (v != nullptr && std::strtol(v, nullptr, 10) > 1) {
      return true;
    }
  }
  return false;
}

void check_threaded_study(std::uint64_t replicas, unsigned threads) {
  if (under_mpi_job()) {
    throw InputError(
        "gridlock sim --replicas is serial (with --threads); under mpirun every rank would repeat the same "
        "study. Run it without mpirun, or spread the replicas over the ranks with `mpirun gridlock-bench "
        "sim-replicas` (same options, same results)");
  }
  check_replica_count(replicas);
  check_thread_count(threads);
}

ReplicaStudyResult run_threaded_study(ReplicaStudySpec spec, const ThreadStudyRun& run, MemoryBudget& budget,
                                      std::FILE* out) {
  reserve_replica_study(budget, spec.program, spec.scales, spec.seed, run.threads, spec.replicas);
  const ReplicaStudy study(std::move(spec));
  for (const std::string* path : {&run.json, &run.csv, &run.svg}) {
    if (!path->empty()) {
      check_writable(*path);
    }
  }
  const unsigned threads = replica_thread_count(run.threads, study.spec().replicas);
  ThreadReplicaRunner runner(threads, run.threads > threads
                                          ? fmt::format(" (--threads {}: one per replica)", run.threads)
                                          : std::string());
  Progress progress(run.progress, Progress::stderr_is_terminal());
  std::mutex print_mutex;
  if (progress.enabled()) {
    runner.progress = [&](std::uint32_t ranks, std::uint64_t done, std::uint64_t total) {
      if (done % 16 == 0 || done == total) {
        const std::lock_guard<std::mutex> lock(print_mutex);
        progress.update(fmt::format("{} ranks: {}/{} replicas", ranks, done, total));
      }
    };
  }
  ConsoleReplicaReporter console(out);
  console.on_scale_started = [&](std::uint32_t ranks) {
    progress.phase(fmt::format("{} ranks: schedule and noiseless run...", ranks));
  };
  console.on_scale_finished = [&] { progress.clear(); };
  const ReplicaStudySpec& s = study.spec();
  const Json context = study_context(run.tool, s, study.pattern());
  std::vector<std::unique_ptr<ReplicaReporter>> files = file_reporters(
      run.json, run.csv, run.svg, context,
      study_title(s.program.empty() ? s.schedule_path : s.program, s.noise, study.pattern(), s.cosched));
  // The table stops quietly once standard output is closed (`| head`): the study goes on and its
  // files are written.
  ClosedPipeQuietReporter table(console);
  std::vector<ReplicaReporter*> reporters{&table};
  for (const auto& f : files) {
    reporters.push_back(f.get());
  }
  return study.run(runner, reporters);
}

}  // namespace gridlock::sim
