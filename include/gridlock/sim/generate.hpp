#pragma once
/// @file
/// Schedule generator: collective algorithms, halo exchanges and compositions of them
/// (`gridlock schedgen`; algorithms documented in docs/sim-model.md).

#include <cstdint>
#include <string>
#include <string_view>

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

/// One line per step kind with its parameters and defaults, for --help.
[[nodiscard]] std::string generator_help();

}  // namespace gridlock::sim
