#pragma once
/// @file
/// The LogGOPS discrete-event engine (LogGOPSim semantics; see docs/sim-model.md).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// LogGOPS parameters; times in picoseconds. Defaults: L=2.5us o=1.5us g=1us G=6ns O=0 S=65535.
struct LogGOPSParams {
  SimTime latency{2'500'000};                   ///< L: wire latency.
  SimTime overhead_send{1'500'000};             ///< o on the sender (LogGOPSim: one o for both sides).
  SimTime overhead_recv{1'500'000};             ///< o on the receiver.
  SimTime gap{1'000'000};                       ///< g: minimum time between two messages on a NIC.
  SimTime gap_per_byte{6'000};                  ///< G: NIC time per byte after the first.
  SimTime overhead_per_byte{0};                 ///< O: CPU time per byte after the first.
  std::uint64_t eager_threshold_bytes = 65535;  ///< S: larger messages use rendezvous.
  /// Extension (off: LogGOPSim): a rendezvous message first sends a request-to-send and waits
  /// for a clear-to-send from the receiver once a receive matches it; each control message costs
  /// like a one-byte message (o and g at both ends, L on the wire). See docs/sim-model.md.
  bool rendezvous_handshake = false;
};

struct NoiseInjection;  // gridlock/sim/noise.hpp
class NetworkModel;     // gridlock/sim/network.hpp

/// How the engine orders events (results are the same either way; docs/sim-model.md).
enum class EventOrder : std::uint8_t {
  /// Windowed where it pays: noise with a phase per rank, at least 2,048 ranks and no timeline;
  /// global otherwise.
  kAuto,
  /// One event at a time in (time, stamp) order, as LogGOPSim.
  kGlobal,
  /// Host by host within windows shorter than o_s + L whenever possible (for verification).
  kWindowed,
};

/// How noise delays CPU work (docs/sim-model.md, "Noise" and "Differences").
enum class NoiseRule : std::uint8_t {
  /// A detour in progress delays the start; every detour that starts before the (extended) end
  /// extends the work, and a send's message leaves when its noisy o_s ends.
  kGridlock,
  /// LogGOPSim's: the rest of a detour in progress and the detours that start within o_s, o_r or
  /// a calc (not within the time they add) are added to the CPU's free time; the message still
  /// leaves at t + o_s.
  kLogGOPSim,
};

/// `gridlock` or `loggopsim` (the --noise-rule values).
[[nodiscard]] const char* to_string(NoiseRule rule) noexcept;

/// Parses a --noise-rule value; throws InputError naming `what` otherwise.
[[nodiscard]] NoiseRule parse_noise_rule(const std::string& text, const std::string& what);

/// Where a running simulation is, for progress displays (SimOptions::progress).
struct SimProgress {
  std::uint64_t events = 0;         ///< Events processed so far.
  std::uint64_t ops_completed = 0;  ///< Operations completed so far.
  std::uint64_t ops_total = 0;      ///< Operations in the schedule.
  SimTime now;                      ///< Simulated time of the last event processed.
  /// True when a windowed run could not prove its order equal to LogGOPSim's and the schedule is
  /// simulated again in global order (the counts start over).
  bool rerun = false;
};

/// Engine options.
struct SimOptions {
  LogGOPSParams params;                           ///< Network and host parameters.
  bool record_timeline = false;                   ///< Record slices for a timeline (small runs only).
  std::uint64_t max_timeline_slices = 2'000'000;  ///< Refuse to record more slices than this.
  /// Re-time events waiting for a busy host as a group when that is provably what LogGOPSim's
  /// one-by-one retries would do (same results, linear instead of quadratic work when messages
  /// pile up). false: retry every waiting event on its own, as LogGOPSim does (for verification).
  bool fold_retries = true;
  /// Noise to inject (not owned; null: none). See docs/sim-model.md, "Noise".
  const NoiseInjection* noise = nullptr;
  /// How the noise delays CPU work (no effect without noise).
  NoiseRule noise_rule = NoiseRule::kGridlock;
  /// Event order; every choice gives the same results (a windowed run that cannot prove its order
  /// equal to LogGOPSim's is rerun in global order).
  EventOrder event_order = EventOrder::kAuto;
  /// Called on the simulating thread every `progress_every_events` events (empty: never), for a
  /// progress display of a long run. It sees the state; it cannot change the result.
  std::function<void(const SimProgress&)> progress;
  /// Events between two progress calls (at least 1).
  std::uint64_t progress_every_events = std::uint64_t{1} << 22U;
  /// A network model that decides when each message arrives (not owned; null: LogGOPS, every
  /// message L after its o_s). With a model the events are processed in global order and a
  /// receiver is charged o_r plus max(O - G, 0) per byte after the first when the last byte
  /// arrives (the model carries the bytes; docs/network-models.md).
  NetworkModel* network = nullptr;
  /// Called on the simulating thread when an operation completes, with its rank, its index in
  /// the rank's program and its completion time (empty: never). For measurements on a
  /// simulation, such as `gridlock predict gpcnet`'s per-iteration canary times.
  std::function<void(std::uint32_t rank, std::uint32_t op, SimTime end)> on_op_done;
  /// With repeating programs (Schedule::repeats): the run stops, incomplete, at the first event
  /// later than this, so that a rank that never finishes cannot keep the repeating ones running
  /// for ever. Required (non-zero) for such a schedule; no effect on others.
  SimTime repeat_time_limit{};
  /// Stop on request (not owned; null: never): read once per event, and when it is true the run
  /// stops after that event, as a repeating run stops when its finite ranks end: the operations
  /// not done then are not a defect (SimResult::stopped_by_request). Set it from on_op_done, e.g.
  /// when a measurement has enough samples. A run with it is processed in global event order.
  const bool* stop_flag = nullptr;
};

/// One slice of the timeline: an interval on a rank's CPU or network track.
struct TimelineSlice {
  std::uint32_t rank = 0;   ///< Rank the slice belongs to.
  std::uint8_t track = 0;   ///< 0: CPU (ops, message handling); 1: network (message in flight).
  std::uint8_t kind = 0;    ///< OpType value, or 4 for a message.
  std::uint32_t peer = 0;   ///< Peer rank of sends, receives and messages.
  std::uint64_t bytes = 0;  ///< Message size (0 for calc).
  SimTime start;            ///< Start of the interval.
  SimTime end;              ///< End of the interval.
};

/// An operation that never completed (deadlock or unmatched message report).
struct StuckOp {
  std::uint32_t rank = 0;   ///< Rank of the operation.
  std::uint32_t op = 0;     ///< Index of the operation in the rank's program.
  std::string description;  ///< e.g. `recv 8b from 3 tag 0 (label r2, line 14)`.
  std::string state;        ///< Why it is stuck.
};

/// What a simulation produced.
struct SimResult {
  bool complete = false;  ///< All ops completed and no message is left over (or stopped_by_request).
  SimTime max_finish;     ///< Latest finish time over all ranks.
  std::uint32_t max_finish_rank = 0;    ///< First rank with the latest finish time.
  std::vector<SimTime> finish;          ///< Per-rank finish time (CPU free time at the end).
  std::uint64_t ops_completed = 0;      ///< Operations that completed.
  std::uint64_t ops_total = 0;          ///< Operations in the schedule.
  std::uint64_t messages = 0;           ///< Messages sent.
  std::uint64_t events = 0;             ///< Queue entries processed (including retries and group wake-ups).
  double wall_seconds = 0;              ///< Wall time of the event loop.
  double cpu_seconds = 0;               ///< Process CPU time of the event loop (one core).
  std::vector<StuckOp> stuck;           ///< First stuck op of up to 16 ranks (if incomplete).
  std::uint64_t stuck_ranks = 0;        ///< Ranks with stuck ops.
  std::uint64_t unexpected_left = 0;    ///< Messages never received.
  std::vector<TimelineSlice> timeline;  ///< Slices, if requested.
  bool windowed = false;                ///< The events were processed host by host in windows.
  std::uint64_t network_in_flight = 0;  ///< Messages a network model never delivered (incomplete run).
  /// With repeating programs: per rank, the times its program ran through (the fewest over its
  /// weakly connected parts; 0 for ranks that do not repeat). Empty otherwise.
  std::vector<std::uint64_t> repeat_cycles;
  /// With repeating programs: when the run stopped, the later of the last event processed and the
  /// last completion of a rank that does not repeat (the run stops when the last of them
  /// finishes). ops_total and ops_completed count only the ranks that do not repeat, and
  /// messages every message sent.
  SimTime stopped_at;
  /// With repeating programs: the run reached SimOptions::repeat_time_limit first (incomplete).
  bool time_limit_reached = false;
  /// SimOptions::stop_flag was set: the run stopped at `stopped_at` as asked. `complete` then
  /// means "stopped as asked" (no stuck operations are reported: ops and messages left over are
  /// those the stop cut off), and ops_completed counts what ran.
  bool stopped_by_request = false;
};

/// Simulates `schedule` and returns finish times and counters. Never throws for a deadlocked or
/// unmatched schedule (see SimResult::complete); throws InputError if simulated time overflows.
[[nodiscard]] SimResult simulate(const Schedule& schedule, const SimOptions& options);

/// A multi-line, user-facing report of why `result` is incomplete.
[[nodiscard]] std::string stuck_report(const SimResult& result);

/// Describes `result`'s stuck operations again from `schedule`: the same schedule, loaded with
/// its sources, so that a run simulated without them still reports line numbers and labels.
void describe_stuck_ops(SimResult& result, const Schedule& schedule);

/// Human-readable description of op `op` of `rank` (type, size, peer, tag, label, line).
[[nodiscard]] std::string describe_op(const Schedule& schedule, std::uint32_t rank, std::uint32_t op);

}  // namespace gridlock::sim
