#pragma once
/// @file
/// In-memory LogGOPS schedules: per-rank programs of send, recv and calc operations with
/// `requires` (after completion) and `irequires` (after start) dependencies.
///
/// Ranks whose programs are identical up to a rank-relative peer share one `Program`, so a
/// million-rank collective built from a few distinct shapes costs almost no memory. Peers are
/// kept apart from the programs (Schedule::peer_offsets), so ranks whose programs differ only in
/// their peers (a random ring read from a binary file) share the program too and cost four bytes
/// per operation.

#include <algorithm>
#include <compare>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gridlock/core/error.hpp"

namespace gridlock::sim {

/// Simulated time in integer picoseconds (never floating point).
struct SimTime {
  std::uint64_t ps = 0;  ///< Picoseconds since the start of the simulation.
  /// Time ordering.
  // clang-tidy 14 takes the literal 0 of a comparison rewritten through <=> (a < b becomes
  // (a <=> b) < 0) for a null pointer constant.
  friend constexpr auto operator<=>(SimTime, SimTime) = default;  // NOLINT(modernize-use-nullptr)
};

/// Picoseconds in one nanosecond.
inline constexpr std::uint64_t kPsPerNs = 1000;
/// Picoseconds in one microsecond.
inline constexpr std::uint64_t kPsPerUs = 1'000'000;
/// `ps` picoseconds in microseconds, for reports (simulator time itself stays integer).
inline constexpr double us_from_ps(std::uint64_t ps) {
  return static_cast<double>(ps) / static_cast<double>(kPsPerUs);
}

/// Peer value of a receive from any source (GOAL `-1`).
inline constexpr std::uint32_t kAnySource = 0xFFFFFFFFU;
/// Tag value of a receive matching any tag (GOAL `tag -1`).
inline constexpr std::uint32_t kAnyTag = 0xFFFFFFFFU;
/// Largest number of ranks a schedule may have.
inline constexpr std::uint32_t kMaxRanks = 0xFFFFFFFEU;
/// Largest number of operations in one rank's program.
inline constexpr std::uint32_t kMaxOpsPerRank = 0x7FFFFFFFU;

/// Operation kinds; the numeric order is LogGOPSim's tie-break order for operations that
/// become ready at the same time on one rank (sends first, then receives, then calcs).
enum class OpType : std::uint8_t {
  kSend = 1,  ///< Send `size` bytes to `peer`.
  kRecv = 2,  ///< Receive `size` bytes from `peer` (or any source).
  kCalc = 3,  ///< Occupy the CPU for `size` picoseconds.
};

/// One operation of a program.
struct Op {
  std::uint64_t size = 0;  ///< Bytes for send/recv; picoseconds for calc.
  /// (peer - rank) mod P, or kAnySource; 0 for calc. In a Schedule's programs it is 0 for every
  /// op with a peer (ranks share programs whatever their peers): use Schedule::peer().
  std::uint32_t peer_offset = 0;
  std::uint32_t tag = 0;        ///< Message tag, or kAnyTag for receives.
  OpType type = OpType::kCalc;  ///< What the operation does.
  std::uint8_t cpu = 0;         ///< CPU of the host that runs the operation.
  std::uint8_t nic = 0;         ///< NIC of the host used by sends and receives.
  /// Field-wise equality.
  friend bool operator==(const Op&, const Op&) = default;
};

/// The operations of one rank (possibly shared by many ranks) and their dependencies: a read-only
/// view into the schedule's flat program store (see ProgramStore), valid while the Schedule or
/// any copy of it lives.
struct Program {
  std::span<const Op> ops;  ///< Operations in definition order.
  /// CSR offsets, size 2n+1: ops that require op i are succ[succ_begin[2i] .. succ_begin[2i+1]),
  /// ops that irequire op i are succ[succ_begin[2i+1] .. succ_begin[2i+2]).
  std::span<const std::uint32_t> succ_begin;
  std::span<const std::uint32_t> succ;       ///< Successor op indices (see succ_begin).
  std::span<const std::uint32_t> dep_count;  ///< Number of dependencies of each op.
  std::span<const std::uint32_t> roots;      ///< Ops without dependencies, by type then index.
  /// Structural equality (ops and dependency lists), element by element.
  friend bool operator==(const Program& a, const Program& b) {
    return std::ranges::equal(a.ops, b.ops) && std::ranges::equal(a.succ_begin, b.succ_begin) &&
           std::ranges::equal(a.succ, b.succ) && std::ranges::equal(a.dep_count, b.dep_count) &&
           std::ranges::equal(a.roots, b.roots);
  }
};

/// Where one program's arrays lie in a ProgramStore (element offsets and counts).
struct ProgramExtent {
  std::uint64_t op_begin = 0;     ///< First op in ProgramStore::ops (and dep_count).
  std::uint64_t succ_offset = 0;  ///< First successor in ProgramStore::succ.
  std::uint64_t root_begin = 0;   ///< First root in ProgramStore::roots.
  std::uint32_t num_ops = 0;      ///< Operations (succ_begin holds 2 * num_ops + 1 offsets).
  std::uint32_t num_succ = 0;     ///< Successor entries.
  std::uint32_t num_roots = 0;    ///< Roots.
};

/// All programs of a schedule in five flat arrays, program after program, so loading a schedule
/// with many distinct programs costs a handful of allocations instead of five per program.
struct ProgramStore {
  std::vector<Op> ops;  ///< Every program's ops.
  /// Every program's CSR offsets (2n+1 each, relative to the program's own successors).
  std::vector<std::uint32_t> succ_begin;
  std::vector<std::uint32_t> succ;       ///< Every program's successor op indices.
  std::vector<std::uint32_t> dep_count;  ///< Every program's dependency counts (indexed like ops).
  std::vector<std::uint32_t> roots;      ///< Every program's roots.
  std::vector<ProgramExtent> extents;    ///< One per program, in program order.
  /// Program `p` as a view; succ_begin of program p starts at 2 * op_begin + p.
  [[nodiscard]] Program view(std::size_t p) const;
};

/// Where an operation was defined in a text schedule.
struct SourceLocation {
  std::uint32_t line = 0;    ///< 1-based line.
  std::uint32_t column = 0;  ///< 1-based column in characters (UTF-8 code points), as editors count.
};

/// A labelled operation of one rank: its index and its label's index in Schedule::label_names().
struct OpLabel {
  std::uint32_t op = 0;     ///< Operation index within the rank.
  std::uint32_t label = 0;  ///< Index into Schedule::label_names().
  /// Field-wise equality.
  friend bool operator==(const OpLabel&, const OpLabel&) = default;
};

/// Source information of one rank's operations (text schedules only). Label names are stored once
/// per schedule (a LogGOPSim file names the ops of every rank l0, l1, ...), so a million-rank file
/// does not keep a million copies of each.
struct RankSource {
  std::vector<SourceLocation> where;  ///< Location of each op.
  std::vector<OpLabel> labels;        ///< Labelled ops, in increasing op order.
};

/// A complete schedule: one program per rank.
class Schedule {
 public:
  /// An empty schedule (0 ranks).
  Schedule() = default;

