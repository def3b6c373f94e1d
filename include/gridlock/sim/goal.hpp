#pragma once
/// @file
/// Reading and writing schedules: the GOAL text language of LogGOPSim and gridlock's compact
/// binary format (see docs/formats/goal.md).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "gridlock/core/memory.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// Bytes a schedule of `ranks` ranks holds per rank once loaded or generated (its program index
/// and peer start, the builder's flags, the summaries' per-rank counters), and with
/// `keep_sources` its per-rank source tables. Calibrated with /usr/bin/time -v on GOAL files
/// `num_ranks 1000000` and `num_ranks 10000000`: `schedule info` grew by 32 B per rank,
/// `schedule convert` (sources kept) by 60 B; the estimate is twice that.
[[nodiscard]] std::uint64_t estimate_schedule_rank_bytes(std::uint64_t ranks, bool keep_sources) noexcept;

/// Bytes a simulation of a schedule costs on top of the schedule: per rank its host state and
/// finish time, per operation its dependency counter, ready time and queued events. Calibrated
/// with /usr/bin/time -v: `gridlock sim` of `num_ranks 10000000` peaked at 137 B per rank in all
/// (schedule included), of `--program 'allreduce(size=8B)' --ranks 1000000` (40 million
/// operations) at 11 B per operation beyond its ranks; the estimate is rounded up from there.
[[nodiscard]] std::uint64_t estimate_simulation_bytes(std::uint64_t ranks, std::uint64_t total_ops) noexcept;

/// The per-rank part of estimate_simulation_bytes: what a caller that simulates what it loads
/// passes as `extra_bytes_per_rank`, so that a rank count too large to simulate is refused
/// before the ranks are loaded.
inline constexpr std::uint64_t kSimulationBytesPerRank = 160;

/// Parses GOAL text. Errors throw InputError as `source:line:column: expected ..., found ...`.
/// With `keep_sources`, op line numbers and labels are kept for deadlock reports. `max_ranks`
/// bounds `num_ranks` (memory grows with it) for untrusted input; with a `budget`, the schedule's
/// per-rank memory (estimate_schedule_rank_bytes) is reserved in it when `num_ranks` is read, before
/// anything is allocated for the ranks (MemoryBudget::reserve throws InputError past its limit),
/// with `extra_bytes_per_rank` for what the caller allocates per rank afterwards.
[[nodiscard]] Schedule parse_goal(std::string_view text, std::string_view source_name = "<input>",
                                  bool keep_sources = true, std::uint32_t max_ranks = kMaxRanks,
                                  MemoryBudget* budget = nullptr, std::uint64_t extra_bytes_per_rank = 0);

/// Writes a schedule as GOAL text that parse_goal reads back to the same schedule.
/// Calc times are written in nanoseconds when whole (LogGOPSim's unit), else with `ps`.
[[nodiscard]] std::string write_goal(const Schedule& schedule);
/// The same text handed to `sink` in pieces of about 1 MiB, in order (for files too large to hold
/// whole in memory).
void write_goal(const Schedule& schedule, const std::function<void(std::string_view)>& sink);

/// Magic bytes at the start of a binary schedule.
inline constexpr std::string_view kBinaryMagic{"GLSCHED\x1a", 8};
/// Binary format version written by default (read_binary also reads version 1).
inline constexpr std::uint32_t kBinaryVersion = 2;

/// Encodes a schedule in the binary format, programs shared between ranks: version 2 (columns of
/// fixed-width fields, fast to load) or 1 (varints, for older readers). Throws InputError for
/// other versions.
[[nodiscard]] std::string write_binary(const Schedule& schedule, std::uint32_t version = kBinaryVersion);

/// Most threads read_binary uses.
inline constexpr unsigned kMaxLoadThreads = 8;

/// Decodes a binary schedule; every inconsistency throws InputError naming `source_name` and the
/// byte offset. `max_ranks` bounds the number of ranks for untrusted input. Version 2 files are
/// decoded on `threads` threads (at most kMaxLoadThreads; 0: one per core for schedules of more
/// than 2^18 operations per thread); the result and any error message do not depend on it. With a
/// `budget`, the per-rank memory is reserved in it when the header's rank count is read.
[[nodiscard]] Schedule read_binary(std::string_view bytes, std::string_view source_name = "<input>",
                                   std::uint32_t max_ranks = kMaxRanks, unsigned threads = 0,
                                   MemoryBudget* budget = nullptr, std::uint64_t extra_bytes_per_rank = 0);

/// Reads a schedule file, binary if it starts with kBinaryMagic, else GOAL text. Throws IoError
/// if the file cannot be read and InputError if it is malformed (a file of 1 to 7 bytes that
/// begins the magic is a truncated binary schedule). With `keep_sources` false, GOAL text is read
/// without op line numbers and label names (about a third of the reading time of a large file);
/// a caller that needs them for a deadlock report loads the file again (describe_stuck_ops).
/// With a `budget`, the file's bytes and the schedule's per-rank memory are reserved in it before
/// they are allocated (with `extra_bytes_per_rank`, as parse_goal).
[[nodiscard]] Schedule load_schedule(const std::filesystem::path& path, bool keep_sources = true,
                                     MemoryBudget* budget = nullptr, std::uint64_t extra_bytes_per_rank = 0);

/// True if `path` names a binary schedule: its extension is `.gsched` in any case (`.GSCHED`).
[[nodiscard]] bool is_binary_schedule_name(const std::filesystem::path& path);

/// Writes `schedule` atomically: binary if is_binary_schedule_name(path), else GOAL text.
void save_schedule(const Schedule& schedule, const std::filesystem::path& path);

}  // namespace gridlock::sim
