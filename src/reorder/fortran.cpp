// Fortran bindings (`mpif.h` and `use mpi`, gfortran's names: lower case, one underscore) of the
// four topology calls and MPI_Finalize. The MPI library's own Fortran bindings call PMPI_
// directly, so the C wrappers never see Fortran programs' calls. Each function here plans in C on
// the C handle of the communicator and calls the library's own binding (dlsym(RTLD_NEXT)) on the
// split communicator's Fortran handle with reorder = .false., which leaves every Fortran
// convention (logicals, handle tables, MPI_UNWEIGHTED) to the library.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <vector>

#include "detail/plan.hpp"
#include "gridlock/mapping/reorder.hpp"

namespace {

namespace detail = gridlock::reorder::detail;
namespace mapping = gridlock::mapping;
using F = MPI_Fint;
// Fortran integers are C ints here (both MPIs, gfortran's default kind): rank arrays pass as they are.
static_assert(sizeof(F) == sizeof(int));

// Fortran's .false. (gfortran, Open MPI and MPICH alike); any other value reads as .true.
constexpr F kFalse = 0;

// The MPI library's binding of `name`, looked up once.
template <typename Sig>
Sig* real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "gridlock-reorder: error: the MPI library has no Fortran binding %s\n",
                 name);  // NOLINT
    std::abort();
  }
  return reinterpret_cast<Sig*>(f);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): dlsym
}

// Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are addresses of the library's own variables,
// which Open MPI exports under these names; where they are not found, a distributed graph's
// weights are not read (every edge weighs 1).
struct FortranWeightSentinels {
  const void* unweighted = dlsym(RTLD_DEFAULT, "mpi_fortran_unweighted_");
  const void* empty = dlsym(RTLD_DEFAULT, "mpi_fortran_weights_empty_");
};

bool weights_readable(const F* weights) {
  static const FortranWeightSentinels sentinels;
  return sentinels.unweighted != nullptr && sentinels.empty != nullptr && weights != sentinels.unweighted &&
         weights != sentinels.empty;
}

// Plans for the C communicator of `comm`; the Fortran handle to make the real call on.
F plan(F* comm, const detail::CallInfo& info, detail::Reordered& r, F* ierr) {
  *ierr = detail::reorder(PMPI_Comm_f2c(*comm), info, r);
  return r.split ? PMPI_Comm_c2f(r.comm) : *comm;
}

