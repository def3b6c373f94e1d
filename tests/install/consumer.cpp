// Uses the installed gridlock libraries the way another project would: generates a schedule,
// simulates it, and reads a topology. Prints one line the install check compares.
#include <cstdio>
#include <exception>

#include "gridlock/core/version.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/topo/spec.hpp"

int main() {
  try {
    const gridlock::sim::Schedule schedule =
        gridlock::sim::generate("allreduce(algo=recdoub, size=1KiB)", 64, 1);
    const gridlock::sim::SimResult result = gridlock::sim::simulate(schedule, gridlock::sim::SimOptions{});
    const auto topology = gridlock::topo::make_topology("torus:4x4x4");
    std::printf("gridlock %s: allreduce on 64 ranks %s, finish %llu ps; torus:4x4x4 has %zu nodes\n",
                gridlock::kVersion, result.complete ? "complete" : "INCOMPLETE",
                static_cast<unsigned long long>(result.max_finish.ps), topology->nodes().size());
    return result.complete ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
