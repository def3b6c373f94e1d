#include "detail/sweep_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/rng.hpp"

namespace gridlock::bench::detail {
namespace {

constexpr int kTagData = 41;
constexpr int kTagAck = 42;
constexpr int kTagClock = 44;
constexpr double kUs = 1e6;
// Ping-pongs per rank for the clock offset; the one with the shortest round trip wins.
constexpr int kClockRounds = 20;
// Lead time before the first window: the start time must reach every rank first.
constexpr double kWindowLeadS = 5e-3;
// The automatic window: this many times the slowest warm-up call, and at least kMinWindowS.
constexpr double kAutoWindowFactor = 4.0;
constexpr double kMinWindowS = 20e-6;

int count_of(std::uint64_t bytes) { return to_count(bytes, "message size"); }

// The count of a kernel's calls: -1 when a fault is injected, so that the MPI library's own
// argument check fails the call (MPI_ERR_COUNT) on every rank that makes it (reductions get an
// invalid op instead: Collective).
int count_of(std::uint64_t bytes, const SweepBudget& budget) {
  return budget.inject_fault ? -1 : count_of(bytes);
}

// Rank 0 of `comm` decides the repetitions from its warm-up estimate; every rank gets them.
std::uint64_t agree_reps(MPI_Comm comm, double estimate_s, const SweepBudget& budget) {
  auto reps = static_cast<unsigned long long>(rep_count(estimate_s, budget));
  GRIDLOCK_MPI(MPI_Bcast(&reps, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
  return reps;
}

// Runs `once` (returns the sample on rank 0) for the warm-up and then the agreed repetitions.
Measured run_pair(MPI_Comm pair, const SweepBudget& budget, const std::function<double()>& once) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(pair, &rank));
  // The fastest warm-up call estimates a call: the first often pays for connection set-up.
  double warm = std::numeric_limits<double>::infinity();
  for (std::uint64_t i = 0; i < budget.warmup; ++i) {
    warm = std::min(warm, once());
  }
  const std::uint64_t reps = agree_reps(pair, budget.warmup > 0 ? warm : 0.0, budget);
  Measured m;
  if (rank == 0) {
    m.samples_us.reserve(reps);
  }
  for (std::uint64_t i = 0; i < reps; ++i) {
    const double t = once();
    if (rank == 0) {
      m.samples_us.push_back(t * kUs);
    }
  }
  return m;
}

// Element type and count of a reduction over `size_bytes`: doubles summed when the size is a
// multiple of 8 (what applications reduce), bytes OR-ed otherwise (any size stays measurable).
struct Reduction {
  MPI_Datatype type = MPI_DOUBLE;
  MPI_Op op = MPI_SUM;
  int count = 0;
};

Reduction reduction_of(std::uint64_t size_bytes) {
  if (size_bytes % sizeof(double) == 0) {
    return {MPI_DOUBLE, MPI_SUM, count_of(size_bytes / sizeof(double))};
  }
  return {MPI_BYTE, MPI_BOR, count_of(size_bytes)};
}

// One call of collective `op`; buffers are large enough (collective_buffer_bytes).
class Collective {
 public:
  Collective(std::string_view op, MPI_Comm comm, std::uint64_t size_bytes, SweepBuffers& buffers, bool fault)
      : op_(op), comm_(comm), send_(buffers.send.data()), recv_(buffers.recv.data()), fault_(fault) {
    GRIDLOCK_MPI(MPI_Comm_size(comm, &size_));
    count_ = fault ? -1 : count_of(size_bytes);
    reduction_ = reduction_of(size_bytes);
    if (fault) {
      // Not a count of -1: MPICH 4.0 checks a reduction's count on some ranks only, and the others
      // crash in its pack code (an assertion, not an error). MPI_OP_NULL fails on every rank in
      // both Open MPI and MPICH (MPI_ERR_OP).
      reduction_.op = MPI_OP_NULL;
    }
    if (op_ == "alltoallv" || op_ == "allgatherv") {
      counts_.assign(static_cast<std::size_t>(size_), count_);
      displs_.resize(static_cast<std::size_t>(size_));
      for (int r = 0; r < size_; ++r) {
        displs_[static_cast<std::size_t>(r)] = count_of(size_bytes * static_cast<std::uint64_t>(r));
      }
    }
  }

