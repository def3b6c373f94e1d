#include "detail/kernels.hpp"

#include <array>
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::bench::detail {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::Canary;
using gpcnet::CanarySpec;
using gpcnet::CongestorResult;
using gpcnet::CongestorType;
using gpcnet::IdleWait;
using gpcnet::Options;
using gpcnet::RecvBuffers;

namespace {

constexpr double kMicro = 1e6;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kTagLeft = 11;   // Messages travelling to the left neighbour.
constexpr int kTagRight = 12;  // Messages travelling to the right neighbour.

using Bytes = std::vector<std::byte>;

// Base of the kernels that talk to two ring neighbours: keeps the peers of the current ring.
class RingKernel : public CanaryKernel {
 public:
  void set_peers(int left, int right) override {
    left_ = left;
    right_ = right;
  }

 protected:
  int left_ = 0;  // Protected: the derived kernels read them in every iteration.
  int right_ = 0;
};

// Random-ring latency (paper §3.1.1): Irecv left/right, Isend left/right, Waitall. A sample is
// half the iteration time (a round trip to both neighbours).
class TwoSidedLatency final : public RingKernel {
 public:
  TwoSidedLatency(MPI_Comm slice, std::uint64_t bytes)
      : slice_(slice), count_(to_count(bytes, "--latency-size")), send_(2 * bytes), recv_(2 * bytes) {}
  void run() override {
    std::array<MPI_Request, 4> requests{};
    std::byte* recv = recv_.data();
    std::byte* send = send_.data();
    const auto n = static_cast<std::size_t>(count_);
    GRIDLOCK_MPI(MPI_Irecv(recv, count_, MPI_BYTE, left_, kTagRight, slice_, &requests[0]));
    GRIDLOCK_MPI(MPI_Irecv(recv + n, count_, MPI_BYTE, right_, kTagLeft, slice_, &requests[1]));
    GRIDLOCK_MPI(MPI_Isend(send, count_, MPI_BYTE, left_, kTagLeft, slice_, &requests[2]));
    GRIDLOCK_MPI(MPI_Isend(send + n, count_, MPI_BYTE, right_, kTagRight, slice_, &requests[3]));
    GRIDLOCK_MPI(MPI_Waitall(4, requests.data(), MPI_STATUSES_IGNORE));
  }
  [[nodiscard]] double sample(double seconds) const override { return seconds * kMicro / 2.0; }

 private:
  MPI_Comm slice_;
  int count_;
  Bytes send_;
  Bytes recv_;
};

// RMA Get latency: MPI_Get from both neighbours, then flush both; half the iteration time.
class GetLatency final : public RingKernel {
 public:
  GetLatency(MPI_Comm slice, std::uint64_t bytes)
      : count_(to_count(bytes, "--latency-size")), window_(slice, bytes), local_(2 * bytes) {}
  void run() override {
    GRIDLOCK_MPI(MPI_Get(local_.data(), count_, MPI_BYTE, left_, 0, count_, MPI_BYTE, window_.get()));
    GRIDLOCK_MPI(
        MPI_Get(local_.data() + count_, count_, MPI_BYTE, right_, 0, count_, MPI_BYTE, window_.get()));
    GRIDLOCK_MPI(MPI_Win_flush(left_, window_.get()));
    if (right_ != left_) {
      GRIDLOCK_MPI(MPI_Win_flush(right_, window_.get()));
    }
  }
  [[nodiscard]] double sample(double seconds) const override { return seconds * kMicro / 2.0; }

 private:
  int count_;
  Window window_;
  Bytes local_;
};

// Random-ring bandwidth: `outstanding` messages to and from each neighbour; with `sync`, a
// barrier on the slice follows (BW+Sync, paper §3.1.1). Bandwidth counts the bytes sent.
// With shared receive buffers (the default, as GPCNeT) every message from one neighbour lands in
// one buffer: the contents are never read, and one buffer per neighbour keeps the receive side in
// cache as in the reference, whose figures a facility compares with (docs/gridlock-bench.md).
class TwoSidedBandwidth final : public RingKernel {
 public:
  TwoSidedBandwidth(MPI_Comm slice, std::uint64_t bytes, std::uint64_t outstanding, bool sync,
                    RecvBuffers buffers)
      : slice_(slice),
        count_(to_count(bytes, "--bandwidth-size")),
        outstanding_(static_cast<std::size_t>(outstanding)),
        slots_(buffers == RecvBuffers::kShared ? 1 : outstanding_),
        sync_(sync),
        send_(bytes),
        recv_(2 * slots_ * bytes),
        requests_(4 * outstanding_),
        bytes_per_iteration_(static_cast<double>(2 * outstanding * bytes)) {}
  void run() override {
    const auto n = static_cast<std::size_t>(count_);
    for (std::size_t k = 0; k < outstanding_; ++k) {
      const std::size_t slot = k % slots_;
      GRIDLOCK_MPI(
          MPI_Irecv(recv_.data() + slot * n, count_, MPI_BYTE, left_, kTagRight, slice_, &requests_[4 * k]));
      GRIDLOCK_MPI(MPI_Irecv(recv_.data() + (slots_ + slot) * n, count_, MPI_BYTE, right_, kTagLeft, slice_,
                             &requests_[4 * k + 1]));
      // MPI-3 allows concurrent sends from one buffer.
      GRIDLOCK_MPI(MPI_Isend(send_.data(), count_, MPI_BYTE, left_, kTagLeft, slice_, &requests_[4 * k + 2]));
      GRIDLOCK_MPI(
          MPI_Isend(send_.data(), count_, MPI_BYTE, right_, kTagRight, slice_, &requests_[4 * k + 3]));
    }
    GRIDLOCK_MPI(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
    if (sync_) {
      GRIDLOCK_MPI(MPI_Barrier(slice_));
    }
  }
  [[nodiscard]] double sample(double seconds) const override { return bytes_per_iteration_ / seconds / kMiB; }

 private:
  MPI_Comm slice_;
  int count_;
  std::size_t outstanding_;
  std::size_t slots_;  // receive buffers per neighbour
  bool sync_;
  Bytes send_;
  Bytes recv_;
  std::vector<MPI_Request> requests_;
  double bytes_per_iteration_;
};

// RMA Put bandwidth: `outstanding` puts into each neighbour's window, then flush both. With
// shared buffers (as GPCNeT) every put from one neighbour targets one slot of the window.
class PutBandwidth final : public RingKernel {
 public:
  PutBandwidth(MPI_Comm slice, std::uint64_t bytes, std::uint64_t outstanding, RecvBuffers buffers)
      : count_(to_count(bytes, "--bandwidth-size")),
        outstanding_(outstanding),
        slots_(buffers == RecvBuffers::kShared ? 1 : outstanding),
        window_(slice, 2 * slots_ * bytes),
        send_(bytes),
        bytes_per_iteration_(static_cast<double>(2 * outstanding * bytes)) {}
  void run() override {
    const auto size = static_cast<MPI_Aint>(count_);
    for (std::uint64_t k = 0; k < outstanding_; ++k) {
      // I am my left neighbour's right neighbour: write into its "from right" half, and back.
      const auto k_offset = static_cast<MPI_Aint>(k % slots_) * size;
      const auto half = static_cast<MPI_Aint>(slots_) * size;
      GRIDLOCK_MPI(
          MPI_Put(send_.data(), count_, MPI_BYTE, left_, half + k_offset, count_, MPI_BYTE, window_.get()));
      GRIDLOCK_MPI(
          MPI_Put(send_.data(), count_, MPI_BYTE, right_, k_offset, count_, MPI_BYTE, window_.get()));
    }
    GRIDLOCK_MPI(MPI_Win_flush(left_, window_.get()));
    if (right_ != left_) {
      GRIDLOCK_MPI(MPI_Win_flush(right_, window_.get()));
    }
  }
  [[nodiscard]] double sample(double seconds) const override { return bytes_per_iteration_ / seconds / kMiB; }

 private:
  int count_;
  std::uint64_t outstanding_;
  std::uint64_t slots_;  // window slots per neighbour
  Window window_;
  Bytes send_;
  double bytes_per_iteration_;
};

// Multiple Allreduce (paper §3.1.2): every slice reduces at once, so all traffic is off-node.
class AllreduceLatency final : public CanaryKernel {
 public:
  AllreduceLatency(MPI_Comm slice, std::uint64_t bytes)
      : slice_(slice),
        count_(to_count(bytes / 8, "--allreduce-size")),
        send_(bytes / 8, 1.0),
        recv_(bytes / 8) {}
  void set_peers(int /*left*/, int /*right*/) override {}
  void run() override {
    GRIDLOCK_MPI(MPI_Allreduce(send_.data(), recv_.data(), count_, MPI_DOUBLE, MPI_SUM, slice_));
  }
  [[nodiscard]] double sample(double seconds) const override { return seconds * kMicro; }

 private:
  MPI_Comm slice_;
  int count_;
  std::vector<double> send_;
  std::vector<double> recv_;
};

// Multiple Alltoall (network mode): bandwidth counts the bytes sent to the other ranks.
class AlltoallBandwidth final : public CanaryKernel {
 public:
  AlltoallBandwidth(MPI_Comm slice, std::uint64_t bytes)
      : slice_(slice), count_(to_count(bytes, "--alltoall-size")) {
    int size = 0;
    GRIDLOCK_MPI(MPI_Comm_size(slice, &size));
    const auto ranks = static_cast<std::uint64_t>(size);
    send_.resize(ranks * bytes);
    recv_.resize(ranks * bytes);
    bytes_per_iteration_ = static_cast<double>((ranks - 1) * bytes);
  }
  void set_peers(int /*left*/, int /*right*/) override {}
  void run() override {
    GRIDLOCK_MPI(MPI_Alltoall(send_.data(), count_, MPI_BYTE, recv_.data(), count_, MPI_BYTE, slice_));
  }
  [[nodiscard]] double sample(double seconds) const override { return bytes_per_iteration_ / seconds / kMiB; }

 private:
  MPI_Comm slice_;
  int count_;
  Bytes send_;
  Bytes recv_;
  double bytes_per_iteration_ = 0;
};

// --- congestors (paper §3.2) ---

int comm_rank(MPI_Comm comm) {
  int r = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &r));
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 0;
  GRIDLOCK_MPI(MPI_Comm_size(comm, &s));
  return s;
}

// All-to-all by pairwise exchange: step k sends to rank+k and receives from rank-k.
class PairwiseAllToAll final : public CongestorKernel {
 public:
  PairwiseAllToAll(MPI_Comm slice, std::uint64_t bytes)
      : slice_(slice),
        rank_(comm_rank(slice)),
        size_(comm_size(slice)),
        count_(to_count(bytes, "--congestor-size")),
        send_(bytes),
        recv_(bytes),
        bytes_(static_cast<std::uint64_t>(size_ - 1) * bytes) {}
  void run() override {
    for (int k = 1; k < size_; ++k) {
      const int to = (rank_ + k) % size_;
      const int from = (rank_ - k + size_) % size_;
      GRIDLOCK_MPI(MPI_Sendrecv(send_.data(), count_, MPI_BYTE, to, k, recv_.data(), count_, MPI_BYTE, from,
                                k, slice_, MPI_STATUS_IGNORE));
    }
  }
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override { return bytes_; }

 private:
  MPI_Comm slice_;
  int rank_;
  int size_;
  int count_;
  Bytes send_;
  Bytes recv_;
  std::uint64_t bytes_;
};

// Two-sided incast: every rank sends to slice rank 0, which posts one receive per sender.
class P2pIncast final : public CongestorKernel {
 public:
  P2pIncast(MPI_Comm slice, std::uint64_t bytes)
      : slice_(slice),
        rank_(comm_rank(slice)),
        size_(comm_size(slice)),
        count_(to_count(bytes, "--congestor-size")) {
    if (rank_ == 0) {
      recv_.resize(static_cast<std::size_t>(size_ - 1) * bytes);
      requests_.resize(static_cast<std::size_t>(size_ - 1));
    } else {
      send_.resize(bytes);
    }
  }
  void run() override {
    if (rank_ == 0) {
      const auto n = static_cast<std::size_t>(count_);
      for (int source = 1; source < size_; ++source) {
        const auto i = static_cast<std::size_t>(source - 1);
        GRIDLOCK_MPI(MPI_Irecv(recv_.data() + i * n, count_, MPI_BYTE, source, 0, slice_, &requests_[i]));
      }
      GRIDLOCK_MPI(MPI_Waitall(size_ - 1, requests_.data(), MPI_STATUSES_IGNORE));
    } else {
      GRIDLOCK_MPI(MPI_Send(send_.data(), count_, MPI_BYTE, 0, 0, slice_));
    }
  }
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override {
    return rank_ == 0 ? 0 : static_cast<std::uint64_t>(count_);
  }

 private:
  MPI_Comm slice_;
  int rank_;
  int size_;
  int count_;
  Bytes send_;
  Bytes recv_;
  std::vector<MPI_Request> requests_;
};

// One-sided incast: every rank puts into its own slot of slice rank 0's window and flushes.
// Rank 0 only takes part in the stop protocol (passive target).
class RmaIncast final : public CongestorKernel {
 public:
  RmaIncast(MPI_Comm slice, std::uint64_t bytes)
      : rank_(comm_rank(slice)),
        count_(to_count(bytes, "--congestor-size")),
        window_(slice, rank_ == 0 ? static_cast<std::uint64_t>(comm_size(slice)) * bytes : 0),
        send_(bytes) {}
  void run() override {
    if (rank_ == 0) {
      return;
    }
    const auto offset = static_cast<MPI_Aint>(rank_) * static_cast<MPI_Aint>(count_);
    GRIDLOCK_MPI(MPI_Put(send_.data(), count_, MPI_BYTE, 0, offset, count_, MPI_BYTE, window_.get()));
    GRIDLOCK_MPI(MPI_Win_flush(0, window_.get()));
  }
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override {
    return rank_ == 0 ? 0 : static_cast<std::uint64_t>(count_);
  }

 private:
  int rank_;
  int count_;
  Window window_;
  Bytes send_;
};

// One-sided broadcast: every rank gets the same block from slice rank 0 and flushes; the
// requests for the data form an incast at the root.
class RmaBroadcast final : public CongestorKernel {
 public:
  RmaBroadcast(MPI_Comm slice, std::uint64_t bytes)
      : rank_(comm_rank(slice)),
        count_(to_count(bytes, "--congestor-size")),
        window_(slice, rank_ == 0 ? bytes : 0),
        recv_(bytes) {}
  void run() override {
    if (rank_ == 0) {
      return;
    }
    GRIDLOCK_MPI(MPI_Get(recv_.data(), count_, MPI_BYTE, 0, 0, count_, MPI_BYTE, window_.get()));
    GRIDLOCK_MPI(MPI_Win_flush(0, window_.get()));
  }
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override {
    return rank_ == 0 ? 0 : static_cast<std::uint64_t>(count_);
  }

 private:
  int rank_;
  int count_;
  Window window_;
  Bytes recv_;
};

// Large-message allreduce, like the gradient exchange of data-parallel training.
class LargeAllreduce final : public CongestorKernel {
 public:
  LargeAllreduce(MPI_Comm slice, std::uint64_t bytes)
      : slice_(slice),
        count_(to_count(bytes / 8, "--allreduce-congestor-size")),
        send_(bytes / 8, 1.0),
        recv_(bytes / 8),
        bytes_(bytes) {}
  void run() override {
    GRIDLOCK_MPI(MPI_Allreduce(send_.data(), recv_.data(), count_, MPI_DOUBLE, MPI_SUM, slice_));
  }
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override { return bytes_; }

 private:
  MPI_Comm slice_;
  int count_;
  std::vector<double> send_;
  std::vector<double> recv_;
  std::uint64_t bytes_;
};

}  // namespace

