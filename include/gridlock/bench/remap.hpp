#pragma once
/// @file
/// In-application task remapping (Brandt et al., "Demonstrating improved application performance
/// using dynamic monitoring and task mapping", §III-E and §IV): the ranks of a running job report
/// their nodes, rank 0 builds the allocation, fetches the network metrics and maps the task graph
/// with Scotch (or reads a precomputed placement), and every rank takes as its new rank the task
/// placed on its core. The application then runs on the returned communicator, in which rank t is
/// task t.
///
/// Cores are numbered as in gridlock::mapping::Allocation: the nodes in the order in which their
/// names first appear among the ranks (old-rank order), and on each node the slots in old-rank
/// order. Every node must run the same number of ranks (that number is the cores per node).

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/machine.hpp"
#include "gridlock/mapping/mapping.hpp"
#include "gridlock/mapping/task_graph.hpp"

namespace gridlock::bench {

/// Options of remap_with_scotch().
struct RemapOptions {
  std::string topology;             ///< Topology spec, e.g. `torus:2x2x2`.
  std::string source = "sim:none";  ///< Metric source, e.g. `oracle:http://HOST:PORT`.
  mapping::WeightMetric metric = mapping::WeightMetric::kHops;  ///< Machine-graph weights.
  std::uint64_t seed = 1;                                       ///< Scotch's seed.
  mapping::FetchOptions fetch;                                  ///< Timeouts and window of the metric fetch.
  /// This rank's node name; empty: MPI_Get_processor_name. Given explicitly when several
  /// (virtual) nodes share one host.
  std::string node_name;
};

/// What a remap did. Times are MPI_Wtime seconds on rank 0, except `gather_s` and `broadcast_s`,
/// which every rank measures for itself.
struct RemapReport {
  std::string method;                       ///< `scotch:<metric>` or `placement`.
  std::vector<std::string> nodes;           ///< Allocated node names, in core order (every rank).
  std::uint32_t cores_per_node = 0;         ///< Ranks per node (every rank).
  mapping::Placement placement;             ///< Core of each task (every rank).
  std::vector<std::uint32_t> core_of_rank;  ///< Core of each old rank (every rank).
  int old_rank = 0;                         ///< This rank in the communicator given.
  int new_rank = 0;                         ///< This rank in the returned communicator (its task).
  double gather_s = 0;                      ///< Gathering the node names to rank 0.
  double fetch_s = 0;                       ///< Rank 0: building the topology and fetching the metrics.
  double map_s = 0;                         ///< Rank 0: computing the placement (Scotch, or reading it).
  double broadcast_s = 0;                   ///< Broadcasting the placement and splitting the communicator.
  mapping::ScotchReport scotch;             ///< Rank 0, Scotch only: what the mapper did.
  std::string source;                       ///< Scotch only: where the metrics came from.
};

/// A remapped communicator (owned: freed on destruction) and the report of how it was made.
class Remapping {
 public:
  /// Takes ownership of `comm`.
  Remapping(MPI_Comm comm, RemapReport report) noexcept : comm_(comm), report_(std::move(report)) {}
  Remapping(const Remapping&) = delete;             ///< Owns a communicator: not copyable.
  Remapping& operator=(const Remapping&) = delete;  ///< Owns a communicator: not copyable.
  /// Moves the communicator.
  Remapping(Remapping&& other) noexcept : comm_(other.comm_), report_(std::move(other.report_)) {
    other.comm_ = MPI_COMM_NULL;
  }
  Remapping& operator=(Remapping&&) = delete;  ///< Not needed.
  /// Frees the communicator.
  ~Remapping();
  /// The new communicator: rank t runs task t.
  [[nodiscard]] MPI_Comm comm() const noexcept { return comm_; }
  /// How it was made.
  [[nodiscard]] const RemapReport& report() const noexcept { return report_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  RemapReport report_;
};

/// Makes the placement on rank 0 from the allocation of the job (the report is there to be filled
/// with timings); may throw (an error is passed on to every rank).
using PlacementMaker = std::function<mapping::Placement(const mapping::Allocation&, RemapReport&)>;

/// The paper's method. Collective over `comm`, whose size must equal `graph.num_tasks`: every rank reports
/// its node name, rank 0 builds the topology and the allocation, fetches the metrics from `options.source`,
/// maps `graph` with Scotch and broadcasts the placement; returns MPI_Comm_split(comm, 0, task of this rank's
/// core). An error on rank 0 (unknown node names, uneven ranks per node, a task graph of another size, an
/// unreachable oracle, a Scotch failure) is thrown on every rank as CollectiveError with the same message and
/// exit code; `graph` and `options` other than `node_name` are only read on rank 0.
[[nodiscard]] Remapping remap_with_scotch(MPI_Comm comm, const mapping::TaskGraph& graph,
                                          const RemapOptions& options);

/// The same with a placement that rank 0 makes from the allocation (e.g. read from a rankfile
/// with mapping::read_rankfile): every rank takes the task placed on its (node, slot). The
/// allocation is resolved against `topology` when it is not empty; otherwise its node ids are the
/// nodes' positions (enough for launch files, which name hosts). `node_name` as in RemapOptions.
[[nodiscard]] Remapping remap_with_placement(MPI_Comm comm, const std::string& topology,
                                             const std::string& node_name,
                                             const PlacementMaker& make_placement);

}  // namespace gridlock::bench