  void operator()() const {
    const int n = count_;
    const Reduction& red = reduction_;
    if (op_ == "allreduce") {
      GRIDLOCK_MPI(MPI_Allreduce(send_, recv_, red.count, red.type, red.op, comm_));
    } else if (op_ == "bcast") {
      GRIDLOCK_MPI(MPI_Bcast(send_, n, MPI_BYTE, 0, comm_));
    } else if (op_ == "barrier" && fault_) {
      // A barrier has no count to get wrong: the injected fault is a broadcast of -1 bytes.
      GRIDLOCK_MPI(MPI_Bcast(send_, n, MPI_BYTE, 0, comm_));
    } else if (op_ == "barrier") {
      GRIDLOCK_MPI(MPI_Barrier(comm_));
    } else if (op_ == "alltoall") {
      GRIDLOCK_MPI(MPI_Alltoall(send_, n, MPI_BYTE, recv_, n, MPI_BYTE, comm_));
    } else if (op_ == "alltoallv") {
      GRIDLOCK_MPI(MPI_Alltoallv(send_, counts_.data(), displs_.data(), MPI_BYTE, recv_, counts_.data(),
                                 displs_.data(), MPI_BYTE, comm_));
    } else if (op_ == "reduce") {
      GRIDLOCK_MPI(MPI_Reduce(send_, recv_, red.count, red.type, red.op, 0, comm_));
    } else if (op_ == "allgather") {
      GRIDLOCK_MPI(MPI_Allgather(send_, n, MPI_BYTE, recv_, n, MPI_BYTE, comm_));
    } else if (op_ == "allgatherv") {
      GRIDLOCK_MPI(
          MPI_Allgatherv(send_, n, MPI_BYTE, recv_, counts_.data(), displs_.data(), MPI_BYTE, comm_));
    } else if (op_ == "gather") {
      GRIDLOCK_MPI(MPI_Gather(send_, n, MPI_BYTE, recv_, n, MPI_BYTE, 0, comm_));
    } else if (op_ == "scatter") {
      GRIDLOCK_MPI(MPI_Scatter(send_, n, MPI_BYTE, recv_, n, MPI_BYTE, 0, comm_));
    } else if (op_ == "reduce_scatter") {
      GRIDLOCK_MPI(MPI_Reduce_scatter_block(send_, recv_, red.count, red.type, red.op, comm_));
    } else {
      // --ops was checked against the same names before any measurement.
      throw InternalError(fmt::format("sweep: no collective kernel named {}", op_));
    }
  }

 private:
  std::string_view op_;
  MPI_Comm comm_;
  void* send_;
  void* recv_;
  bool fault_ = false;
  int size_ = 1;
  int count_ = 0;
  Reduction reduction_;
  std::vector<int> counts_;
  std::vector<int> displs_;
};

// Offset of this rank's MPI_Wtime clock to rank 0's (local minus root), from the ping-pong with
// the shortest round trip (SKaMPI, ReproMPI). Collective over `comm`.
double clock_offset_s(MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  GRIDLOCK_MPI(MPI_Comm_size(comm, &size));
  double offset = 0;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      double best_rtt = std::numeric_limits<double>::infinity();
      double best = 0;
      for (int k = 0; k < kClockRounds; ++k) {
        double remote = 0;
        const double start = MPI_Wtime();
        GRIDLOCK_MPI(MPI_Send(nullptr, 0, MPI_BYTE, r, kTagClock, comm));
        GRIDLOCK_MPI(MPI_Recv(&remote, 1, MPI_DOUBLE, r, kTagClock, comm, MPI_STATUS_IGNORE));
        const double end = MPI_Wtime();
        if (end - start < best_rtt) {
          best_rtt = end - start;
          best = remote - 0.5 * (start + end);
        }
      }
      GRIDLOCK_MPI(MPI_Send(&best, 1, MPI_DOUBLE, r, kTagClock, comm));
    }
    return 0;
  }
  for (int k = 0; k < kClockRounds; ++k) {
    GRIDLOCK_MPI(MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTagClock, comm, MPI_STATUS_IGNORE));
    const double now = MPI_Wtime();
    GRIDLOCK_MPI(MPI_Send(&now, 1, MPI_DOUBLE, 0, kTagClock, comm));
  }
  GRIDLOCK_MPI(MPI_Recv(&offset, 1, MPI_DOUBLE, 0, kTagClock, comm, MPI_STATUS_IGNORE));
  return offset;
}

