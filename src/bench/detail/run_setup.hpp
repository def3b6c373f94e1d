#pragma once
// The set-up steps that `gridlock-bench load|network` (runner.cpp) and `congest` (congest.cpp)
// share: the seed every rank agrees on, the context block of the layout, the peak memory.

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "gridlock/bench/layout.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/schema.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::bench::detail {

/// Rank 0 chooses the seed and broadcasts it: `option` when given, else under SimGrid SMPI a fixed
/// seed (a simulation must repeat), else the wall clock (printed, so the run can be repeated).
/// Returns the seed and whether it came from the clock. Collective over `world`.
[[nodiscard]] std::pair<std::uint64_t, bool> agree_on_seed(const std::optional<std::uint64_t>& option,
                                                           MPI_Comm world, int rank);

/// Rank 0's context block of a run of `options` on `layout`: tool, schema, mode, MPI library and
/// standard, ranks, nodes, NICs, seed and its source, the options.
[[nodiscard]] Json run_context(std::string_view tool, const Schema& schema, const gpcnet::Options& options,
                               const NodeLayout& layout, std::uint64_t seed, bool seed_from_time);

/// Adds `peak_rss_kib_max_rank` (the largest rank's peak resident memory; null under SMPI, where
/// every rank is one simulator process) to rank 0's `context`. Collective over `world`.
void add_peak_rss(Json& context, MPI_Comm world, int rank);

}  // namespace gridlock::bench::detail