  /// Number of ranks.
  [[nodiscard]] std::uint32_t num_ranks() const noexcept { return num_ranks_; }
  /// Distinct programs (operations and dependencies; each rank's peers are in peer_offsets()).
  [[nodiscard]] const std::vector<Program>& programs() const noexcept { return programs_; }
  /// Index into programs() of each rank's program.
  [[nodiscard]] const std::vector<std::uint32_t>& rank_program() const noexcept { return rank_program_; }
  /// The program of `rank`.
  [[nodiscard]] const Program& program_of(std::uint32_t rank) const { return programs_[rank_program_[rank]]; }
  /// Peer offsets of the ops of `rank`, one per op of program_of(rank): (peer - rank) mod P,
  /// kAnySource for any-source receives, 0 for calcs.
  [[nodiscard]] std::span<const std::uint32_t> peer_offsets(std::uint32_t rank) const {
    return {peer_store_.get() + rank_peer_begin_[rank], programs_[rank_program_[rank]].ops.size()};
  }
  /// Where peer_offsets(rank) begins in the schedule's peer store; ranks with equal values have
  /// the same peers (the binary writer shares their programs by it).
  [[nodiscard]] std::uint64_t peer_begin(std::uint32_t rank) const { return rank_peer_begin_[rank]; }
  /// Absolute peer of op `op` of `rank` (kAnySource for any-source receives; `rank` itself for
  /// calcs, whose offset is 0).
  [[nodiscard]] std::uint32_t peer(std::uint32_t rank, std::uint32_t op) const {
    const std::uint32_t offset = peer_store_[rank_peer_begin_[rank] + op];
    if (offset == kAnySource) {
      return kAnySource;
    }
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(rank) + offset) % num_ranks_);
  }
  /// The distinct (program, peers) pairs of the ranks (the programs a binary file stores), in the
  /// order of their first ranks.
  struct ProgramsWithPeers {
    std::vector<std::uint32_t> first_rank;  ///< First rank of each pair.
    std::vector<std::uint32_t> of_rank;     ///< Index into first_rank of each rank's pair.
  };
  /// The distinct (program, peers) pairs (see ProgramsWithPeers).
  [[nodiscard]] ProgramsWithPeers programs_with_peers() const;
  /// Total operations over all ranks.
  [[nodiscard]] std::uint64_t total_ops() const noexcept;
  /// Total messages (sends) over all ranks.
  [[nodiscard]] std::uint64_t total_sends() const noexcept;
  /// Source locations per rank (empty unless parsed from text).
  [[nodiscard]] const std::vector<RankSource>& sources() const noexcept { return sources_; }
  /// Distinct label names of the text schedule, indexed by OpLabel::label.
  [[nodiscard]] const std::vector<std::string>& label_names() const noexcept { return label_names_; }
  /// The label of op `op` on `rank`, or an empty view if it has none (or the schedule was not
  /// parsed from text with sources kept).
  [[nodiscard]] std::string_view label_of(std::uint32_t rank, std::uint32_t op) const;
  /// Sets the source information (used by the text parser); every OpLabel::label must index
  /// `label_names`.
  void set_sources(std::vector<RankSource> sources, std::vector<std::string> label_names);
  /// Largest CPU index used plus one.
  [[nodiscard]] std::uint32_t num_cpus() const noexcept { return num_cpus_; }
  /// Largest NIC index used plus one.
  [[nodiscard]] std::uint32_t num_nics() const noexcept { return num_nics_; }

  /// True if `rank`'s program repeats (ScheduleBuilder::set_repeating): each weakly connected
  /// part of it starts again when all its operations have completed, until every rank that does
  /// not repeat has finished (docs/sim-model.md, "Repeating programs").
  [[nodiscard]] bool repeats(std::uint32_t rank) const noexcept {
    return rank < repeats_.size() && repeats_[rank] != 0;
  }
  /// True if some rank's program repeats. Such a schedule lives in memory only: the GOAL writers
  /// refuse it.
  [[nodiscard]] bool has_repeating() const noexcept { return !repeats_.empty(); }

  /// Same ranks, same operations, same dependencies, same repeating ranks (source information is
  /// ignored).
  [[nodiscard]] bool same_as(const Schedule& other) const;

 private:
  friend class ScheduleBuilder;
  std::uint32_t num_ranks_ = 0;
  std::uint32_t num_cpus_ = 1;
  std::uint32_t num_nics_ = 1;
  // Takes the peer offsets out of the programs' ops into peer_store_ (each rank's begin at its
  // program's first op) and zeroes them in the ops; `store` then becomes the schedule's.
  void adopt_with_peers_in_ops(ProgramStore store);

  // Immutable once built and shared between copies, so the views in programs_ stay valid.
  std::shared_ptr<const ProgramStore> store_;
  std::vector<Program> programs_;
  std::vector<std::uint32_t> rank_program_;
  // Peer offsets, op by op, of each distinct (program, peers) pair; rank r's start at
  // rank_peer_begin_[r].
  std::shared_ptr<const std::uint32_t[]> peer_store_;
  std::vector<std::uint64_t> rank_peer_begin_;
  std::vector<RankSource> sources_;
  std::vector<std::string> label_names_;
  // Per rank, 1 if its program repeats; empty when none does.
  std::vector<std::uint8_t> repeats_;
};