// Warm-up under barrier synchronisation: the slowest rank's fastest call (the first call often
// pays for connection set-up).
double warm_up(MPI_Comm comm, const Collective& call, std::uint64_t warmup) {
  double slowest = warmup > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  for (std::uint64_t i = 0; i < warmup; ++i) {
    GRIDLOCK_MPI(MPI_Barrier(comm));
    const double start = MPI_Wtime();
    call();
    slowest = std::min(slowest, MPI_Wtime() - start);
  }
  double result = 0;
  GRIDLOCK_MPI(MPI_Allreduce(&slowest, &result, 1, MPI_DOUBLE, MPI_MAX, comm));
  return result;
}

Measured barrier_synced(MPI_Comm comm, const Collective& call, std::uint64_t reps) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  std::vector<double> local(reps);
  for (std::uint64_t i = 0; i < reps; ++i) {
    GRIDLOCK_MPI(MPI_Barrier(comm));
    const double start = MPI_Wtime();
    call();
    local[i] = (MPI_Wtime() - start) * kUs;
  }
  Measured m;
  std::vector<double> slowest(rank == 0 ? reps : 0);
  GRIDLOCK_MPI(
      MPI_Reduce(local.data(), slowest.data(), to_count(reps, "repetitions"), MPI_DOUBLE, MPI_MAX, 0, comm));
  m.samples_us = std::move(slowest);
  return m;
}

Measured window_synced(MPI_Comm comm, const Collective& call, std::uint64_t reps, double warm_s,
                       double window_us, const SweepBudget& budget) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  const double offset = clock_offset_s(comm);
  // Root's plan: first start (root clock), window, calls.
  std::array<double, 3> plan{0, 0, 0};
  if (rank == 0) {
    const double window_s =
        window_us > 0 ? window_us / kUs : std::max(kMinWindowS, kAutoWindowFactor * warm_s);
    const auto fit = static_cast<std::uint64_t>(std::floor(budget.max_time_s / window_s));
    const std::uint64_t calls = std::max(budget.min_reps, std::min(reps, fit));
    plan = {MPI_Wtime() + kWindowLeadS + window_s, window_s, static_cast<double>(calls)};
  }
  GRIDLOCK_MPI(MPI_Bcast(plan.data(), 3, MPI_DOUBLE, 0, comm));
  const auto calls = static_cast<std::uint64_t>(plan[2]);
  // Per call: end time on the root's clock, and 1 if this rank started late.
  std::vector<double> ends(calls);
  std::vector<double> late(calls);
  for (std::uint64_t i = 0; i < calls; ++i) {
    const double start_local = plan[0] + static_cast<double>(i) * plan[1] + offset;
    if (MPI_Wtime() > start_local) {
      late[i] = 1;
    } else {
      // Busy wait: a sleep would wake up too late for a window of microseconds.
      while (MPI_Wtime() < start_local) {
      }
    }
    call();
    ends[i] = MPI_Wtime() - offset;
  }
  std::vector<double> max_ends(rank == 0 ? calls : 0);
  std::vector<double> any_late(rank == 0 ? calls : 0);
  const int n = to_count(calls, "repetitions");
  GRIDLOCK_MPI(MPI_Reduce(ends.data(), max_ends.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm));
  GRIDLOCK_MPI(MPI_Reduce(late.data(), any_late.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm));
  Measured m;
  for (std::size_t i = 0; i < max_ends.size(); ++i) {
    if (any_late[i] > 0) {
      ++m.invalid;
    } else {
      m.samples_us.push_back((max_ends[i] - (plan[0] + static_cast<double>(i) * plan[1])) * kUs);
    }
  }
  return m;
}

}  // namespace

