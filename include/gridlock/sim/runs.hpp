#pragma once
/// @file
/// What a simulator run reads and reserves before it simulates (`gridlock sim`): its schedule,
/// from a file or generated from a program, and the memory of a Monte-Carlo study, each checked
/// against a MemoryBudget first so that a few bytes of input never cost gigabytes; and a single
/// run with its noise and timeline, ready for its report (sim::print_run, net::report_run); and
/// the Monte-Carlo study on this process's threads with its table and files.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridlock/core/memory.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/replica_study.hpp"
#include "gridlock/sim/run_report.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// Where a run's schedule comes from: a file, or a program generated on `ranks` ranks.
struct ScheduleSource {
  std::string schedule;     ///< A schedule file (GOAL text or .gsched binary); empty: none.
  std::string program;      ///< A generator spec (--program); empty: none.
  std::uint32_t ranks = 0;  ///< Ranks for `program` (0: not given).
  std::uint64_t seed = 1;   ///< The generator's seed.
};

/// The schedule of `source`: exactly one of a file and a program; a program needs ranks, a file
/// refuses them. A program's ranks and (from its formulas) operations are checked against `budget`
/// before it is generated, and its per-rank memory reserved; a file's is reserved as it is read.
/// `keep_sources`: keep line numbers and labels (only a deadlock report needs them). Throws
/// InputError naming the option and the fix, IoError when the file cannot be read.
[[nodiscard]] Schedule load_or_generate(const ScheduleSource& source, MemoryBudget& budget,
                                        bool keep_sources = true);

/// The schedule of a single run (load_or_generate() without line numbers and labels: a deadlock
/// report rereads the file), and the memory of simulating its operations reserved in `budget`.
[[nodiscard]] Schedule load_for_run(const ScheduleSource& source, MemoryBudget& budget);

/// One progress line of a run: "simulating: 12.5% of 800 operations done, ...".
[[nodiscard]] std::string progress_line(const SimProgress& progress);

/// The threads a study of `replicas` replicas uses for `requested` (0: all cores): no more than
/// replicas, at least one.
[[nodiscard]] unsigned replica_thread_count(unsigned requested, std::uint64_t replicas);

/// Reserves in `budget` what a Monte-Carlo study holds at a time: the largest scale's schedule and
/// one simulation per thread, a program's operations estimated from its formulas (a schedule
/// file's are counted as it is read). Throws InputError as MemoryBudget::reserve() does.
void reserve_replica_study(MemoryBudget& budget, const std::string& program,
                           const std::vector<std::uint32_t>& scales, std::uint64_t seed, unsigned threads,
                           std::uint64_t replicas);

/// A single run: what it simulates besides the schedule and the SimOptions.
struct SingleRunSpec {
  std::string schedule_path;   ///< The schedule file (reread for a deadlock report); empty: generated.
  std::string program;         ///< The generator spec (recorded).
  std::uint64_t seed = 1;      ///< The user's seed: the noise pattern and phases derive from it.
  double network_scale = 1.0;  ///< The --network-scale already in the options' parameters (recorded).
  noise::NoiseSpec noise;      ///< The noise model (kind none: no noise).
  bool cosched = false;        ///< Every rank the same noise phase.
  bool timeline = false;       ///< Record a timeline (checked against kMaxTimelineOps/Slices).
  /// Called just before the simulation (e.g. to place the ranks on a network); may be empty.
  std::function<void(SimOptions& options)> before_simulate;
};

/// A single run's result and what its report needs.
struct SingleRun {
  SimResult result;  ///< The simulation (a run that did not complete carries its stuck operations).
  RunInfo info;      ///< The context of its outputs; info.noise points into `pattern`.
  std::unique_ptr<noise::DetourPattern> pattern;  ///< The noise pattern (null without noise).
};

/// Simulates `schedule` with `options` and the noise and timeline of `spec`. A run that does not
/// complete gets its stuck operations described from the schedule file, reread with its line
/// numbers. Throws InputError for a timeline too large to record.
[[nodiscard]] SingleRun run_single(const Schedule& schedule, SimOptions options, const SingleRunSpec& spec);

/// A Monte-Carlo study on threads (`gridlock sim --replicas`): its outputs and how it shows progress.
struct ThreadStudyRun {
  std::string tool = "gridlock sim";  ///< Named in the files' context.
  std::string json;                   ///< --json (empty: none).
  std::string csv;                    ///< --csv (empty: none).
  std::string svg;                    ///< --svg (empty: none).
  unsigned threads = 0;               ///< --threads (0: all cores; replica_thread_count()).
  bool progress = false;              ///< Progress lines on stderr.
};

/// True when this process is one of several ranks of an MPI job (Open MPI, MPICH/PMI, PMIx):
/// their launchers' environment says how many ranks there are.
[[nodiscard]] bool under_mpi_job();

/// Refuses a study on threads that cannot run: under an MPI job (every rank would repeat it; the
/// message points to `gridlock-bench sim-replicas`), a replica count or thread count out of bounds
/// (check_replica_count(), check_thread_count()). Throws InputError.
void check_threaded_study(std::uint64_t replicas, unsigned threads);

/// Runs `spec` on threads: reserves its memory in `budget` (reserve_replica_study()), checks that
/// the files can be written, prints the table to `out` (quietly stopped once `out` is a closed
/// pipe) and writes the files as the scales finish. Throws InputError as the study does.
ReplicaStudyResult run_threaded_study(ReplicaStudySpec spec, const ThreadStudyRun& run, MemoryBudget& budget,
                                      std::FILE* out);

}  // namespace gridlock::sim
