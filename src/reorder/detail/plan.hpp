#pragma once
// What the C and Fortran wrappers of libgridlock-reorder.so share: planning a communicator's new
// order on its rank 0 (gridlock::mapping), applying it with a split, and the report.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <span>
#include <vector>

#include "gridlock/mapping/task_graph.hpp"

namespace gridlock::reorder::detail {

/// One edge a process declares in a distributed graph call, in ranks of the old communicator.
struct Edge {
  std::int64_t src = 0;
  std::int64_t dst = 0;
  std::int64_t weight = 1;
};

/// A topology call being reordered.
struct CallInfo {
  const char* call = "";     ///< e.g. `MPI_Cart_create`.
  const char* binding = "";  ///< `c` or `fortran`.
  int members = 0;           ///< Ranks that take part (the first `members` ranks of the communicator).
  /// Builds the call's task graph on rank 0 from every process's edges (empty unless
  /// `gather_edges`); throws InputError for arguments it cannot use.
  std::function<mapping::TaskGraph(std::vector<mapping::Message>&&)> graph;
  bool gather_edges = false;          ///< Whether each process holds part of the graph.
  std::span<const Edge> local_edges;  ///< This process's edges (when gather_edges).
};

/// The ranks of a Cartesian grid of `dims`: their product, or 0 for a dimension below 1; the
/// product stops growing once above `size` (the communicator's ranks; no overflow).
long long grid_members(std::span<const int> dims, int size);

/// The edges MPI_Dist_graph_create_adjacent declares on the process of rank `rank`: to each of its
/// `outdegree` destinations (its sources are other processes' destinations), weighing `weights[k]`,
/// or 1 when `weights` is null (MPI_UNWEIGHTED).
std::vector<Edge> adjacent_edges(int rank, int outdegree, const int* destinations, const int* weights);

/// The edges MPI_Dist_graph_create declares on one process: from each of its `n` sources to its
/// `degrees[i]` destinations, weighing `weights[k]`, or 1 when `weights` is null.
std::vector<Edge> dist_graph_edges(int n, const int* sources, const int* degrees, const int* destinations,
                                   const int* weights);

/// The communicator the real call is made on.
struct Reordered {
  MPI_Comm comm = MPI_COMM_NULL;  ///< The caller's communicator, or the split one when reordered.
  bool split = false;             ///< Whether comm is a split the caller must free.
  std::vector<int> new_rank;      ///< When split: the new rank of every old rank.
};

/// The CallInfo of MPI_Cart_create over the first `members` ranks (grid_members()): the grid of
/// `dims` with `periods` (0 or 1 each), which must outlive the call.
CallInfo cart_call(const char* binding, std::span<const int> dims, std::span<const int> periods, int members);

/// The CallInfo of MPI_Graph_create of `nnodes` nodes (graph_call_graph()); `index` and `edges`
/// must outlive the call and are read on rank 0 only.
CallInfo graph_call(const char* binding, int nnodes, const int* index, const int* edges);

/// The CallInfo of a distributed graph call on a communicator of `size` ranks: every process's
/// `edges` (which must outlive the call) gathered to rank 0.
CallInfo dist_graph_call(const char* call, const char* binding, int size, std::span<const Edge> edges);

/// Plans and applies the reorder of `comm` for `info` (collective over comm): gathers the
/// processor names (and edges) to rank 0, plans there, broadcasts the order and splits. Any failure
/// to plan keeps the order with one warning on rank 0 (or aborts with GRIDLOCK_REORDER_STRICT=1).
/// Returns an MPI error code of the library's own calls (MPI_SUCCESS when all went well).
int reorder(MPI_Comm comm, const CallInfo& info, Reordered& out);

/// Whether `comm` can be reordered at all (an intracommunicator; intercommunicators pass through).
bool reorderable(MPI_Comm comm);

/// The task graph of MPI_Graph_create's arguments (every process passes the whole graph): node i's
/// neighbours are edges[index[i-1] .. index[i]). Throws InputError for inconsistent arguments.
mapping::TaskGraph graph_call_graph(int nnodes, const int* index, const int* edges);

/// `ranks` (ranks of the old communicator, or MPI_PROC_NULL) in the new order of `r`; a copy of
/// them when the order was kept.
std::vector<int> renumbered(const Reordered& r, const int* ranks, int count);

/// Writes GRIDLOCK_REORDER_REPORT (collective over MPI_COMM_WORLD; before PMPI_Finalize).
void write_report();

/// Runs `body` (which plans and makes the real MPI call) and returns what it returns. Exceptions
/// never cross into the C or Fortran program: on one (an allocation failure, a bug in the library;
/// reorder() catches what planning throws) it says so on stderr and returns `fallback()`, the real
/// call without reordering.
template <typename Body, typename Fallback>
auto guarded(const char* call, Body body, Fallback fallback) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(
        stderr,
        "gridlock-reorder: internal error in %s: %s; the call is made without reordering\n",  // NOLINT
        call, e.what());
    return fallback();
  }
}

}  // namespace gridlock::reorder::detail