std::uint64_t rep_count(double estimate_s, const SweepBudget& budget) noexcept {
  if (!(estimate_s > 0)) {
    return budget.reps;
  }
  const double fit = std::floor(budget.max_time_s / estimate_s);
  const std::uint64_t n =
      fit >= static_cast<double>(budget.reps) ? budget.reps : static_cast<std::uint64_t>(fit);
  return std::max(budget.min_reps, n);
}

void SweepBuffers::reserve(std::uint64_t bytes, std::uint64_t seed) {
  if (send.size() >= bytes) {
    return;
  }
  const std::size_t old = send.size();
  send.resize(bytes);
  recv.resize(bytes);
  Rng rng(derive_seed(seed, old));
  // Small byte values: as doubles they are ordinary numbers, never NaN or denormal slow paths.
  for (std::size_t i = old; i < send.size(); ++i) {
    send[i] = static_cast<char>(uniform_below(rng, 64) == 0 ? 1 : 0);
  }
}

Measured measure_p2p(std::string_view op, MPI_Comm pair, std::uint64_t size_bytes, std::uint32_t window,
                     const SweepBudget& budget, SweepBuffers& buffers) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(pair, &rank));
  const int peer = 1 - rank;
  const int n = count_of(size_bytes, budget);
  char* send = buffers.send.data();
  char* recv = buffers.recv.data();
  std::vector<MPI_Request> requests(2 * static_cast<std::size_t>(window), MPI_REQUEST_NULL);
  const int w = static_cast<int>(window);
  if (op == "pingpong") {
    return run_pair(pair, budget, [&] {
      const double start = MPI_Wtime();
      if (rank == 0) {
        GRIDLOCK_MPI(MPI_Send(send, n, MPI_BYTE, peer, kTagData, pair));
        GRIDLOCK_MPI(MPI_Recv(recv, n, MPI_BYTE, peer, kTagData, pair, MPI_STATUS_IGNORE));
      } else {
        GRIDLOCK_MPI(MPI_Recv(recv, n, MPI_BYTE, peer, kTagData, pair, MPI_STATUS_IGNORE));
        GRIDLOCK_MPI(MPI_Send(send, n, MPI_BYTE, peer, kTagData, pair));
      }
      return 0.5 * (MPI_Wtime() - start);
    });
  }
  if (op == "bw_uni") {
    return run_pair(pair, budget, [&] {
      const double start = MPI_Wtime();
      // One buffer for the whole window, as OSU does: the bytes are not checked.
      for (int i = 0; i < w; ++i) {
        if (rank == 0) {
          GRIDLOCK_MPI(
              MPI_Isend(send, n, MPI_BYTE, peer, kTagData, pair, &requests[static_cast<std::size_t>(i)]));
        } else {
          GRIDLOCK_MPI(
              MPI_Irecv(recv, n, MPI_BYTE, peer, kTagData, pair, &requests[static_cast<std::size_t>(i)]));
        }
      }
      GRIDLOCK_MPI(MPI_Waitall(w, requests.data(), MPI_STATUSES_IGNORE));
      if (rank == 0) {
        GRIDLOCK_MPI(MPI_Recv(nullptr, 0, MPI_BYTE, peer, kTagAck, pair, MPI_STATUS_IGNORE));
      } else {
        GRIDLOCK_MPI(MPI_Send(nullptr, 0, MPI_BYTE, peer, kTagAck, pair));
      }
      return (MPI_Wtime() - start) / w;
    });
  }
  if (op == "bw_bi") {
    return run_pair(pair, budget, [&] {
      const double start = MPI_Wtime();
      for (int i = 0; i < w; ++i) {
        GRIDLOCK_MPI(
            MPI_Irecv(recv, n, MPI_BYTE, peer, kTagData, pair, &requests[static_cast<std::size_t>(i)]));
      }
      for (int i = 0; i < w; ++i) {
        GRIDLOCK_MPI(
            MPI_Isend(send, n, MPI_BYTE, peer, kTagData, pair, &requests[static_cast<std::size_t>(w + i)]));
      }
      GRIDLOCK_MPI(MPI_Waitall(2 * w, requests.data(), MPI_STATUSES_IGNORE));
      return (MPI_Wtime() - start) / w;
    });
  }
  throw InternalError(fmt::format("sweep: no point-to-point kernel named {}", op));
}

