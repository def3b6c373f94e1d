#pragma once
// Completing and checking one program, shared by the schedule builder and the binary reader:
// its roots in start order, and the dependency-cycle check.

#include <cstdint>
#include <span>
#include <vector>

#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim::detail {

// Appends to `roots` the ops of a program that have no dependencies (`dep_count` zero), by type
// then index: LogGOPSim's start order. `scratch` is space reused across programs.
void append_roots(std::span<const Op> ops, const std::uint32_t* dep_count, std::vector<std::uint32_t>& roots,
                  std::vector<std::uint32_t>& scratch);

// Kahn's algorithm: true if the dependencies of `program` are acyclic; otherwise `remaining`
// holds the remaining dependency counts (non-zero on and behind every cycle).
// `remaining` and `ready` are scratch space, reused across programs to save allocations.
bool acyclic(const Program& program, std::vector<std::uint32_t>& remaining,
             std::vector<std::uint32_t>& ready);

}  // namespace gridlock::sim::detail
