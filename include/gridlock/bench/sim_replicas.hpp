#pragma once
/// @file
/// `gridlock-bench sim-replicas`: the Monte-Carlo noise study of `gridlock sim --replicas` with the
/// replicas spread over the MPI ranks and gathered to rank 0; same seed, same results.

#include <mpi.h>

#include <cstdint>
#include <string>

#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::bench {

/// Options (the same meaning as in `gridlock sim`).
struct SimReplicasOptions {
  std::string program;                ///< Schedule generator spec.
  std::string ranks;                  ///< Scales: N1,N2,...
  std::uint64_t seed = 1;             ///< Seed of the generator and the noise phases.
  sim::LogGOPSParams params;          ///< LogGOPS parameters (already scaled by --network-scale).
  double network_scale = 1.0;         ///< Recorded in the context.
  noise::NoiseSpec noise;             ///< The noise model.
  bool cosched = false;               ///< Co-scheduled noise.
  std::uint64_t replicas = 0;         ///< Replicas per scale.
  unsigned threads = 1;               ///< Threads per rank.
  double bottleneck_threshold = 1.0;  ///< Median slowdown that makes noise the bottleneck (1.0 = +100%).
  std::string json_path;              ///< --json.
  std::string csv_path;               ///< --csv: one row per scale.
  std::string svg_path;               ///< --svg: the box plot of every scale.
  bool quiet = false;                 ///< No progress on stderr.
};

/// Runs the study collectively over `world`: rank i simulates replicas [K·i/n, K·(i+1)/n) of every
/// scale, rank 0 gathers them, prints the table and writes --json, --csv and --svg.
void run_sim_replicas(const SimReplicasOptions& options, MPI_Comm world);

}  // namespace gridlock::bench
