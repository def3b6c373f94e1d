// A small MPI program traced by tests/mpi/trace_check.sh through LD_PRELOAD (it is not linked
// with the tracer). Every rank, with left/right its ring neighbours:
//   point-to-point, 7 messages to the right and 7 from the left, 1170 bytes each way:
//     MPI_Send/MPI_Recv 100 B, MPI_Sendrecv 200 B, MPI_Isend/MPI_Irecv + MPI_Waitall 300 B,
//     MPI_Isend/MPI_Irecv + MPI_Wait/MPI_Test 400 B, MPI_Isend + MPI_Probe + MPI_Recv 50 B,
//     MPI_Send_init/MPI_Recv_init 60 B started twice (MPI_Startall, MPI_Start + MPI_Waitall);
//   13 collectives on MPI_COMM_WORLD (sizes in trace_check.sh), MPI_Ibcast of 512 B from rank 0
//   and MPI_Iallreduce of 16 B completed by one MPI_Waitall, then MPI_Allreduce of 32 B on
//   MPI_Comm_split(rank % 2) and MPI_Barrier on MPI_Comm_dup(MPI_COMM_WORLD).
// `trace_app exit` leaves after the first messages with exit(3), without MPI_Finalize.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n % 2 != 0) {
    if (rank == 0) std::fprintf(stderr, "trace_app: needs an even number of ranks\n");
    MPI_Finalize();
    return 2;
  }
  const int right = (rank + 1) % n;
  const int left = (rank + n - 1) % n;
  std::vector<char> out(4096, 'x');
  std::vector<char> in(4096);
  std::vector<int> ints(25, rank);
  std::vector<int> ints_in(25);

  if (rank % 2 == 0) {
    MPI_Send(ints.data(), 25, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Recv(ints_in.data(), 25, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(ints_in.data(), 25, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(ints.data(), 25, MPI_INT, right, 1, MPI_COMM_WORLD);
  }
  if (argc > 1 && std::strcmp(argv[1], "exit") == 0) std::exit(3);  // NOLINT(concurrency-mt-unsafe)
  MPI_Sendrecv(out.data(), 200, MPI_BYTE, right, 2, in.data(), 200, MPI_BYTE, left, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Request reqs[2];
  MPI_Irecv(in.data(), 300, MPI_BYTE, left, 3, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(out.data(), 300, MPI_BYTE, right, 3, MPI_COMM_WORLD, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MPI_Irecv(in.data(), 400, MPI_BYTE, left, 4, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(out.data(), 400, MPI_BYTE, right, 4, MPI_COMM_WORLD, &reqs[1]);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  int done = 0;
  while (done == 0) MPI_Test(&reqs[1], &done, MPI_STATUS_IGNORE);
  MPI_Isend(out.data(), 50, MPI_BYTE, right, 5, MPI_COMM_WORLD, &reqs[1]);
  MPI_Status status;
  MPI_Probe(left, 5, MPI_COMM_WORLD, &status);
  MPI_Recv(in.data(), 50, MPI_BYTE, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  MPI_Recv_init(in.data(), 60, MPI_BYTE, left, 6, MPI_COMM_WORLD, &reqs[0]);
  MPI_Send_init(out.data(), 60, MPI_BYTE, right, 6, MPI_COMM_WORLD, &reqs[1]);
  MPI_Startall(2, reqs);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MPI_Start(&reqs[0]);
  MPI_Start(&reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);

  std::vector<double> d(8, 1.0);
  std::vector<double> dr(8);
  std::vector<char> big(static_cast<std::size_t>(16 * n));
  std::vector<int> counts(static_cast<std::size_t>(n), 16);
  std::vector<int> displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = 16 * i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(out.data(), 1024, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Allreduce(d.data(), dr.data(), 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(d.data(), dr.data(), 8, MPI_DOUBLE, MPI_SUM, n - 1, MPI_COMM_WORLD);
  MPI_Gather(out.data(), 16, MPI_BYTE, big.data(), 16, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Scatter(big.data(), 16, MPI_BYTE, in.data(), 16, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Allgather(out.data(), 16, MPI_BYTE, big.data(), 16, MPI_BYTE, MPI_COMM_WORLD);
  MPI_Alltoall(out.data(), 8, MPI_BYTE, big.data(), 8, MPI_BYTE, MPI_COMM_WORLD);
  MPI_Alltoallv(out.data(), counts.data(), displs.data(), MPI_BYTE, big.data(), counts.data(), displs.data(),
                MPI_BYTE, MPI_COMM_WORLD);
  MPI_Allgatherv(out.data(), 16, MPI_BYTE, big.data(), counts.data(), displs.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  MPI_Gatherv(out.data(), 16, MPI_BYTE, big.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  MPI_Scatterv(big.data(), counts.data(), displs.data(), MPI_BYTE, in.data(), 16, MPI_BYTE, 0,
               MPI_COMM_WORLD);
  MPI_Reduce_scatter(big.data(), in.data(), counts.data(), MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);

  MPI_Ibcast(out.data(), 512, MPI_BYTE, 0, MPI_COMM_WORLD, &reqs[0]);
  MPI_Iallreduce(d.data(), dr.data(), 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Allreduce(d.data(), dr.data(), 4, MPI_DOUBLE, MPI_SUM, half);
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Barrier(dup);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
