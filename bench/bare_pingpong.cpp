// A bare two-rank ping-pong with nothing of gridlock in it: the reference that
// bench/sweep_vs_netpipe.sh puts beside `gridlock-bench sweep --ops pingpong` and NetPIPE, so that
// the harness's cost per iteration can be read off (issue 22: at most 50 ns) and a difference
// from NetPIPE can be told apart from one of the sweep's.
// Same method as the sweep: MPI_Send/MPI_Recv from separate send and receive buffers, half the
// round trip timed with MPI_Wtime per iteration, median and mean over the iterations after a
// warm-up; each size runs `reps` iterations or 0.5 s, whichever ends first.
//   mpiexec -n 2 bench_bare_pingpong MAX_BYTES [REPS=10000]
// Prints one line per power-of-two size from 1 byte: `size_bytes median_us mean_us iterations`.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

constexpr int kWarmup = 100;
constexpr double kMaxSecondsPerSize = 0.5;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "bare_pingpong: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // BARE_PINGPONG_FUNNELED=1: initialise as gridlock-bench does (MPI_THREAD_FUNNELED), to tell
  // the thread level's cost apart from the harness's.
  const char* funneled = std::getenv("BARE_PINGPONG_FUNNELED");  // NOLINT(concurrency-mt-unsafe): no threads
  if (funneled != nullptr && funneled[0] == '1') {
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  } else {
    check(MPI_Init(&argc, &argv), "MPI_Init");
  }
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  const long max_bytes = argc > 1 ? std::atol(argv[1]) : 0;
  const long reps = argc > 2 ? std::atol(argv[2]) : 10000;
  if (size != 2 || max_bytes < 1 || max_bytes > (1L << 30) || reps < 1) {
    if (rank == 0) {
      std::fprintf(stderr, "usage: mpiexec -n 2 bench_bare_pingpong MAX_BYTES(1..1GiB) [REPS>=1]\n");
    }
    MPI_Finalize();
    return 2;
  }
  const int peer = 1 - rank;
  std::vector<char> send(static_cast<std::size_t>(max_bytes), 's');
  std::vector<char> recv(static_cast<std::size_t>(max_bytes), 'r');
  std::vector<double> half_round_trip_s;
  half_round_trip_s.reserve(static_cast<std::size_t>(reps));
  for (long bytes = 1; bytes <= max_bytes; bytes *= 2) {
    const int n = static_cast<int>(bytes);
    half_round_trip_s.clear();
    // Rank 0 decides when a size ends and tells rank 1 in the message's tag, so both stop on the
    // same iteration without an extra message on the timed path.
    const double size_start = MPI_Wtime();
    for (long i = -kWarmup; i < reps; ++i) {
      const double start = MPI_Wtime();
      int more = 1;
      if (rank == 0) {
        more = (i + 1 < reps && MPI_Wtime() - size_start < kMaxSecondsPerSize) ? 1 : 0;
        check(MPI_Send(send.data(), n, MPI_BYTE, peer, more, MPI_COMM_WORLD), "MPI_Send");
        check(MPI_Recv(recv.data(), n, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv");
      } else {
        MPI_Status status;
        check(MPI_Recv(recv.data(), n, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &status), "MPI_Recv");
        more = status.MPI_TAG;
        check(MPI_Send(send.data(), n, MPI_BYTE, peer, more, MPI_COMM_WORLD), "MPI_Send");
      }
      const double elapsed = MPI_Wtime() - start;
      if (i >= 0) {
        half_round_trip_s.push_back(0.5 * elapsed);
      }
      if (more == 0) {
        break;
      }
    }
    if (rank == 0 && !half_round_trip_s.empty()) {
      const double mean = std::accumulate(half_round_trip_s.begin(), half_round_trip_s.end(), 0.0) /
                          static_cast<double>(half_round_trip_s.size());
      const auto mid = half_round_trip_s.begin() + static_cast<std::ptrdiff_t>(half_round_trip_s.size() / 2);
      std::nth_element(half_round_trip_s.begin(), mid, half_round_trip_s.end());
      std::printf("%ld %.4f %.4f %zu\n", bytes, *mid * 1e6, mean * 1e6, half_round_trip_s.size());
    }
  }
  check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