void finish(detail::Reordered& r, F* ierr) {
  if (r.split) {
    const int rc = PMPI_Comm_free(&r.comm);
    if (*ierr == MPI_SUCCESS) *ierr = rc;
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void mpi_cart_create_(F* comm, F* ndims, F* dims, F* periods,
                                                             F* reorder, F* comm_cart, F* ierr) {
  static auto* f = real<void(F*, F*, F*, F*, F*, F*, F*)>("mpi_cart_create_");
  if (*reorder == kFalse || *ndims < 1 || *ndims > static_cast<F>(mapping::kMaxCartesianDims) ||
      !detail::reorderable(PMPI_Comm_f2c(*comm))) {
    f(comm, ndims, dims, periods, reorder, comm_cart, ierr);
    return;
  }
  F no = kFalse;
  detail::guarded(
      "mpi_cart_create",
      [&] {
        const std::span<const int> d(dims, static_cast<std::size_t>(*ndims));
        // Fortran logicals as C's 0 or 1 (any non-zero value is .true.).
        std::vector<int> p(d.size());
        for (std::size_t i = 0; i < d.size(); ++i) {
          p[i] = periods[i] != kFalse ? 1 : 0;
        }
        int size = 0;
        PMPI_Comm_size(PMPI_Comm_f2c(*comm), &size);
        const long long members = detail::grid_members(d, size);
        if (members < 1 || members > size) {
          f(comm, ndims, dims, periods, reorder, comm_cart, ierr);
          return;
        }
        const detail::CallInfo info = detail::cart_call("fortran", d, p, static_cast<int>(members));
        detail::Reordered r;
        F use = plan(comm, info, r, ierr);
        if (*ierr != MPI_SUCCESS) return;
        f(&use, ndims, dims, periods, &no, comm_cart, ierr);
        finish(r, ierr);
      },
      [&] { f(comm, ndims, dims, periods, &no, comm_cart, ierr); });
}

__attribute__((visibility("default"))) void mpi_graph_create_(F* comm, F* nnodes, F* index, F* edges,
                                                              F* reorder, F* comm_graph, F* ierr) {
  static auto* f = real<void(F*, F*, F*, F*, F*, F*, F*)>("mpi_graph_create_");
  int size = 0;
  if (*reorder == kFalse || *nnodes < 1 || !detail::reorderable(PMPI_Comm_f2c(*comm)) ||
      PMPI_Comm_size(PMPI_Comm_f2c(*comm), &size) != MPI_SUCCESS || *nnodes > size) {
    f(comm, nnodes, index, edges, reorder, comm_graph, ierr);
    return;
  }
  F no = kFalse;
  detail::guarded(
      "mpi_graph_create",
      [&] {
        const detail::CallInfo info = detail::graph_call("fortran", *nnodes, index, edges);
        detail::Reordered r;
        F use = plan(comm, info, r, ierr);
        if (*ierr != MPI_SUCCESS) return;
        f(&use, nnodes, index, edges, &no, comm_graph, ierr);
        finish(r, ierr);
      },
      [&] { f(comm, nnodes, index, edges, &no, comm_graph, ierr); });
}

__attribute__((visibility("default"))) void mpi_dist_graph_create_adjacent_(F* comm, F* indegree, F* sources,
                                                                            F* sourceweights, F* outdegree,
                                                                            F* destinations, F* destweights,
                                                                            F* info_arg, F* reorder,
                                                                            F* comm_dist, F* ierr) {
  static auto* f = real<void(F*, F*, F*, F*, F*, F*, F*, F*, F*, F*, F*)>("mpi_dist_graph_create_adjacent_");
  if (*reorder == kFalse || *indegree < 0 || *outdegree < 0 || !detail::reorderable(PMPI_Comm_f2c(*comm))) {
    f(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info_arg, reorder,
      comm_dist, ierr);
    return;
  }
  F no = kFalse;
  detail::guarded(
      "mpi_dist_graph_create_adjacent",
      [&] {
        int rank = 0;
        int size = 0;
        PMPI_Comm_rank(PMPI_Comm_f2c(*comm), &rank);
        PMPI_Comm_size(PMPI_Comm_f2c(*comm), &size);
        const std::vector<detail::Edge> mine = detail::adjacent_edges(
            rank, *outdegree, destinations, weights_readable(destweights) ? destweights : nullptr);
        const detail::CallInfo info =
            detail::dist_graph_call("MPI_Dist_graph_create_adjacent", "fortran", size, mine);
        detail::Reordered r;
        F use = plan(comm, info, r, ierr);
        if (*ierr != MPI_SUCCESS) return;
        std::vector<F> in = detail::renumbered(r, sources, *indegree);
        std::vector<F> out = detail::renumbered(r, destinations, *outdegree);
        f(&use, indegree, in.data(), sourceweights, outdegree, out.data(), destweights, info_arg, &no,
          comm_dist, ierr);
        finish(r, ierr);
      },
      [&] {
        f(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info_arg, &no,
          comm_dist, ierr);
      });
}

__attribute__((visibility("default"))) void mpi_dist_graph_create_(F* comm, F* n, F* sources, F* degrees,
                                                                   F* destinations, F* weights, F* info_arg,
                                                                   F* reorder, F* comm_dist, F* ierr) {
  static auto* f = real<void(F*, F*, F*, F*, F*, F*, F*, F*, F*, F*)>("mpi_dist_graph_create_");
  if (*reorder == kFalse || *n < 0 || !detail::reorderable(PMPI_Comm_f2c(*comm))) {
    f(comm, n, sources, degrees, destinations, weights, info_arg, reorder, comm_dist, ierr);
    return;
  }
  F no = kFalse;
  detail::guarded(
      "mpi_dist_graph_create",
      [&] {
        int size = 0;
        PMPI_Comm_size(PMPI_Comm_f2c(*comm), &size);
        const std::vector<detail::Edge> mine = detail::dist_graph_edges(
            *n, sources, degrees, destinations, weights_readable(weights) ? weights : nullptr);
        const auto total = static_cast<F>(mine.size());
        const detail::CallInfo info = detail::dist_graph_call("MPI_Dist_graph_create", "fortran", size, mine);
        detail::Reordered r;
        F use = plan(comm, info, r, ierr);
        if (*ierr != MPI_SUCCESS) return;
        std::vector<F> src = detail::renumbered(r, sources, *n);
        std::vector<F> dst = detail::renumbered(r, destinations, total);
        f(&use, n, src.data(), degrees, dst.data(), weights, info_arg, &no, comm_dist, ierr);
        finish(r, ierr);
      },
      [&] { f(comm, n, sources, degrees, destinations, weights, info_arg, &no, comm_dist, ierr); });
}

__attribute__((visibility("default"))) void mpi_finalize_(F* ierr) {
  static auto* f = real<void(F*)>("mpi_finalize_");
  detail::write_report();
  f(ierr);
}

}  // extern "C"