/// A dependency cycle found while finishing a rank; `ops` lists the ops on the cycle.
class CycleError : public InputError {
 public:
  /// Creates the error with the rank and the ops on the cycle.
  CycleError(std::uint32_t rank, std::vector<std::uint32_t> ops);
  /// The rank with the cycle.
  [[nodiscard]] std::uint32_t rank() const noexcept { return rank_; }
  /// Ops on the cycle, in dependency order.
  [[nodiscard]] const std::vector<std::uint32_t>& ops() const noexcept { return ops_; }

 private:
  std::uint32_t rank_;
  std::vector<std::uint32_t> ops_;
};

namespace detail {
/// The binary schedule reader's access to ScheduleBuilder (defined in goal_binary.cpp).
struct BinaryLoader;
}  // namespace detail

/// Builds a Schedule rank by rank; identical programs are shared, and so are identical peer lists.
class ScheduleBuilder {
 public:
  /// A builder for `num_ranks` ranks (1 .. kMaxRanks); throws InputError otherwise.
  explicit ScheduleBuilder(std::uint32_t num_ranks);

  /// Starts the program of `rank`; each rank may be built once. Throws InputError.
  void begin_rank(std::uint32_t rank);
  /// Adds a send of `bytes` to `to`; returns the op index within the rank.
  std::uint32_t send(std::uint64_t bytes, std::uint32_t to, std::uint32_t tag = 0, std::uint8_t cpu = 0,
                     std::uint8_t nic = 0);
  /// Adds a receive of `bytes` from `from` (or kAnySource) with `tag` (or kAnyTag).
  std::uint32_t recv(std::uint64_t bytes, std::uint32_t from, std::uint32_t tag = 0, std::uint8_t cpu = 0,
                     std::uint8_t nic = 0);
  /// Adds a computation of `duration` on `cpu`.
  std::uint32_t calc(SimTime duration, std::uint8_t cpu = 0);
  /// `a requires b`: op a starts only after op b has completed.
  void add_requires(std::uint32_t a, std::uint32_t b);
  /// `a irequires b`: op a starts only after op b has started.
  void add_irequires(std::uint32_t a, std::uint32_t b);
  /// Number of ops in the current rank so far.
  [[nodiscard]] std::uint32_t current_size() const noexcept {
    return static_cast<std::uint32_t>(ops_.size());
  }
  /// True if op `i` of the current rank has a dependency / a dependant so far.
  [[nodiscard]] bool has_predecessor(std::uint32_t i) const { return has_pred_[i] != 0; }
  /// True if some op of the current rank depends on op `i` so far.
  [[nodiscard]] bool has_successor(std::uint32_t i) const { return has_succ_[i] != 0; }
  /// Gives `rank` (not yet built) the same program as the already built `like_rank`; both must be
  /// ranks whose peers are the same relative to themselves. Throws InputError.
  void set_rank_like(std::uint32_t rank, std::uint32_t like_rank);
  /// Finishes the current rank; throws CycleError if its dependencies contain a cycle.
  void end_rank();
  /// Makes `rank`'s program repeat (Schedule::repeats): a generator, such as a congestor that
  /// keeps its pattern running for as long as the measured ranks run, built as one iteration.
  /// Throws InputError for a rank out of range.
  void set_repeating(std::uint32_t rank);
  /// The schedule; ranks never begun get empty programs. The builder is left empty.
  [[nodiscard]] Schedule finish();

