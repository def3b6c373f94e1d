#pragma once
// Private measurement kernels of `gridlock-bench sweep`: one op at one size on a pair or a
// communicator, returning the samples to its rank 0.

#include <mpi.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "gridlock/bench/sweep.hpp"

namespace gridlock::bench::detail {

/// How many calls one size gets.
struct SweepBudget {
  std::uint64_t reps = 1000;    ///< Most.
  std::uint64_t min_reps = 10;  ///< Fewest.
  std::uint64_t warmup = 2;     ///< Untimed first (they also estimate the time of one call).
  double max_time_s = 1.0;      ///< Time per size: reps = max_time_s / estimate, clamped.
  /// GRIDLOCK_SWEEP_FAIL: every rank's first call of the op is issued with a count of -1 (barrier:
  /// an MPI_Bcast of -1 bytes; reductions: MPI_OP_NULL), which the MPI library rejects through the
  /// error handler.
  bool inject_fault = false;
};

/// The repetitions for a call that takes about `estimate_s`: max_time_s / estimate_s clamped to
/// [min_reps, reps].
[[nodiscard]] std::uint64_t rep_count(double estimate_s, const SweepBudget& budget) noexcept;

/// The samples of one measurement (on rank 0 of its communicator; empty elsewhere), microseconds.
struct Measured {
  std::vector<double> samples_us;  ///< Valid samples.
  std::uint64_t invalid = 0;       ///< Calls discarded (window synchronisation: late start).
};

/// Send and receive buffers large enough for every op of a sweep, filled from a seed.
struct SweepBuffers {
  std::vector<char> send;  ///< Send buffer.
  std::vector<char> recv;  ///< Receive buffer.
  /// Grows both to `bytes` (new bytes of `send` from `seed`).
  void reserve(std::uint64_t bytes, std::uint64_t seed);
};

/// pingpong, bw_uni or bw_bi between the two ranks of `pair` (rank 0 measures). Collective over `pair`.
[[nodiscard]] Measured measure_p2p(std::string_view op, MPI_Comm pair, std::uint64_t size_bytes,
                                   std::uint32_t window, const SweepBudget& budget, SweepBuffers& buffers);

/// put_fence, get_fence, put_passive or get_passive from rank 0 of `pair` to the window memory of
/// rank 1 (`win`, created over `pair` with at least `size_bytes` bytes). Collective over `pair`.
[[nodiscard]] Measured measure_rma(std::string_view op, MPI_Comm pair, MPI_Win win, std::uint64_t size_bytes,
                                   const SweepBudget& budget, SweepBuffers& buffers);

/// Bytes each of the send and receive buffers needs for collective `op` at `size_bytes` per rank
/// on `ranks` ranks.
[[nodiscard]] std::uint64_t collective_buffer_bytes(std::string_view op, std::uint64_t size_bytes,
                                                    int ranks) noexcept;

/// A collective op over `comm` under `sync` (`window_us` 0: automatic window). Collective over `comm`.
[[nodiscard]] Measured measure_collective(std::string_view op, MPI_Comm comm, std::uint64_t size_bytes,
                                          SweepSync sync, double window_us, const SweepBudget& budget,
                                          SweepBuffers& buffers);

}  // namespace gridlock::bench::detail
