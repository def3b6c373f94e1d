/* reorder_app: MPI's graph topology calls with reorder = 1, checked from inside the program, for
 * libgridlock-reorder.so (tests/mpi/reorder_check.sh). Every rank r talks to its partner
 * (r + n/2) mod n: launched with consecutive ranks on a node, partners sit on different nodes,
 * and a reorder that keeps them on one node lowers the cost.
 *
 * For each call the program checks what must hold whatever the order: the new communicator has
 * every rank, and a neighbour exchange of world ranks delivers the partner's (for the distributed
 * graphs, whose arguments name old ranks, this checks the library renumbered them). It prints,
 * per call, how many ranks changed number. Exit 1 on a failed check. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

static void check(int ok, const char* what, int rank) {
  if (!ok) {
    fprintf(stderr, "reorder_app: rank %d: %s\n", rank, what);
    ++failures;
  }
}

/* Rank 0 prints how many ranks of comm have another number than in MPI_COMM_WORLD. */
static void report(const char* call, MPI_Comm comm, int world_rank) {
  int rank = 0, moved = 0, total = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  moved = rank != world_rank;
  MPI_Allreduce(&moved, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(size > 0, "empty communicator", world_rank);
  if (world_rank == 0) printf("reorder_app: %s: %d of %d ranks renumbered\n", call, total, size);
}

/* A neighbour allgather of world ranks on a communicator whose only neighbour is the partner. */
static void check_partner(const char* call, MPI_Comm comm, int world_rank, int partner) {
  int got = -1;
  if (MPI_Neighbor_allgather(&world_rank, 1, MPI_INT, &got, 1, MPI_INT, comm) != MPI_SUCCESS) {
    check(0, "MPI_Neighbor_allgather failed", world_rank);
    return;
  }
  if (got != partner) {
    fprintf(stderr, "reorder_app: rank %d: %s: the neighbour is world rank %d, not the partner %d\n",
            world_rank, call, got, partner);
    ++failures;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (n < 2 || n % 2 != 0) {
    if (me == 0) fprintf(stderr, "reorder_app: needs an even number of ranks\n");
    MPI_Finalize();
    return 2;
  }
  const int half = n / 2;
  const int partner = (me + half) % n;

  /* MPI_Graph_create: every rank passes the whole graph; vertex i's neighbour is i + n/2. */
  int* index = malloc((size_t)n * sizeof(int));
  int* edges = malloc((size_t)n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    index[i] = i + 1;
    edges[i] = (i + half) % n;
  }
  MPI_Comm graph = MPI_COMM_NULL;
  check(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &graph) == MPI_SUCCESS, "MPI_Graph_create", me);
  report("MPI_Graph_create", graph, me);
  int graph_rank = 0, count = 0, neighbour = -1;
  MPI_Comm_rank(graph, &graph_rank);
  MPI_Graph_neighbors_count(graph, graph_rank, &count);
  MPI_Graph_neighbors(graph, graph_rank, 1, &neighbour);
  check(count == 1 && neighbour == (graph_rank + half) % n, "MPI_Graph_neighbors: not the vertex's neighbour",
        me);
  MPI_Comm_free(&graph);

  /* MPI_Dist_graph_create_adjacent: each rank names its partner, a heavy edge. */
  const int weight = 1000;
  MPI_Comm adjacent = MPI_COMM_NULL;
  check(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &partner, &weight, 1, &partner, &weight,
                                       MPI_INFO_NULL, 1, &adjacent) == MPI_SUCCESS,
        "MPI_Dist_graph_create_adjacent", me);
  report("MPI_Dist_graph_create_adjacent", adjacent, me);
  check_partner("MPI_Dist_graph_create_adjacent", adjacent, me, partner);
  MPI_Comm_free(&adjacent);

  /* MPI_Dist_graph_create: rank 0 declares every edge, the others none. */
  int* sources = malloc((size_t)n * sizeof(int));
  int* degrees = malloc((size_t)n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    sources[i] = i;
    degrees[i] = 1;
  }
  MPI_Comm dist = MPI_COMM_NULL;
  /* Through a volatile: GCC 12 reads MPI_UNWEIGHTED's sentinel address as an empty array. */
  const int* volatile unweighted = MPI_UNWEIGHTED;
  check(MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? n : 0, sources, degrees, edges, unweighted,
                              MPI_INFO_NULL, 1, &dist) == MPI_SUCCESS,
        "MPI_Dist_graph_create", me);
  report("MPI_Dist_graph_create", dist, me);
  check_partner("MPI_Dist_graph_create", dist, me, partner);
  MPI_Comm_free(&dist);

  free(index);
  free(edges);
  free(sources);
  free(degrees);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("reorder_app: %s\n", all == 0 ? "all checks passed" : "CHECKS FAILED");
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