Measured measure_rma(std::string_view op, MPI_Comm pair, MPI_Win win, std::uint64_t size_bytes,
                     const SweepBudget& budget, SweepBuffers& buffers) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(pair, &rank));
  const int n = count_of(size_bytes, budget);
  const bool put = op == "put_fence" || op == "put_passive";
  const bool fence = op == "put_fence" || op == "get_fence";
  char* local = put ? buffers.send.data() : buffers.recv.data();
  const auto access = [&] {
    if (put) {
      GRIDLOCK_MPI(MPI_Put(local, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
    } else {
      GRIDLOCK_MPI(MPI_Get(local, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
    }
  };
  if (budget.inject_fault) {
    // Only rank 0 accesses the window in a measurement, and rank 1 would wait for it in the next
    // synchronisation: both ranks make the erroneous call (rank 1 on its own window), before any
    // epoch opens, so both fail and the window stays usable.
    access();
    throw std::logic_error("GRIDLOCK_SWEEP_FAIL: the MPI library accepted a count of -1");
  }
  if (fence) {
    GRIDLOCK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    Measured m = run_pair(pair, budget, [&] {
      const double start = MPI_Wtime();
      if (rank == 0) {
        access();
      }
      GRIDLOCK_MPI(MPI_Win_fence(0, win));
      return MPI_Wtime() - start;
    });
    // Closes the fence epochs, so a passive-target op can lock the window next.
    GRIDLOCK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    return m;
  }
  // Passive target: rank 1 does nothing but wait in a barrier (which also lets an MPI without
  // hardware RMA progress the target side); the count goes over the same route.
  double warm = std::numeric_limits<double>::infinity();
  if (rank == 0) {
    GRIDLOCK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    for (std::uint64_t i = 0; i < budget.warmup; ++i) {
      const double start = MPI_Wtime();
      access();
      GRIDLOCK_MPI(MPI_Win_flush(1, win));
      warm = std::min(warm, MPI_Wtime() - start);
    }
  }
  Measured m;
  if (rank == 0) {
    const std::uint64_t reps = rep_count(budget.warmup > 0 ? warm : 0.0, budget);
    m.samples_us.reserve(reps);
    for (std::uint64_t i = 0; i < reps; ++i) {
      const double start = MPI_Wtime();
      access();
      GRIDLOCK_MPI(MPI_Win_flush(1, win));
      m.samples_us.push_back((MPI_Wtime() - start) * kUs);
    }
    GRIDLOCK_MPI(MPI_Win_unlock(1, win));
  }
  idle_barrier(pair);
  return m;
}

std::uint64_t collective_buffer_bytes(std::string_view op, std::uint64_t size_bytes, int ranks) noexcept {
  const bool times_ranks = op == "alltoall" || op == "alltoallv" || op == "allgather" || op == "allgatherv" ||
                           op == "gather" || op == "scatter" || op == "reduce_scatter";
  return times_ranks ? size_bytes * static_cast<std::uint64_t>(ranks) : size_bytes;
}

Measured measure_collective(std::string_view op, MPI_Comm comm, std::uint64_t size_bytes, SweepSync sync,
                            double window_us, const SweepBudget& budget, SweepBuffers& buffers) {
  const Collective call(op, comm, size_bytes, buffers, budget.inject_fault);
  const double warm_s = warm_up(comm, call, budget.warmup);
  const std::uint64_t reps = agree_reps(comm, budget.warmup > 0 ? warm_s : 0.0, budget);
  if (sync == SweepSync::kBarrier) {
    return barrier_synced(comm, call, reps);
  }
  return window_synced(comm, call, reps, warm_s, window_us, budget);
}

}  // namespace gridlock::bench::detail