std::unique_ptr<CanaryKernel> make_canary_kernel(const CanarySpec& spec, const Options& o, MPI_Comm slice) {
  switch (spec.id) {
    case Canary::kRrTwoSidedLat:
      return std::make_unique<TwoSidedLatency>(slice, o.latency_bytes);
    case Canary::kRrGetLat:
      return std::make_unique<GetLatency>(slice, o.latency_bytes);
    case Canary::kRrTwoSidedBw:
    case Canary::kNatTwoSidedBw:
      return std::make_unique<TwoSidedBandwidth>(slice, o.bandwidth_bytes, o.bandwidth_outstanding, false,
                                                 o.recv_buffers);
    case Canary::kRrTwoSidedBwSync:
      return std::make_unique<TwoSidedBandwidth>(slice, o.bandwidth_bytes, o.bandwidth_outstanding, true,
                                                 o.recv_buffers);
    case Canary::kRrPutBw:
      return std::make_unique<PutBandwidth>(slice, o.bandwidth_bytes, o.bandwidth_outstanding,
                                            o.recv_buffers);
    case Canary::kMultipleAllreduce:
      return std::make_unique<AllreduceLatency>(slice, o.allreduce_bytes);
    case Canary::kMultipleAlltoall:
      return std::make_unique<AlltoallBandwidth>(slice, o.alltoall_bytes);
  }
  // The canary specs are gridlock's own table (gpcnet/suite.hpp), not user input.
  throw InternalError("gridlock-bench has no kernel for the canary " + spec.key);
}