  /// A schedule from finished programs (ops with their peer offsets, succ_begin, succ and extents
  /// filled in with num_ops and num_succ; dep_count, roots and the other extent fields are
  /// computed here, and the peer offsets are moved to Schedule::peer_offsets) and each rank's
  /// program index, without re-deduplicating: how version 1 binary schedules are loaded. Validates the
  /// layout, peer offsets, dependency targets and program indices, and checks every program for cycles.
  /// Throws InputError naming the program.
  [[nodiscard]] static Schedule from_programs(std::uint32_t num_ranks, ProgramStore programs,
                                              std::vector<std::uint32_t> rank_program);

 private:
  // The binary reader validates and completes programs while decoding them (one pass, in cache)
  // and hands them over through adopt_checked without a second check.
  friend struct detail::BinaryLoader;
  [[nodiscard]] static Schedule adopt_checked(std::uint32_t num_ranks, std::uint32_t num_cpus,
                                              std::uint32_t num_nics, ProgramStore programs,
                                              std::vector<std::uint32_t> rank_program,
                                              std::shared_ptr<const std::uint32_t[]> peer_store,
                                              std::vector<std::uint64_t> rank_peer_begin);
  std::uint32_t add_op(const Op& op);
  [[nodiscard]] std::uint32_t offset_of(std::uint32_t peer) const;
  void append_program(const Program& program);

  Schedule schedule_;
  std::vector<std::uint8_t> built_;
  std::uint32_t rank_ = 0;
  bool in_rank_ = false;
  std::vector<Op> ops_;
  std::vector<std::uint8_t> has_pred_;
  std::vector<std::uint8_t> has_succ_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> done_edges_;   // (b, a): a requires b
  std::vector<std::pair<std::uint32_t, std::uint32_t>> start_edges_;  // (b, a): a irequires b
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash_;
  ProgramStore store_;
  // The rank being finished, before it is compared with the stored programs.
  ProgramStore scratch_;
  std::vector<std::uint32_t> fill_;
  // The raw ops and edges of the last rank finished and its program: consecutive ranks of a
  // collective usually build exactly these again.
  std::vector<Op> last_ops_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> last_done_edges_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> last_start_edges_;
  std::uint32_t last_program_ = 0xFFFFFFFFU;
  std::uint64_t last_peer_begin_ = 0;
  // Peer offsets of the distinct peer lists met so far (Schedule::peer_offsets), found by hash.
  std::vector<std::uint32_t> peers_;
  std::unordered_multimap<std::uint64_t, std::uint64_t> peers_by_hash_;
  // Where the current rank's peers are in peers_ (added if new).
  std::uint64_t add_peers();
};

}  // namespace gridlock::sim
