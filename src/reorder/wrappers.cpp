// The MPI C functions of libgridlock-reorder.so: the four topology calls, reordered when the
// program passes reorder = true (detail/plan.hpp), and MPI_Finalize, which writes the report.
// Each real call is made with reorder = false on the communicator split in the new order; the
// arguments of a distributed graph name ranks of the old communicator, so they are renumbered.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "detail/plan.hpp"
#include "gridlock/mapping/reorder.hpp"

namespace {

namespace detail = gridlock::reorder::detail;
namespace mapping = gridlock::mapping;

// Frees the split communicator once the real call has copied it.
int finish(detail::Reordered& r, int rc) {
  if (r.split) {
    const int free_rc = PMPI_Comm_free(&r.comm);
    if (rc == MPI_SUCCESS) rc = free_rc;
  }
  return rc;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                                                           const int periods[], int reorder,
                                                           MPI_Comm* comm_cart) {
  // More dimensions than a reorder takes: MPI's call as it is (and its error, if any).
  if (reorder == 0 || ndims < 1 || ndims > static_cast<int>(mapping::kMaxCartesianDims) ||
      !detail::reorderable(comm)) {
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
  }
  return detail::guarded(
      "MPI_Cart_create",
      [&] {
        const std::span<const int> d(dims, static_cast<std::size_t>(ndims));
        int size = 0;
        PMPI_Comm_size(comm, &size);
        const long long members = detail::grid_members(d, size);
        if (members < 1 || members > size) {
          // MPI's own error to report, not ours.
          return PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
        }
        const detail::CallInfo info =
            detail::cart_call("c", d, std::span<const int>(periods, static_cast<std::size_t>(ndims)),
                              static_cast<int>(members));
        detail::Reordered r;
        int rc = detail::reorder(comm, info, r);
        if (rc != MPI_SUCCESS) return rc;
        rc = PMPI_Cart_create(r.comm, ndims, dims, periods, 0, comm_cart);
        return finish(r, rc);
      },
      [&] { return PMPI_Cart_create(comm, ndims, dims, periods, 0, comm_cart); });
}

__attribute__((visibility("default"))) int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[],
                                                            const int edges[], int reorder,
                                                            MPI_Comm* comm_graph) {
  int size = 0;
  if (reorder == 0 || nnodes < 1 || !detail::reorderable(comm) ||
      PMPI_Comm_size(comm, &size) != MPI_SUCCESS || nnodes > size) {
    return PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
  }
  return detail::guarded(
      "MPI_Graph_create",
      [&] {
        const detail::CallInfo info = detail::graph_call("c", nnodes, index, edges);
        detail::Reordered r;
        int rc = detail::reorder(comm, info, r);
        if (rc != MPI_SUCCESS) return rc;
        rc = PMPI_Graph_create(r.comm, nnodes, index, edges, 0, comm_graph);
        return finish(r, rc);
      },
      [&] { return PMPI_Graph_create(comm, nnodes, index, edges, 0, comm_graph); });
}

__attribute__((visibility("default"))) int MPI_Dist_graph_create_adjacent(
    MPI_Comm comm, int indegree, const int sources[], const int sourceweights[], int outdegree,
    const int destinations[], const int destweights[], MPI_Info info_arg, int reorder,
    MPI_Comm* comm_dist_graph) {
  if (reorder == 0 || indegree < 0 || outdegree < 0 || !detail::reorderable(comm)) {
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                           destweights, info_arg, reorder, comm_dist_graph);
  }
  return detail::guarded(
      "MPI_Dist_graph_create_adjacent",
      [&] {
        int rank = 0;
        int size = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Comm_size(comm, &size);
        // This process's out-edges are the graph's; its in-edges are other processes' out-edges.
        const bool weighted = destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY;
        const std::vector<detail::Edge> mine =
            detail::adjacent_edges(rank, outdegree, destinations, weighted ? destweights : nullptr);
        const detail::CallInfo info =
            detail::dist_graph_call("MPI_Dist_graph_create_adjacent", "c", size, mine);
        detail::Reordered r;
        int rc = detail::reorder(comm, info, r);
        if (rc != MPI_SUCCESS) return rc;
        const std::vector<int> in = detail::renumbered(r, sources, indegree);
        const std::vector<int> out = detail::renumbered(r, destinations, outdegree);
        rc = PMPI_Dist_graph_create_adjacent(r.comm, indegree, in.data(), sourceweights, outdegree,
                                             out.data(), destweights, info_arg, 0, comm_dist_graph);
        return finish(r, rc);
      },
      [&] {
        return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                               destinations, destweights, info_arg, 0, comm_dist_graph);
      });
}

__attribute__((visibility("default"))) int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                                                 const int degrees[],
                                                                 const int destinations[],
                                                                 const int weights[], MPI_Info info_arg,
                                                                 int reorder, MPI_Comm* comm_dist_graph) {
  if (reorder == 0 || n < 0 || !detail::reorderable(comm)) {
    return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info_arg, reorder,
                                  comm_dist_graph);
  }
  return detail::guarded(
      "MPI_Dist_graph_create",
      [&] {
        int size = 0;
        PMPI_Comm_size(comm, &size);
        const bool weighted = weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
        const std::vector<detail::Edge> mine =
            detail::dist_graph_edges(n, sources, degrees, destinations, weighted ? weights : nullptr);
        const int total = static_cast<int>(mine.size());
        const detail::CallInfo info = detail::dist_graph_call("MPI_Dist_graph_create", "c", size, mine);
        detail::Reordered r;
        int rc = detail::reorder(comm, info, r);
        if (rc != MPI_SUCCESS) return rc;
        const std::vector<int> src = detail::renumbered(r, sources, n);
        const std::vector<int> dst = detail::renumbered(r, destinations, total);
        rc = PMPI_Dist_graph_create(r.comm, n, src.data(), degrees, dst.data(), weights, info_arg, 0,
                                    comm_dist_graph);
        return finish(r, rc);
      },
      [&] {
        return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info_arg, 0,
                                      comm_dist_graph);
      });
}

__attribute__((visibility("default"))) int MPI_Finalize() {
  detail::write_report();
  return PMPI_Finalize();
}

}  // extern "C"
