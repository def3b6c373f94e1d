#pragma once
// Canary and congestor communication kernels. Each kernel owns its buffers and windows; one
// call of run() is one timed iteration of the paper's listings.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "detail/mpi_util.hpp"
#include "gridlock/core/stats.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/suite.hpp"

namespace gridlock::bench::detail {

/// A canary kernel: one iteration is timed as one sample.
class CanaryKernel {
 public:
  CanaryKernel() = default;
  CanaryKernel(const CanaryKernel&) = delete;
  CanaryKernel& operator=(const CanaryKernel&) = delete;
  virtual ~CanaryKernel() = default;
  /// Sets the ring neighbours (slice ranks) for the next iterations; ignored by collectives.
  virtual void set_peers(int left, int right) = 0;
  /// Runs one iteration.
  virtual void run() = 0;
  /// Converts the duration of one iteration into the reported sample.
  [[nodiscard]] virtual double sample(double seconds) const = 0;
};

/// Creates the kernel of `spec` on `slice` (collective over `slice`: RMA kernels allocate windows).
[[nodiscard]] std::unique_ptr<CanaryKernel> make_canary_kernel(const gpcnet::CanarySpec& spec,
                                                               const gpcnet::Options& options,
                                                               MPI_Comm slice);

/// A congestor kernel: one iteration of the paper's congestor listing.
class CongestorKernel {
 public:
  CongestorKernel() = default;
  CongestorKernel(const CongestorKernel&) = delete;
  CongestorKernel& operator=(const CongestorKernel&) = delete;
  virtual ~CongestorKernel() = default;
  /// Runs one iteration.
  virtual void run() = 0;
  /// Bytes this rank injects per iteration (for throughput).
  [[nodiscard]] virtual std::uint64_t bytes_per_iteration() const = 0;
};

/// Creates a congestor kernel on `slice` (collective over `slice`: RMA kernels allocate windows).
[[nodiscard]] std::unique_ptr<CongestorKernel> make_congestor_kernel(gpcnet::CongestorType type,
                                                                     const gpcnet::Options& options,
                                                                     MPI_Comm slice);

/// What one congestor rank achieved while it ran.
struct CongestorRun {
  std::uint64_t iterations = 0;  ///< Kernel iterations.
  std::uint64_t bytes = 0;       ///< Bytes injected.
  double seconds = 0;            ///< Time of the loaded loop.
  bool timed_out = false;        ///< Stopped by `timeout_s`, not by the measuring ranks' signal.
};

/// What `gridlock-bench congest` adds to drive_congestor (nothing in load mode).
struct CongestorHooks {
  /// Called on every rank after each batch of `check` iterations with the iterations run so far.
  std::function<void(std::uint64_t iterations)> on_batch;
  /// When set, rank 0 of `world` enters the "stop" barrier only once this returns true (checked after
  /// each batch), so the run lasts until rank 0 says so; the other ranks enter it at the start.
  std::function<bool()> stop_now;
};

/// Runs `kernel` (paper Listing 2) beside the measuring ranks of `world` until they are done.
///
/// Protocol (every rank of `world` takes part in two MPI_Ibarrier calls, in this order): the
/// congestor runs `warmup` iterations, then enters the first ("warm") barrier, which releases the
/// measuring ranks, and the second ("stop"), which completes when the measuring ranks have
/// finished. The stop decision travels in a pipelined MPI_Iallreduce over `slice` that overlaps
/// `check` kernel iterations, so every rank of the slice leaves after the same iteration and the
/// load never pauses for a blocking collective; `timeout_s` ends it if the stop never comes.
[[nodiscard]] CongestorRun drive_congestor(CongestorKernel& kernel, MPI_Comm world, MPI_Comm slice,
                                           std::uint64_t warmup, std::uint64_t check, double timeout_s,
                                           const CongestorHooks& hooks = {});

/// Reduces every rank's CongestorRun over `world` to rank 0: one CongestorResult per entry of
/// `types` (ranks, iterations, bytes, throughput summed; timed out if any rank was). A rank that ran
/// congestor `types[my_type]` passes its run; others pass my_type = -1. Ranks whose run lasted no
/// time add nothing. Other ranks get an empty list. Collective over `world`.
[[nodiscard]] std::vector<gpcnet::CongestorResult> reduce_congestor_runs(
    const std::vector<gpcnet::CongestorType>& types, int my_type, const CongestorRun& run, MPI_Comm world);

/// The measuring side of drive_congestor's protocol: enters the "warm" barrier and idles until every
/// congestor is warm (waiting as `how` says). Call measure_done() after measuring.
void wait_for_congestors(MPI_Comm world, gpcnet::IdleWait how = gpcnet::IdleWait::kSleep);
/// Enters the "stop" barrier (the congestors stop) and idles until it completes.
void measure_done(MPI_Comm world, gpcnet::IdleWait how = gpcnet::IdleWait::kSleep);

}  // namespace gridlock::bench::detail
