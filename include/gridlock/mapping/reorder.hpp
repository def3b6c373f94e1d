#pragma once
/// @file
/// Rank reordering for MPI's topology calls (`MPI_Cart_create`, `MPI_Graph_create`,
/// `MPI_Dist_graph_create[_adjacent]` with `reorder` true), the MPI-free half of
/// libgridlock-reorder.so (docs/mapping.md, "Reordering inside any MPI program"): the task graph a
/// call declares, the allocation read from the ranks' processor names, the machine from a topology
/// spec (or a one-switch machine of the job's nodes when there is none), and the new rank of every
/// process, mapped with geometric_placement() (grids) or scotch_placement(). The PMPI library gathers the
/// call's arguments and the names, calls plan_reorder() on one rank and applies the plan with MPI_Comm_split.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/mapping/machine.hpp"
#include "gridlock/mapping/mapping.hpp"
#include "gridlock/mapping/task_graph.hpp"

namespace gridlock::mapping {

/// Most dimensions of a Cartesian grid a reorder takes (MPI sets no limit; no application uses
/// more than a handful, and each adds two neighbours per rank).
inline constexpr std::size_t kMaxCartesianDims = 16;

/// The task graph of a Cartesian grid as MPI_Cart_create declares it: ranks numbered in MPI's
/// row-major order (the last dimension varies fastest), each sending `bytes` to each distinct
/// neighbour along every dimension (periodic dimensions wrap around; a dimension of 1 adds none, a
/// periodic dimension of 2 one). Throws InputError for no dimension, more than kMaxCartesianDims,
/// a dimension below 1, a grid above kMaxTasks, `periods` of another length or 0 bytes; the graph
/// of a grid without neighbours (one rank, or every dimension 1) has no messages. Grids of up to 3
/// dimensions carry their ranks' coordinates (for geometric mapping).
[[nodiscard]] TaskGraph cartesian_task_graph(std::span<const int> dims, std::span<const int> periods,
                                             std::uint64_t bytes = kDefaultStencilBytes);

/// The task graph of `num_tasks` ranks and the directed edges an MPI graph call declares (`src`
/// sends to `dst`, `bytes` the edge's weight, or 1 for an unweighted graph). Edges from a rank to
/// itself are left out (MPI allows them; they cross no network), repeated edges add up. Throws
/// InputError as make_task_graph() does, except that a graph without edges is returned empty.
[[nodiscard]] TaskGraph edge_task_graph(std::uint32_t num_tasks, std::vector<Message> edges,
                                        std::string spec);

/// How plan_reorder() maps (`GRIDLOCK_REORDER_METHOD`).
enum class ReorderMethod {
  kAuto,       ///< `auto`: geometric for a grid of up to 3 dimensions, Scotch otherwise.
  kGeometric,  ///< `geometric`: recursive coordinate bisection (grids of up to 3 dimensions only).
  kScotch,     ///< `scotch`: Scotch under the metric, for every graph.
};

/// The name of a method as GRIDLOCK_REORDER_METHOD spells it.
[[nodiscard]] std::string_view to_string(ReorderMethod method) noexcept;

/// Where the machine comes from, as the environment of the MPI job gives it.
struct ReorderConfig {
  /// `GRIDLOCK_TOPOLOGY`: a topology spec as `gridlock topo` takes it; empty: a machine of one
  /// switch with the job's nodes on it (only the nodes matter: heavy traffic kept on a node).
  std::string topology;
  /// `GRIDLOCK_NODES`: the job's nodes named in the topology, a hostlist or `@FILE`, in the order
  /// the processor names first appear; empty: the processor names are the topology's names.
  std::string nodes;
  /// `GRIDLOCK_ORACLE`: an oracle service URL (`http://HOST:PORT`) for the `bw` and `stalls`
  /// metrics; empty: hops from the topology.
  std::string oracle;
  /// `GRIDLOCK_METRIC`: the weight Scotch maps with (`hops` by default).
  WeightMetric metric = WeightMetric::kHops;
  /// `GRIDLOCK_VIRTUAL_NODES`: the job's ranks form this many nodes in all, consecutive ranks of a
  /// host split evenly (as `gridlock-bench --virtual-nodes`); 0: one node per processor name.
  std::uint32_t virtual_nodes = 0;
  /// `GRIDLOCK_REORDER_SEED`: Scotch's seed.
  std::uint64_t seed = 1;
  /// `GRIDLOCK_REORDER_METHOD`: how to map.
  ReorderMethod method = ReorderMethod::kAuto;
};

/// Reads ReorderConfig from the environment through `lookup` (a variable's value, or nothing when
/// unset). Throws InputError naming the variable for a value that cannot be used.
[[nodiscard]] ReorderConfig reorder_config_from(
    const std::function<std::optional<std::string>(std::string_view)>& lookup);

/// The new order of a communicator's ranks and what it gains.
struct ReorderPlan {
  /// The new rank of each old rank (a permutation of 0 .. n-1); the identity when nothing is gained.
  std::vector<std::uint32_t> new_rank;
  bool reordered = false;  ///< Whether new_rank differs from the identity.
  std::string machine;     ///< The machine mapped onto, e.g. `torus:4x4x4, 8 nodes x 2 ranks`.
  std::string note;        ///< Why the order was kept, when it was.
  std::string method;      ///< `geometric` or `scotch:METRIC` (ReorderConfig::method).
  CostRow before;          ///< Costs of the launcher's order (every metric the machine has).
  CostRow after;           ///< Costs of new_rank's order (equal to before when kept).
  WeightMetric metric = WeightMetric::kHops;  ///< The metric mapped with.
  double seconds = 0;                         ///< Time to plan (building, fetching, mapping).
};

/// Plans the reorder of a communicator whose rank r runs on the host `hosts[r]` and communicates
/// as `graph` says (graph.num_tasks == hosts.size()). Ranks of one host (or virtual node) are the
/// cores of one node, in rank order; every node must hold as many ranks. The order is kept (with a
/// note) for one rank, a graph without messages, or when the mapping costs no less under the
/// metric than the launcher's order. Throws InputError for what the configuration or the hosts do
/// not allow (uneven nodes, a node the topology does not name, a metric without its source), and
/// Error for a Scotch failure.
[[nodiscard]] ReorderPlan plan_reorder(const TaskGraph& graph, std::span<const std::string> hosts,
                                       const ReorderConfig& config);

}  // namespace gridlock::mapping
