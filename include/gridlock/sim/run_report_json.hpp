#pragma once
/// @file
/// The file reporters of a single simulation run: the result JSON (`gridlock sim --json`, schema
/// gridlock.sim.result) and the Chrome trace-event timeline (`--timeline`), docs/sim.md.

#include <cstdint>
#include <string>

#include "gridlock/core/output.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/run_report.hpp"

namespace gridlock::sim {

/// The context block of a run (schema gridlock.sim.result version 1): schedule, program, seed,
/// ranks, loggops, network_scale and, with noise, noise (noise_json()).
[[nodiscard]] Json run_context(const RunInfo& info);

/// The `result` object of a run: complete, max_finish_ps, max_finish_rank, ops_total,
/// ops_completed, messages, events, wall_seconds, cpu_seconds, events_per_second, event_order;
/// finish_ps with `per_rank`; stuck, stuck_ranks and unexpected_messages when incomplete.
[[nodiscard]] Json run_result_json(const SimResult& result, bool per_rank);

/// Writes `{context, "result": run_result_json()}` to `path` atomically.
void write_run_json(const std::string& path, const Json& context, const SimResult& result, bool per_rank);

/// The Chrome trace-event document of `result`'s timeline (chrome://tracing, Perfetto): a process
/// per rank with a `cpu` and a `nic` thread, one complete event per slice (times in us, exact
/// picoseconds in its args), `context` as otherData.
[[nodiscard]] Json timeline_json(const SimResult& result, std::uint32_t num_ranks, const Json& context);

/// Writes timeline_json() to `path` atomically.
void write_timeline(const std::string& path, const SimResult& result, std::uint32_t num_ranks,
                    const Json& context);

}  // namespace gridlock::sim
