#pragma once
// Dependency-cycle check of one program, shared by the schedule builder and the binary reader.

#include <cstdint>
#include <vector>

#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim::detail {

// Kahn's algorithm: true if the dependencies of `program` are acyclic; otherwise `remaining`
// holds the remaining dependency counts (non-zero on and behind every cycle).
// `remaining` and `ready` are scratch space, reused across programs to save allocations.
bool acyclic(const Program& program, std::vector<std::uint32_t>& remaining,
             std::vector<std::uint32_t>& ready);

}  // namespace gridlock::sim::detail
