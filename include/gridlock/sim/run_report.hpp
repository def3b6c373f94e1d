#pragma once
/// @file
/// A single simulation run (`gridlock sim` without --replicas) as its outputs describe it, and its
/// console reporter; the file reporters (--json, --timeline) are in run_report_json.hpp.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::sim {

/// Operations a run may have for a timeline (--timeline is for small runs).
inline constexpr std::uint64_t kMaxTimelineOps = 1'000'000;
/// Slices a timeline may hold (CPU and network intervals: several per operation with messages).
inline constexpr std::uint64_t kMaxTimelineSlices = 2'000'000;

/// The noise injected into a run.
struct RunNoise {
  noise::NoiseSpec spec;                          ///< The noise model as given.
  const noise::DetourPattern* pattern = nullptr;  ///< The pattern built from `spec` (not owned, not null).
  bool cosched = false;                           ///< One phase for all ranks (co-scheduled).
  NoiseRule rule = NoiseRule::kGridlock;          ///< How a detour delays an operation.
};

/// What a single run simulated: the context of its outputs.
struct RunInfo {
  std::string tool = "gridlock sim";  ///< The tool named in the context block.
  std::string schedule_path;          ///< The schedule file; empty when generated from `program`.
  std::string program;                ///< The generator spec; empty when read from `schedule_path`.
  std::uint64_t seed = 1;             ///< The user's seed (generator and noise phases).
  std::uint32_t ranks = 0;            ///< Ranks of the schedule.
  LogGOPSParams params;               ///< The LogGOPS parameters simulated.
  double network_scale = 1;           ///< Factor applied to the network parameters (1: as given).
  std::optional<RunNoise> noise;      ///< The noise, if any.
};

/// Throws InputError if a schedule of `total_ops` operations is too large for a timeline
/// (kMaxTimelineOps).
void check_timeline_ops(std::uint64_t total_ops);

/// Throws InputError if `result` recorded more than kMaxTimelineSlices slices: the engine cuts a
/// timeline at SimOptions::max_timeline_slices, so a run simulated with kMaxTimelineSlices + 1 that
/// reached it would write an incomplete file.
void check_timeline_slices(const SimResult& result);

/// Prints the summary of a run to `out` (not null): schedule, LogGOPS parameters, noise, maximum
/// finish time, event counts and rates, and with `per_rank` every rank's finish time.
void print_run(std::FILE* out, const RunInfo& info, const SimResult& result, bool per_rank);

}  // namespace gridlock::sim