std::unique_ptr<CongestorKernel> make_congestor_kernel(CongestorType type, const Options& o, MPI_Comm slice) {
  switch (type) {
    case CongestorType::kAllToAll:
      return std::make_unique<PairwiseAllToAll>(slice, o.congestor_bytes);
    case CongestorType::kP2pIncast:
      return std::make_unique<P2pIncast>(slice, o.congestor_bytes);
    case CongestorType::kRmaIncast:
      return std::make_unique<RmaIncast>(slice, o.congestor_bytes);
    case CongestorType::kRmaBcast:
      return std::make_unique<RmaBroadcast>(slice, o.congestor_bytes);
    case CongestorType::kAllreduce:
      return std::make_unique<LargeAllreduce>(slice, o.allreduce_congestor_bytes);
  }
  throw InternalError(
      fmt::format("gridlock-bench has no kernel for congestor type {}", fmt::underlying(type)));
}

CongestorRun drive_congestor(CongestorKernel& kernel, MPI_Comm world, MPI_Comm slice, std::uint64_t warmup,
                             std::uint64_t check, double timeout_s, const CongestorHooks& hooks) {
  CongestorRun r;
  for (std::uint64_t w = 0; w < warmup; ++w) {
    kernel.run();
  }
  MPI_Request warm = MPI_REQUEST_NULL;
  MPI_Request stop = MPI_REQUEST_NULL;
  GRIDLOCK_MPI(MPI_Ibarrier(world, &warm));  // Releases the measuring ranks once every congestor is warm.
  int world_rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &world_rank));
  // Completes when every measuring rank has finished (congest: when rank 0 says stop).
  bool stop_entered = !hooks.stop_now || world_rank != 0;
  if (stop_entered) {
    GRIDLOCK_MPI(MPI_Ibarrier(world, &stop));
  }
  const double start = MPI_Wtime();
  int send = 0;
  int verdict = 0;
  MPI_Request vote = MPI_REQUEST_NULL;
  GRIDLOCK_MPI(MPI_Iallreduce(&send, &verdict, 1, MPI_INT, MPI_MAX, slice, &vote));
  bool stop_seen = false;
  for (;;) {
    for (std::uint64_t j = 0; j < check; ++j) {
      kernel.run();
    }
    r.iterations += check;
    if (hooks.on_batch) {
      hooks.on_batch(r.iterations);
    }
    if (!stop_entered && hooks.stop_now()) {
      stop_entered = true;
      GRIDLOCK_MPI(MPI_Ibarrier(world, &stop));
    }
    GRIDLOCK_MPI(MPI_Wait(&vote, MPI_STATUS_IGNORE));
    if (verdict != 0) {
      r.timed_out = verdict == 2;
      break;
    }
    if (!stop_seen && stop_entered) {
      int done = 0;
      GRIDLOCK_MPI(MPI_Test(&stop, &done, MPI_STATUS_IGNORE));
      stop_seen = done != 0;
    }
    send = stop_seen ? 1 : (MPI_Wtime() - start > timeout_s ? 2 : 0);
    GRIDLOCK_MPI(MPI_Iallreduce(&send, &verdict, 1, MPI_INT, MPI_MAX, slice, &vote));
  }
  r.seconds = MPI_Wtime() - start;
  r.bytes = r.iterations * kernel.bytes_per_iteration();
  if (!stop_entered) {
    // Rank 0's slice timed out before rank 0 said stop: the others wait for its barrier.
    GRIDLOCK_MPI(MPI_Ibarrier(world, &stop));
  }
  idle_wait(stop);
  idle_wait(warm);
  return r;
}

