// Canary 8-byte latency on one host against a bare two-rank ping-pong and against the canary's
// own exchange written bare, measured in one run and alternated several times so drift affects
// all alike. Prints the medians and their ratios.
// Run: mpiexec -n 2 build/release/bench/bench_pingpong_vs_canary [rounds]
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gridlock/bench/runner.hpp"
#include "gridlock/core/histogram.hpp"

namespace {

constexpr int kPingPongIterations = 20000;
constexpr int kWarmup = 1000;

// Median half round trip of an 8-byte blocking ping-pong between ranks 0 and 1, in microseconds.
double pingpong_median_us() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int peer = 1 - rank;
  double byte8 = 0;
  gridlock::LogHistogram histogram;
  for (int i = -kWarmup; i < kPingPongIterations; ++i) {
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(&byte8, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(&byte8, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&byte8, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&byte8, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
    }
    const double t1 = MPI_Wtime();
    if (i >= 0) {
      histogram.record((t1 - t0) * 1e6 / 2.0);
    }
  }
  return histogram.quantile(0.5);
}

// Median of the canary's exchange written bare (Irecv left/right, Isend left/right, Waitall,
// half the iteration time) without gridlock's harness, in microseconds.
double bare_exchange_median_us() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int peer = 1 - rank;
  std::array<double, 4> buffers{};
  std::array<MPI_Request, 4> requests{};
  gridlock::LogHistogram histogram;
  for (int i = -kWarmup; i < kPingPongIterations; ++i) {
    const double t0 = MPI_Wtime();
    MPI_Irecv(&buffers[0], 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&buffers[1], 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(&buffers[2], 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&buffers[3], 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests.data(), MPI_STATUSES_IGNORE);
    const double t1 = MPI_Wtime();
    if (i >= 0) {
      histogram.record((t1 - t0) * 1e6 / 2.0);
    }
  }
  return histogram.quantile(0.5);
}

// Median of gridlock-bench's RR Two-sided Lat (8 B) on two virtual nodes of this host.
double canary_median_us() {
  gridlock::gpcnet::Options options;
  options.mode = gridlock::gpcnet::Mode::kNetwork;
  options.virtual_nodes = 2;
  options.seed = 1;
  options.quiet = true;
  options.latency = {10, 1, 2000, 200};  // 20000 timed iterations, like the ping-pong
  options.bandwidth = {1, 1, 1, 0};
  options.allreduce = {1, 1, 1, 0};
  options.alltoall = {1, 1, 1, 0};
  const auto report = gridlock::bench::run_benchmark(options, MPI_COMM_WORLD);
  if (report.phases.empty()) {
    return 0;  // not rank 0
  }
  return report.phases[0].canaries[0].fine.median;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) {
      std::fprintf(stderr, "run with exactly 2 ranks: mpiexec -n 2 %s [rounds]\n", argv[0]);
    }
    MPI_Finalize();
    return 2;
  }
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<double> pingpong;
  std::vector<double> bare;
  std::vector<double> canary;
  for (int r = 0; r < rounds; ++r) {
    pingpong.push_back(pingpong_median_us());
    bare.push_back(bare_exchange_median_us());
    canary.push_back(canary_median_us());
  }
  if (rank == 0) {
    const double p = median(pingpong);
    const double b = median(bare);
    const double c = median(canary);
    std::printf(
        "rounds %d: ping-pong %.3f us, bare canary exchange %.3f us, gridlock canary %.3f us (medians)\n",
        rounds, p, b, c);
    std::printf("canary/ping-pong %.3f, canary/bare exchange %.3f\n", c / p, c / b);
  }
  MPI_Finalize();
  return 0;
}
