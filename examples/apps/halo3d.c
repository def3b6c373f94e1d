/* halo3d: a 3D halo exchange, the communication pattern of stencil codes.
 *
 * Pattern shown:
 *   - the ranks form a 3D Cartesian grid (MPI_Dims_create, MPI_Cart_create, not periodic);
 *   - each iteration every rank exchanges the six faces of its local cube with its neighbours
 *     (MPI_Irecv + MPI_Isend for all six, one MPI_Waitall; a missing neighbour at the edge of the
 *     domain is MPI_PROC_NULL, so the code has no special cases), then runs a Jacobi sweep of a
 *     7-point Laplace stencil on its cube (the compute between two exchanges);
 *   - every --check iterations the ranks of one x-slab (same x coordinate: MPI_Cart_sub keeps
 *     the y and z dimensions) sum their residual (the squared change of the sweep) with
 *     MPI_Allreduce on that sub-communicator, a per-slab convergence monitor;
 *   - at the end one MPI_Allreduce on the whole grid gives the global residual.
 *
 * Usage: mpiexec -n 8 ./halo3d [--iters N] [--n EDGE] [--check K] [--counts FILE]
 *   --iters  iterations (default 20)
 *   --n      edge of the local cube in grid points (default 16)
 *   --check  iterations between two slab residuals (default 5)
 *   --counts append this rank's messages and collectives to FILE as one JSON line (counts.h)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"

/* Index of point (i, j, k) of the local cube with its one-point halo, i = x is the slowest. */
#define AT(i, j, k) ((((size_t)(i)) * (size_t)(n + 2) + (size_t)(j)) * (size_t)(n + 2) + (size_t)(k))

/* Copies face `face` (dimension face / 2, low side if face is even) of the cube's interior to
 * buf, or, with unpack, buf into the halo layer beyond that face. */
static void copy_face(double* u, int n, int face, double* buf, int unpack) {
  const int dim = face / 2;
  const int low = face % 2 == 0;
  const int plane = unpack ? (low ? 0 : n + 1) : (low ? 1 : n);
  size_t m = 0;
  for (int a = 1; a <= n; ++a) {
    for (int b = 1; b <= n; ++b) {
      const size_t at = dim == 0 ? AT(plane, a, b) : dim == 1 ? AT(a, plane, b) : AT(a, b, plane);
      if (unpack) {
        u[at] = buf[m++];
      } else {
        buf[m++] = u[at];
      }
    }
  }
}

/* Bad arguments end every rank the same way: a message from rank 0, exit code 2. */
static void usage_error(const char* arg, const char* problem) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fprintf(stderr, "halo3d: %s: %s\nusage: halo3d [--iters N] [--n EDGE] [--check K] [--counts FILE]\n", arg,
            problem);
  }
  MPI_Finalize();
  exit(2);
}

