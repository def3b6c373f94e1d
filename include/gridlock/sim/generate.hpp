#pragma once
/// @file
/// Schedule generator: collective algorithms, halo exchanges and compositions of them
/// (`gridlock schedgen`; algorithms documented in docs/sim-model.md).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// Builds the schedule of `spec` on `ranks` ranks. `spec` is a sequence of steps separated by
/// `;`, each `name(key=value, ...)`, and `k x [ ... ]` repeats a sub-sequence k times, e.g.
/// `10x[allreduce(size=8B, algo=recdoub); calc(time=50us)]`. Every step on a rank starts after
/// the previous step's last operations on that rank. Deterministic for a given `seed`.
/// Throws InputError for unknown steps, parameters or impossible layouts.
[[nodiscard]] Schedule generate(std::string_view spec, std::uint32_t ranks, std::uint64_t seed);

/// Checks `spec` for `ranks` ranks as generate() would (unknown steps or parameters, impossible
/// layouts such as a root beyond the ranks or dims whose product is not `ranks`) without building
/// the schedule: cheap even for a million ranks, so every scale can be checked before a study
/// starts. Throws InputError; errors that only building finds (e.g. a rank with too many
/// operations) are left to generate().
void check_program(std::string_view spec, std::uint32_t ranks, std::uint64_t seed);

/// How many operations generate() builds for `spec` on `ranks` ranks, from formulas (at least as
/// many, at most about twice: a join between two steps is counted on every rank), without
/// building anything: a caller reserves the memory of the run before a few bytes of spec
/// (`alltoall` on 100000 ranks: 20 billion operations) cost minutes and gigabytes. Saturating.
/// Throws InputError as check_program() does.
[[nodiscard]] std::uint64_t estimate_program_ops(std::string_view spec, std::uint32_t ranks,
                                                 std::uint64_t seed);

/// One line per step kind with its parameters and defaults, for --help.
[[nodiscard]] std::string generator_help();

/// One collective of the generator's library run on a group of ranks (a communicator of a
/// traced program): what emit_collective() builds.
struct CollectiveStep {
  /// bcast, reduce, allreduce, allgather, alltoall, gather, scatter or barrier.
  std::string kind;
  /// One of collective_algorithms(kind); empty: the generator's default for the kind.
  std::string algo;
  /// Bytes as the program spec's `size` means them (allgather: the per-rank block; alltoall:
  /// per destination; barrier: ignored).
  std::uint64_t size_bytes = 8;
  /// Root as a position in the group (bcast, reduce, gather, scatter).
  std::uint32_t root = 0;
  /// Reduction time per byte (reduce, allreduce), picoseconds.
  std::uint64_t compute_ps_per_byte = 0;
  /// Segment size of the chain broadcast.
  std::uint64_t segment_bytes = 8192;
};

/// The algorithms of a collective kind, the default first; empty for a kind that is not one.
[[nodiscard]] std::vector<std::string> collective_algorithms(std::string_view kind);

/// Appends the part of `step` that group position `position` runs to the current rank of
/// `builder`, with the same algorithms as generate() on the group `members` (ranks of the
/// schedule in group order). The step's messages carry tags `tag_base` .. `tag_base` + 5. Its
/// first operations require every op in `after`; returns its last operations (or `after` when
/// the rank has nothing to do, e.g. a group of one). Throws InputError for an unknown kind or
/// algorithm, a root or position outside the group, or a step too large for a rank.
[[nodiscard]] std::vector<std::uint32_t> emit_collective(ScheduleBuilder& builder, const CollectiveStep& step,
                                                         std::span<const std::uint32_t> members,
                                                         std::uint32_t position, std::uint32_t tag_base,
                                                         std::span<const std::uint32_t> after);

}  // namespace gridlock::sim