std::vector<CongestorResult> reduce_congestor_runs(const std::vector<CongestorType>& types, int my_type,
                                                   const CongestorRun& run, MPI_Comm world) {
  const std::size_t n = types.size();
  std::vector<double> rates(n, 0.0);
  std::vector<std::uint64_t> counters(3 * n, 0);  // ranks, iterations, bytes
  std::vector<int> late(n, 0);
  if (my_type >= 0 && run.seconds > 0) {
    const auto t = static_cast<std::size_t>(my_type);
    rates.at(t) = static_cast<double>(run.bytes) / run.seconds / (1024.0 * 1024.0);
    counters[3 * t] = 1;
    counters[3 * t + 1] = run.iterations;
    counters[3 * t + 2] = run.bytes;
    late[t] = run.timed_out ? 1 : 0;
  }
  std::vector<double> rates_total(n, 0.0);
  std::vector<std::uint64_t> counters_total(3 * n, 0);
  std::vector<int> late_total(n, 0);
  const int count = to_count(n, "congestor types");
  if (count > 0) {
    GRIDLOCK_MPI(MPI_Reduce(rates.data(), rates_total.data(), count, MPI_DOUBLE, MPI_SUM, 0, world));
    GRIDLOCK_MPI(
        MPI_Reduce(counters.data(), counters_total.data(), 3 * count, MPI_UINT64_T, MPI_SUM, 0, world));
    GRIDLOCK_MPI(MPI_Reduce(late.data(), late_total.data(), count, MPI_INT, MPI_MAX, 0, world));
  }
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &rank));
  std::vector<CongestorResult> results;
  if (rank != 0) {
    return results;
  }
  for (std::size_t t = 0; t < n; ++t) {
    CongestorResult r;
    r.type = types[t];
    r.ranks = counters_total[3 * t];
    r.iterations = counters_total[3 * t + 1];
    r.bytes = counters_total[3 * t + 2];
    r.mib_per_s_total = rates_total[t];
    r.mib_per_s_per_rank = r.ranks > 0 ? rates_total[t] / static_cast<double>(r.ranks) : std::nan("");
    r.timed_out = late_total[t] != 0;
    results.push_back(r);
  }
  return results;
}

void wait_for_congestors(MPI_Comm world, IdleWait how) {
  MPI_Request warm = MPI_REQUEST_NULL;
  GRIDLOCK_MPI(MPI_Ibarrier(world, &warm));
  idle_wait(warm, how);
}

void measure_done(MPI_Comm world, IdleWait how) {
  MPI_Request stop = MPI_REQUEST_NULL;
  GRIDLOCK_MPI(MPI_Ibarrier(world, &stop));
  idle_wait(stop, how);
}

}  // namespace gridlock::bench::detail
