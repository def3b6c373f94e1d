#pragma once
/// @file
/// Reading and writing schedules: the GOAL text language of LogGOPSim and gridlock's compact
/// binary format (see docs/formats/goal.md).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// Parses GOAL text. Errors throw InputError as `source:line:column: expected ..., found ...`.
/// With `keep_sources`, op line numbers and labels are kept for deadlock reports. `max_ranks`
/// bounds `num_ranks` (memory grows with it) for untrusted input.
[[nodiscard]] Schedule parse_goal(std::string_view text, std::string_view source_name = "<input>",
                                  bool keep_sources = true, std::uint32_t max_ranks = kMaxRanks);

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
/// than 2^18 operations per thread); the result and any error message do not depend on it.
[[nodiscard]] Schedule read_binary(std::string_view bytes, std::string_view source_name = "<input>",
                                   std::uint32_t max_ranks = kMaxRanks, unsigned threads = 0);

/// Reads a schedule file, binary if it starts with kBinaryMagic, else GOAL text. Throws IoError
/// if the file cannot be read and InputError if it is malformed (a file of 1 to 7 bytes that
/// begins the magic is a truncated binary schedule). With `keep_sources` false, GOAL text is read
/// without op line numbers and label names (about a third of the reading time of a large file);
/// a caller that needs them for a deadlock report loads the file again (describe_stuck_ops).
[[nodiscard]] Schedule load_schedule(const std::filesystem::path& path, bool keep_sources = true);

/// True if `path` names a binary schedule: its extension is `.gsched` in any case (`.GSCHED`).
[[nodiscard]] bool is_binary_schedule_name(const std::filesystem::path& path);

/// Writes `schedule` atomically: binary if is_binary_schedule_name(path), else GOAL text.
void save_schedule(const Schedule& schedule, const std::filesystem::path& path);

}  // namespace gridlock::sim
