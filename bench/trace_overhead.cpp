// The cost the OTF2 tracer (libgridlock-trace.so) adds to an MPI call: run this program once
// as it is and once with the tracer preloaded (bench/trace_overhead.sh does both) and subtract.
// It is not linked with the tracer. One rank; per call kind, the best of 5 rounds of N calls
// (the best round is the least disturbed by other jobs on the machine).
//   mpiexec -n 1 bench_trace_overhead [N=200000]
// Prints one line per kind: `kind ns_per_call calls_per_round`.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kRounds = 5;

template <typename F>
double best_ns_per_call(int n, int calls_per_iteration, F body) {
  double best = 1e300;
  for (int round = 0; round < kRounds; ++round) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i) body();
    const double t = MPI_Wtime() - t0;
    best = std::min(best, t * 1e9 / (static_cast<double>(n) * calls_per_iteration));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long n_arg = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 200000;
  if (n_arg <= 0 || n_arg > 100000000) {
    std::fprintf(stderr, "bench_trace_overhead: N must be 1 to 100000000, not '%s'\n", argv[1]);
    MPI_Finalize();
    return 2;
  }
  const int n = static_cast<int>(n_arg);
  int flag = 0;
  char out[8] = {};
  char in[8] = {};
  double x = 1;
  double y = 0;
  // Enter and Leave only.
  const double iprobe =
      best_ns_per_call(n, 1, [&] { MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); });
  // A message to itself: Irecv (request), Isend (send + request), Waitall (two completions).
  const double p2p = best_ns_per_call(n, 3, [&] {
    MPI_Request r[2];
    MPI_Irecv(in, 8, MPI_BYTE, 0, 1, MPI_COMM_SELF, &r[0]);
    MPI_Isend(out, 8, MPI_BYTE, 0, 1, MPI_COMM_SELF, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  });
  // A collective: Enter, CollectiveBegin, CollectiveEnd, Leave.
  const double coll =
      best_ns_per_call(n, 1, [&] { MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF); });
  std::printf("iprobe %.1f %d\n", iprobe, n);
  std::printf("isend_irecv_waitall %.1f %d\n", p2p, 3 * n);
  std::printf("allreduce_8B %.1f %d\n", coll, n);
  MPI_Finalize();
  return 0;
}
