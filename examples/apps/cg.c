/* cg: a conjugate-gradient solver, the communication pattern of implicit solvers.
 *
 * Pattern shown:
 *   - the 2D Poisson equation -laplace(x) = 1 on an N x N grid (zero on the boundary), 5-point
 *     stencil; the grid's rows are split in blocks over the ranks (a 1D distribution);
 *   - each matrix-vector product first exchanges one boundary row with each neighbour rank
 *     (MPI_Sendrecv up, then down; the first and last ranks talk to MPI_PROC_NULL on their
 *     outer side);
 *   - each iteration computes two dot products, each a local sum and an MPI_Allreduce of one
 *     double over all ranks (these global synchronisations limit CG at scale);
 *   - it stops when the residual norm has dropped by --tol, or after --iters iterations.
 *
 * Usage: mpiexec -n 4 ./cg [--n N] [--iters N] [--tol T] [--counts FILE]
 *   --n      grid edge (default 64; at least the number of ranks)
 *   --iters  at most this many iterations (default 200)
 *   --tol    relative residual to reach (default 1e-8)
 *   --counts append this rank's messages and collectives to FILE as one JSON line (counts.h)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"

static void usage_error(const char* arg, const char* problem) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fprintf(stderr, "cg: %s: %s\nusage: cg [--n N] [--iters N] [--tol T] [--counts FILE]\n", arg, problem);
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

/* The rows this rank owns, with one halo row above (row 0) and below (row rows + 1). */
typedef struct {
  int n;        /* grid edge: points per row */
  int rows;     /* rows owned */
  int up, down; /* neighbour ranks holding the rows above and below, or MPI_PROC_NULL */
} Layout;

/* Fills the halo rows of v with the neighbours' boundary rows. */
static void exchange(const Layout* g, double* v, Counts* counts) {
  const size_t n = (size_t)g->n;
  const long long row_bytes = (long long)n * (long long)sizeof(double);
  /* my first row goes up, the row below mine comes from down */
  MPI_Sendrecv(v + n, g->n, MPI_DOUBLE, g->up, 1, v + (size_t)(g->rows + 1) * n, g->n, MPI_DOUBLE, g->down, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  counts_send(counts, g->up, row_bytes);
  counts_recv(counts, g->down, row_bytes);
  /* my last row goes down, the row above mine comes from up */
  MPI_Sendrecv(v + (size_t)g->rows * n, g->n, MPI_DOUBLE, g->down, 2, v, g->n, MPI_DOUBLE, g->up, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  counts_send(counts, g->down, row_bytes);
  counts_recv(counts, g->up, row_bytes);
}

/* out = A v on the owned rows (v's halo rows filled; outside the grid v is 0). */
static void apply_laplacian(const Layout* g, const double* v, double* out) {
  const int n = g->n;
  for (int i = 1; i <= g->rows; ++i) {
    for (int j = 0; j < n; ++j) {
      const size_t at = (size_t)i * (size_t)n + (size_t)j;
      const double left = j > 0 ? v[at - 1] : 0.0;
      const double right = j < n - 1 ? v[at + 1] : 0.0;
      out[at] = 4.0 * v[at] - left - right - v[at - (size_t)n] - v[at + (size_t)n];
    }
  }
}

/* The dot product of a and b over the whole grid: a local sum, then one MPI_Allreduce. */
static double dot(const Layout* g, const double* a, const double* b, Counts* counts) {
  double local = 0.0;
  for (size_t at = (size_t)g->n; at < (size_t)(g->rows + 1) * (size_t)g->n; ++at) local += a[at] * b[at];
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  counts_collective(counts, MPI_COMM_WORLD, "allreduce");
  return global;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 64, max_iters = 200;
  double tol = 1e-8;
  const char* counts_path = NULL;
  for (int a = 1; a < argc; ++a) {
    const char* value = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(argv[a], "--n") == 0) {
      n = parse_int("--n", value);
    } else if (strcmp(argv[a], "--iters") == 0) {
      max_iters = parse_int("--iters", value);
    } else if (strcmp(argv[a], "--tol") == 0) {
      char* end = NULL;
      tol = value != NULL ? strtod(value, &end) : 0.0;
      if (value == NULL || *end != '\0' || !(tol > 0.0 && tol < 1.0))
        usage_error("--tol", "needs a number in (0, 1)");
    } else if (strcmp(argv[a], "--counts") == 0 && value != NULL) {
      counts_path = value;
    } else {
      usage_error(argv[a], "unknown argument, or its value is missing");
    }
    ++a;
  }
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (n < ranks) usage_error("--n", "needs at least one grid row per rank");
  Counts counts;
  counts_init(&counts, "cg");
  counts_add_comm(&counts, "world", MPI_COMM_WORLD);

  /* Block distribution of the rows: the first n % ranks ranks own one more. */
  Layout g;
  g.n = n;
  g.rows = n / ranks + (rank < n % ranks ? 1 : 0);
  g.up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  g.down = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL;

  const size_t len = (size_t)(g.rows + 2) * (size_t)n;
  double* x = calloc(len, sizeof(double));
  double* r = calloc(len, sizeof(double));
  double* p = calloc(len, sizeof(double));
  double* ap = calloc(len, sizeof(double));
  if (x == NULL || r == NULL || p == NULL || ap == NULL) {
    fprintf(stderr, "cg: out of memory for --n %d\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* x = 0, so r = b - A x = b = 1 on the owned rows, and p = r. */
  for (size_t at = (size_t)n; at < (size_t)(g.rows + 1) * (size_t)n; ++at) r[at] = p[at] = 1.0;

  /* The time of the solve on rank 0 (MPI_Wtime is not traced: it adds nothing to a trace). */
  const double start_s = MPI_Wtime();
  double rr = dot(&g, r, r, &counts);
  const double rr0 = rr;
  int iters = 0;
  while (iters < max_iters && sqrt(rr) > tol * sqrt(rr0)) {
    ++iters;
    exchange(&g, p, &counts);
    apply_laplacian(&g, p, ap);
    const double alpha = rr / dot(&g, p, ap, &counts);
    for (size_t at = (size_t)n; at < (size_t)(g.rows + 1) * (size_t)n; ++at) {
      x[at] += alpha * p[at];
      r[at] -= alpha * ap[at];
    }
    const double rr_new = dot(&g, r, r, &counts);
    const double beta = rr_new / rr;
    for (size_t at = (size_t)n; at < (size_t)(g.rows + 1) * (size_t)n; ++at) p[at] = r[at] + beta * p[at];
    rr = rr_new;
  }
  const double elapsed_s = MPI_Wtime() - start_s;
  if (rank == 0) {
    printf("cg: %d ranks, %dx%d grid, %d iterations in %.3f ms: residual %.3e (relative %.3e)%s\n", ranks, n,
           n, iters, 1e3 * elapsed_s, sqrt(rr), sqrt(rr / rr0),
           sqrt(rr) <= tol * sqrt(rr0) ? "" : ", not converged: stopped at --iters");
  }

  int status = 0;
  if (counts_path != NULL && counts_write(&counts, counts_path) != 0) status = 3;
  counts_free(&counts);
  free(x);
  free(r);
  free(p);
  free(ap);
  MPI_Finalize();
  return status;
}
