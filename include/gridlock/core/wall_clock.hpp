#pragma once
/// @file
/// Wall-clock spans of the tool's own work: how long a run, a mapping or a fetch took (printed
/// beside results). Benchmarks that SimGrid SMPI may run time with MPI_Wtime instead, which SMPI
/// simulates and std::chrono it does not.
#include <chrono>

namespace gridlock {

/// Seconds of wall time since `start` (std::chrono::steady_clock: never goes backwards).
[[nodiscard]] inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace gridlock
