#pragma once
/// @file
/// Converts an MPI trace into a LogGOPS schedule for `gridlock sim` (`gridlock schedule
/// from-trace`; docs/tracing.md "From a trace to a simulation"): per rank, in program order,
/// messages become sends and receives, the time between MPI calls becomes calc operations, and
/// each collective becomes the point-to-point algorithm of gridlock's schedule generator on the
/// members of its communicator.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/sim/schedule.hpp"
#include "gridlock/trace/events.hpp"

namespace gridlock::trace {

/// What to convert and how.
struct ConvertOptions {
  /// Calc time = traced compute time x this (0 < scale <= 1e6).
  double compute_scale = 1.0;
  bool compute = true;      ///< Keep the compute between MPI calls (false: --no-compute).
  bool p2p = true;          ///< Keep point-to-point messages (false: --no-p2p).
  bool collectives = true;  ///< Keep collectives (false: --no-collectives).
  /// Algorithm per generator collective kind (bcast, reduce, allreduce, allgather, alltoall);
  /// kinds not named take the generator's default (sim::collective_algorithms()).
  std::map<std::string, std::string, std::less<>> algorithms;
  /// The traced ranks to keep, in increasing order (empty: all); they become ranks 0 .. n-1.
  std::vector<std::uint32_t> ranks;
  /// Drop the messages and collectives that have no partner in the trace (a run that aborted
  /// or hit the tracer's size cap) instead of refusing the trace.
  bool drop_unmatched = false;
  /// Weak-scaling extrapolation (--extrapolate K, 1: none): K copies of the kept ranks side by
  /// side; point-to-point messages and sub-communicator collectives stay within each copy,
  /// collectives on a communicator of all kept ranks span all K copies with the traced sizes.
  /// Refused for traces whose point-to-point pattern is not local (a rank that talks to every
  /// other rank, e.g. a master-worker farm) or that have fewer than 3 ranks.
  std::uint32_t extrapolate = 1;
};

/// What a conversion did.
struct ConvertReport {
  std::uint32_t traced_ranks = 0;  ///< Ranks in the trace.
  std::uint32_t ranks = 0;         ///< Ranks of the schedule (kept ranks x extrapolate).
  std::uint32_t copies = 1;        ///< Copies of the kept ranks (ConvertOptions::extrapolate).
  std::uint64_t events = 0;        ///< Events read (both passes count once).
  std::uint64_t sends = 0;         ///< Point-to-point sends written.
  std::uint64_t recvs = 0;         ///< Point-to-point receives written.
  std::uint64_t calcs = 0;         ///< Compute calc operations written.
  std::uint64_t compute_ps = 0;    ///< Their total time.
  /// Collective calls converted, by MPI name, counted once per rank that called them.
  std::map<std::string, std::uint64_t> collectives;
  /// What was left out, by reason (e.g. "MPI_Alltoallw: not converted"), with counts.
  std::map<std::string, std::uint64_t> skipped;
  /// Per schedule rank: traced time from the end of MPI_Init to the start of MPI_Finalize (or
  /// from its first to its last event), nanoseconds.
  std::vector<std::uint64_t> wall_ns;
  /// Per schedule rank: traced compute time (before scaling), nanoseconds.
  std::vector<std::uint64_t> compute_ns;
};

/// A schedule made from a trace, and what the conversion did.
struct ConvertedTrace {
  sim::Schedule schedule;  ///< One program per kept rank.
  ConvertReport report;    ///< Counts, skipped parts.
};

/// Reads `trace` twice (collectives and message counts first, then each rank's program) and
/// builds the schedule. Throws InputError for a trace that would deadlock the simulator (a send
/// without its receive, a collective not every member called; unless drop_unmatched), events
/// on undefined communicators or peers outside them, or bad options.
[[nodiscard]] ConvertedTrace convert_trace(TraceReader& trace, const ConvertOptions& options);

/// Parses `--algo` values: `allreduce=ring,bcast=binomial` (kinds and algorithms as
/// sim::collective_algorithms() lists them). Throws InputError naming the bad entry.
[[nodiscard]] std::map<std::string, std::string, std::less<>> parse_algorithms(std::string_view text);

/// Parses a rank list `0-15,32,40-47` for a trace of `num_ranks` ranks: sorted, without
/// duplicates. Throws InputError for ranks out of range, reversed ranges or bad syntax.
[[nodiscard]] std::vector<std::uint32_t> parse_rank_list(std::string_view text, std::uint32_t num_ranks);

}  // namespace gridlock::trace