static int parse_int(const char* flag, const char* value) {
  char* end = NULL;
  const long v = value != NULL ? strtol(value, &end, 10) : 0;
  if (value == NULL || *end != '\0' || v < 1 || v > 1000000)
    usage_error(flag, "needs an integer from 1 to 1000000");
  return (int)v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int iters = 20, n = 16, check = 5;
  const char* counts_path = NULL;
  for (int a = 1; a < argc; ++a) {
    const char* value = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(argv[a], "--iters") == 0) {
      iters = parse_int("--iters", value);
    } else if (strcmp(argv[a], "--n") == 0) {
      n = parse_int("--n", value);
    } else if (strcmp(argv[a], "--check") == 0) {
      check = parse_int("--check", value);
    } else if (strcmp(argv[a], "--counts") == 0 && value != NULL) {
      counts_path = value;
    } else {
      usage_error(argv[a], "unknown argument, or its value is missing");
    }
    ++a;
  }
  Counts counts;
  counts_init(&counts, "halo3d");

  /* The grid of ranks: MPI chooses a balanced factorisation, and may renumber the ranks
   * (reorder = 1) to fit the machine; from here on the program uses cart only. */
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int dims[3] = {0, 0, 0};
  const int periods[3] = {0, 0, 0};
  MPI_Dims_create(ranks, 3, dims);
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
  int rank = 0, coords[3];
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  counts_add_comm(&counts, "cart", cart);

  /* The x-slab of this rank: the ranks with its x coordinate. */
  const int remain[3] = {0, 1, 1};
  MPI_Comm slab = MPI_COMM_NULL;
  MPI_Cart_sub(cart, remain, &slab);
  counts_add_comm(&counts, "slab", slab);

  /* neighbour[face]: face 2d is the low side of dimension d, 2d + 1 the high side. */
  int neighbour[6];
  for (int d = 0; d < 3; ++d) MPI_Cart_shift(cart, d, 1, &neighbour[2 * d], &neighbour[2 * d + 1]);

  const size_t points = (size_t)(n + 2) * (size_t)(n + 2) * (size_t)(n + 2);
  const size_t face_points = (size_t)n * (size_t)n;
  double* u = calloc(points, sizeof(double));
  double* next = calloc(points, sizeof(double));
  double* send = malloc(6 * face_points * sizeof(double));
  double* recv = malloc(6 * face_points * sizeof(double));
  if (u == NULL || next == NULL || send == NULL || recv == NULL) {
    fprintf(stderr, "halo3d: out of memory for --n %d\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Boundary condition: u = 1 on the global x = 0 face (the halo of the ranks at x = 0). */
  if (coords[0] == 0) {
    for (int j = 0; j <= n + 1; ++j) {
      for (int k = 0; k <= n + 1; ++k) u[AT(0, j, k)] = next[AT(0, j, k)] = 1.0;
    }
  }

  const int face_count = n * n;
  const long long face_bytes = (long long)face_points * (long long)sizeof(double);
  double slab_residual = 0.0;
  double residual = 0.0;
  /* The time of the iterations on rank 0 (MPI_Wtime is not traced: it adds nothing to a trace). */
  const double start_s = MPI_Wtime();
  for (int it = 1; it <= iters; ++it) {
    /* Exchange: a message travelling towards the low side of dimension d has tag 2d, towards the
     * high side 2d + 1 (the face it leaves by), so the receive from the low neighbour expects
     * 2d + 1 and the one from the high neighbour 2d. */
    MPI_Request requests[12];
    /* A statuses array rather than MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's size annotation
     * of MPI_Waitall and warns about the latter. */
    MPI_Status statuses[12];
    for (int face = 0; face < 6; ++face) {
      const int tag_in = face % 2 == 0 ? face + 1 : face - 1;
      MPI_Irecv(recv + (size_t)face * face_points, face_count, MPI_DOUBLE, neighbour[face], tag_in, cart,
                &requests[face]);
      counts_recv(&counts, neighbour[face], face_bytes);
    }
    for (int face = 0; face < 6; ++face) {
      copy_face(u, n, face, send + (size_t)face * face_points, 0);
      MPI_Isend(send + (size_t)face * face_points, face_count, MPI_DOUBLE, neighbour[face], face, cart,
                &requests[6 + face]);
      counts_send(&counts, neighbour[face], face_bytes);
    }
    MPI_Waitall(12, requests, statuses);
    for (int face = 0; face < 6; ++face) {
      if (neighbour[face] != MPI_PROC_NULL) copy_face(u, n, face, recv + (size_t)face * face_points, 1);
    }

    /* Compute: one Jacobi sweep of the Laplace equation on the interior. */
    residual = 0.0;
    for (int i = 1; i <= n; ++i) {
      for (int j = 1; j <= n; ++j) {
        for (int k = 1; k <= n; ++k) {
          const double v = (u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] +
                            u[AT(i, j + 1, k)] + u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)]) /
                           6.0;
          residual += (v - u[AT(i, j, k)]) * (v - u[AT(i, j, k)]);
          next[AT(i, j, k)] = v;
        }
      }
    }
    double* swap = u;
    u = next;
    next = swap;

    if (it % check == 0) {
      MPI_Allreduce(&residual, &slab_residual, 1, MPI_DOUBLE, MPI_SUM, slab);
      counts_collective(&counts, slab, "allreduce");
    }
  }
  double total = 0.0;
  MPI_Allreduce(&residual, &total, 1, MPI_DOUBLE, MPI_SUM, cart);
  counts_collective(&counts, cart, "allreduce");
  const double elapsed_s = MPI_Wtime() - start_s;
  if (rank == 0) {
    printf("halo3d: %d ranks as %dx%dx%d, local cube %d^3, %d iterations in %.3f ms: residual %.6e", ranks,
           dims[0], dims[1], dims[2], n, iters, 1e3 * elapsed_s, total);
    if (iters >= check) printf(" (slab x=0 at iteration %d: %.6e)", iters - iters % check, slab_residual);
    printf("\n");
  }

  int status = 0;
  if (counts_path != NULL && counts_write(&counts, counts_path) != 0) status = 3;
  counts_free(&counts);
  free(u);
  free(next);
  free(send);
  free(recv);
  MPI_Comm_free(&slab);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return status;
}
