#pragma once
/// @file
/// What a schedule contains, without simulating it (`gridlock schedule info`): operations by kind,
/// bytes, message sizes, compute, dependencies, wildcard receives, messages without a partner and
/// the communication matrix. Results first (summarize()), then the text reporter
/// (format_schedule_info()); the JSON reporter is in schedule_info_json.hpp.
///
/// Memory stays linear in the ranks (a few words per rank) and in the operations of one rank,
/// whatever the number of (source, destination) pairs, so a generated collective on a million
/// ranks is summarised like a small one.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// The smallest, median and largest value of a per-rank quantity over the ranks (the median is the
/// lower one, the value of rank (P-1)/2 in sorted order, for an even number of ranks).
struct RankSpread {
  std::uint64_t min = 0;     ///< Smallest value of any rank.
  std::uint64_t median = 0;  ///< Lower median over the ranks.
  std::uint64_t max = 0;     ///< Largest value of any rank.
};

/// A per-rank quantity: its total over all ranks and its spread.
struct RankTotal {
  std::uint64_t total = 0;  ///< Sum over the ranks.
  RankSpread per_rank;      ///< Smallest, median, largest per rank.
};

/// Messages of one power-of-two size class: sizes in [min_bytes, max_bytes].
struct SizeBucket {
  std::uint64_t min_bytes = 0;  ///< Smallest size of the class: 0, or 2^k.
  std::uint64_t max_bytes = 0;  ///< Largest size of the class: 0, or 2^(k+1) - 1.
  std::uint64_t count = 0;      ///< Messages (sends) of this class.
  std::uint64_t bytes = 0;      ///< Their bytes (wraps only beyond 2^64 bytes).
};

/// Traffic of one (source, destination) pair.
struct PairTraffic {
  std::uint32_t src = 0;       ///< Sending rank.
  std::uint32_t dst = 0;       ///< Receiving rank.
  std::uint64_t messages = 0;  ///< Sends from src to dst.
  std::uint64_t bytes = 0;     ///< Their bytes.
};

/// Sends and receives of one (source, destination, tag) that have no partner. `src` is kAnySource
/// and `tag` kAnyTag for wildcard receives left over.
struct UnmatchedKey {
  std::uint32_t src = 0;    ///< Sending rank, or kAnySource (receives from any source).
  std::uint32_t dst = 0;    ///< Receiving rank.
  std::uint32_t tag = 0;    ///< Tag, or kAnyTag (receives of any tag).
  std::uint64_t sends = 0;  ///< Sends without a receive.
  std::uint64_t recvs = 0;  ///< Receives without a send.
};

/// The compute share of traced ranks: calc time over wall time.
struct ComputeShare {
  std::uint64_t wall_ps_total = 0;       ///< Sum of the ranks' wall times.
  double overall = 0;                    ///< Sum of calc time / sum of wall time.
  double min = 0;                        ///< Smallest share of a rank with a wall time.
  double median = 0;                     ///< Lower median share.
  double max = 0;                        ///< Largest share.
  std::uint32_t ranks_without_wall = 0;  ///< Ranks whose wall time is 0 (left out of min/median/max).
};

/// Settings of summarize().
struct ScheduleInfoOptions {
  /// Where the schedule came from, reported as given: "goal", "binary", "otf2", "generated", or "".
  std::string source_kind;
  /// Each rank's traced wall time in picoseconds (empty: none, as for a plain schedule); when given,
  /// one entry per rank, and the compute share is reported.
  std::vector<std::uint64_t> wall_ps;
  std::uint32_t top_pairs = 10;        ///< Pairs listed by bytes (ScheduleInfo::top_pairs).
  std::uint32_t unmatched_listed = 8;  ///< Unmatched keys listed (ScheduleInfo::unmatched).
  /// Most (source, destination, tag) keys the detailed matching check keeps; beyond it the check
  /// stops and gives per-destination counts (ScheduleInfo::unmatched_exact false).
  std::uint64_t max_match_keys = std::uint64_t{1} << 20U;
};

/// The summary of a schedule (summarize()).
struct ScheduleInfo {
  std::string source_kind;             ///< ScheduleInfoOptions::source_kind.
  std::uint32_t ranks = 0;             ///< Ranks.
  std::uint64_t programs = 0;          ///< Distinct programs with their peers (what a binary file stores).
  std::uint64_t operations = 0;        ///< All operations.
  RankTotal sends;                     ///< Send operations.
  RankTotal recvs;                     ///< Receive operations.
  RankTotal calcs;                     ///< Calc operations.
  RankTotal bytes_sent;                ///< Bytes of the sends.
  RankTotal calc_ps;                   ///< Calc time in picoseconds.
  std::vector<SizeBucket> sizes;       ///< Non-empty size classes of the sends, smallest first.
  bool has_wall = false;               ///< Wall times were given: `share` is set.
  ComputeShare share;                  ///< Calc time over wall time (only with has_wall).
  std::uint64_t requires_edges = 0;    ///< `a requires b` dependencies.
  std::uint64_t irequires_edges = 0;   ///< `a irequires b` dependencies.
  std::uint64_t any_source_recvs = 0;  ///< Receives from any source.
  std::uint64_t any_tag_recvs = 0;     ///< Receives of any tag.
  /// Sends without a receive, matched by (source, destination, tag) counts as the simulator matches
  /// them (sizes and order aside).
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_recvs = 0;  ///< Receives without a send (wildcards included).
  /// The first unmatched keys (by destination, source, tag), at most ScheduleInfoOptions::unmatched_listed.
  std::vector<UnmatchedKey> unmatched;
  /// True if the counts above are exact; false if the check reached max_match_keys, and the counts
  /// are per-destination differences (lower bounds) and nothing is listed.
  bool unmatched_exact = true;
  std::uint64_t pairs = 0;             ///< Distinct (source, destination) pairs with messages.
  std::uint32_t max_out_partners = 0;  ///< Most destinations of one rank.
  std::uint32_t max_out_rank = 0;      ///< First rank with that many destinations.
  std::uint32_t max_in_partners = 0;   ///< Most sources of one rank.
  std::uint32_t max_in_rank = 0;       ///< First rank with that many sources.
  /// For every pair (a, b) with messages there are messages from b to a too.
  bool symmetric = true;
  /// The pairs with the most bytes, most first (ties: by source, then destination).
  std::vector<PairTraffic> top_pairs;
  /// Mean destinations (= mean sources) per rank: pairs / ranks.
  [[nodiscard]] double mean_partners() const noexcept {
    return ranks == 0 ? 0.0 : static_cast<double>(pairs) / static_cast<double>(ranks);
  }
};

/// Summarises `schedule`. Throws InputError if `options.wall_ps` is neither empty nor one entry
/// per rank.
[[nodiscard]] ScheduleInfo summarize(const Schedule& schedule, const ScheduleInfoOptions& options = {});

/// The kind of a schedule file as load_schedule() reads it: "binary" if it starts with
/// kBinaryMagic (or a part of it), else "goal"; "" if it is not a regular file (a shell pipe, which
/// load_schedule() has read already). Throws IoError if it cannot be read.
[[nodiscard]] std::string schedule_file_kind(const std::filesystem::path& path);

/// The summary as text tables (docs/formats/goal.md, `gridlock schedule info`); `name` names the
/// schedule (a file name) in the first line. A schedule with unmatched messages gets a line
/// starting with `warning:`.
[[nodiscard]] std::string format_schedule_info(const ScheduleInfo& info, const std::string& name);

}  // namespace gridlock::sim
