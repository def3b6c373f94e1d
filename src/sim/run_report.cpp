#include "gridlock/sim/run_report.hpp"

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::sim {

void check_timeline_ops(std::uint64_t total_ops) {
  if (total_ops > kMaxTimelineOps) {
    throw InputError(fmt::format("--timeline is for small runs (at most {} operations); this schedule has {}",
                                 kMaxTimelineOps, total_ops));
  }
}

void check_timeline_slices(const SimResult& result) {
  if (result.timeline.size() > kMaxTimelineSlices) {
    throw InputError(fmt::format(
        "--timeline: this run has more than {} slices (CPU and network intervals; {} operations, {} "
        "messages), too many to write in full; simulate a smaller schedule",
        kMaxTimelineSlices, result.ops_total, result.messages));
  }
}

void print_run(std::FILE* out, const RunInfo& info, const SimResult& result, bool per_rank) {
  fmt::print(out, "schedule: {} ranks, {} operations, {} messages{}\n", info.ranks, result.ops_total,
             result.messages,
             info.program.empty() ? fmt::format(" ({})", info.schedule_path)
                                  : fmt::format(" ({}, seed {})", info.program, info.seed));
  const LogGOPSParams& p = info.params;
  fmt::print(out, "LogGOPS: L={} o_send={} o_recv={} g={} G={} O={} S={} B{}\n", format_time_ps(p.latency.ps),
             format_time_ps(p.overhead_send.ps), format_time_ps(p.overhead_recv.ps), format_time_ps(p.gap.ps),
             format_time_ps(p.gap_per_byte.ps), format_time_ps(p.overhead_per_byte.ps),
             p.eager_threshold_bytes, p.rendezvous_handshake ? " (rendezvous handshake)" : "");
  if (info.noise.has_value()) {
    const RunNoise& n = *info.noise;
    fmt::print(out, "noise: {} (period {}, {:.4f}% noise), {}, {} rule, seed {}\n",
               noise::describe(n.spec, *n.pattern), format_time_ps(n.pattern->period_ps()),
               100.0 * n.pattern->noise_fraction(), n.cosched ? "co-scheduled" : "unsynchronised",
               to_string(n.rule), info.seed);
  }
  fmt::print(out, "max finish: {} ({} ps) at rank {}\n", format_time_ps(result.max_finish.ps),
             result.max_finish.ps, result.max_finish_rank);
  const double events_per_s =
      result.wall_seconds > 0 ? static_cast<double>(result.events) / result.wall_seconds : 0;
  const double events_per_cpu_s =
      result.cpu_seconds > 0 ? static_cast<double>(result.events) / result.cpu_seconds : 0;
  fmt::print(out, "events: {} in {} wall, {} CPU ({:.1f} M events/s wall, {:.1f} M/s CPU), {} order\n",
             result.events, format_duration_s(result.wall_seconds), format_duration_s(result.cpu_seconds),
             events_per_s / 1e6, events_per_cpu_s / 1e6, result.windowed ? "windowed" : "global");
  if (per_rank) {
    for (std::size_t r = 0; r < result.finish.size(); ++r) {
      fmt::print(out, "rank {}: {} ps\n", r, result.finish[r].ps);
    }
  }
}

}  // namespace gridlock::sim
