#include "gridlock/bench/remap.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::bench {
namespace {

// The nodes of a job as its ranks reported them.
struct JobNodes {
  std::vector<std::string> nodes;           // distinct names, in order of first appearance
  std::uint32_t cores_per_node = 0;         // ranks per node
  std::vector<std::uint32_t> core_of_rank;  // node index x cores_per_node + slot on the node
};

// What rank 0 computes from the job's nodes: the placement of the tasks on the cores.
using RootStep = std::function<mapping::Placement(const JobNodes&, RemapReport&)>;

std::string processor_name() {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  GRIDLOCK_MPI(MPI_Get_processor_name(name.data(), &length));
  return {name.data(), static_cast<std::size_t>(std::max(length, 0))};
}

// Every rank's node name on rank 0, in rank order; other ranks get an empty vector. Names have any
// length (explicit virtual names need not fit MPI_MAX_PROCESSOR_NAME), hence the lengths first.
std::vector<std::string> gather_names(MPI_Comm comm, const std::string& mine, int rank, int size) {
  const int length = detail::to_count(mine.size(), "node name bytes");
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  GRIDLOCK_MPI(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  std::vector<int> offsets(lengths.size());
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = detail::to_count(total, "node name bytes of all ranks");
    total += static_cast<std::uint64_t>(lengths[r]);
  }
  std::string all(rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  GRIDLOCK_MPI(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                           MPI_CHAR, 0, comm));
  std::vector<std::string> names;
  names.reserve(lengths.size());
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    names.emplace_back(all, static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r]));
  }
  return names;
}

// Rank 0: distinct nodes in order of first appearance, and each rank's core. Throws InputError for
// an empty name or nodes that run different numbers of ranks.
JobNodes job_nodes(const std::vector<std::string>& names) {
  JobNodes job;
  std::unordered_map<std::string, std::uint32_t> index;
  std::vector<std::uint32_t> count;
  std::vector<std::uint32_t> slot(names.size());
  std::vector<std::uint32_t> node_of_rank(names.size());
  for (std::size_t r = 0; r < names.size(); ++r) {
    if (names[r].empty()) {
      throw InputError(
          fmt::format("remap: rank {} reports an empty node name; give every rank a node name "
                      "(e.g. --node-names) or leave it to MPI_Get_processor_name",
                      r));
    }
    const auto [it, added] = index.try_emplace(names[r], static_cast<std::uint32_t>(job.nodes.size()));
    if (added) {
      job.nodes.push_back(names[r]);
      count.push_back(0);
    }
    node_of_rank[r] = it->second;
    slot[r] = count[it->second]++;
  }
  const auto [fewest, most] = std::minmax_element(count.begin(), count.end());
  if (*fewest != *most) {
    const auto name_of = [&](auto it) { return job.nodes[static_cast<std::size_t>(it - count.begin())]; };
    throw InputError(fmt::format(
        "remap: nodes run different numbers of ranks ({} runs {}, {} runs {}); a placement needs the same "
        "number of cores on every node: launch the same number of ranks per node (e.g. mpirun --map-by "
        "ppr:K:node, srun --ntasks-per-node=K)",
        name_of(fewest), *fewest, name_of(most), *most));
  }
  job.cores_per_node = *most;
  job.core_of_rank.resize(names.size());
  for (std::size_t r = 0; r < names.size(); ++r) {
    job.core_of_rank[r] = node_of_rank[r] * job.cores_per_node + slot[r];
  }
  return job;
}

// Broadcasts a string from rank 0 (length first).
void broadcast_string(std::string& text, MPI_Comm comm) {
  int length = detail::to_count(text.size(), "node names bytes");
  GRIDLOCK_MPI(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  text.resize(static_cast<std::size_t>(length));
  GRIDLOCK_MPI(MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm));
}

// The common part of both remaps: gather, rank 0's step (errors agreed on), broadcast, split.
Remapping remap(MPI_Comm comm, const std::string& node_name, std::string method, const RootStep& root_step) {
  int rank = 0;
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  GRIDLOCK_MPI(MPI_Comm_size(comm, &size));
  RemapReport report;
  report.method = std::move(method);
  report.old_rank = rank;
  const double gather_start = MPI_Wtime();
  const std::vector<std::string> names =
      gather_names(comm, node_name.empty() ? processor_name() : node_name, rank, size);
  report.gather_s = MPI_Wtime() - gather_start;

  // Rank 0's step ends in agreement: an error there is thrown on every rank, never a hang.
  JobNodes job;
  detail::agree_on_root(comm, [&] {
    job = job_nodes(names);
    report.placement = root_step(job, report);
    mapping::check_placement(report.placement, static_cast<std::uint32_t>(size),
                             static_cast<std::uint32_t>(size));
  });

  const double broadcast_start = MPI_Wtime();
  const auto n = static_cast<std::size_t>(size);
  // One message for the numbers: cores per node, the placement, the core of every rank.
  std::vector<std::uint32_t> numbers(1 + 2 * n);
  if (rank == 0) {
    numbers[0] = job.cores_per_node;
    std::copy(report.placement.begin(), report.placement.end(), numbers.begin() + 1);
    std::copy(job.core_of_rank.begin(), job.core_of_rank.end(),
              numbers.begin() + 1 + static_cast<std::ptrdiff_t>(n));
  }
  GRIDLOCK_MPI(MPI_Bcast(numbers.data(), detail::to_count(numbers.size(), "placement entries"), MPI_UINT32_T,
                         0, comm));
  report.cores_per_node = numbers[0];
  report.placement.assign(numbers.begin() + 1, numbers.begin() + 1 + static_cast<std::ptrdiff_t>(n));
  report.core_of_rank.assign(numbers.begin() + 1 + static_cast<std::ptrdiff_t>(n), numbers.end());
  // Node names, NUL-separated (no name contains a NUL: they come from C strings or hostlists).
  std::string joined;
  if (rank == 0) {
    for (const std::string& node : job.nodes) {
      joined += node;
      joined += '\0';
    }
  }
  broadcast_string(joined, comm);
  report.nodes.clear();
  for (std::size_t start = 0; start < joined.size();) {
    const std::size_t end = joined.find('\0', start);
    report.nodes.push_back(joined.substr(start, end - start));
    start = end + 1;
  }

  // This rank's task: the one placed on its core (the placement is a bijection: checked above).
  const std::uint32_t core = report.core_of_rank[static_cast<std::size_t>(rank)];
  const auto task = std::find(report.placement.begin(), report.placement.end(), core);
  report.new_rank = static_cast<int>(task - report.placement.begin());
  MPI_Comm remapped = MPI_COMM_NULL;
  GRIDLOCK_MPI(MPI_Comm_split(comm, 0, report.new_rank, &remapped));
  report.broadcast_s = MPI_Wtime() - broadcast_start;
  return {remapped, std::move(report)};
}

}  // namespace

Remapping::~Remapping() {
  if (comm_ != MPI_COMM_NULL) {
    // A destructor cannot report an error; freeing a valid communicator before MPI_Finalize does
    // not fail.
    MPI_Comm_free(&comm_);
  }
}

Remapping remap_with_scotch(MPI_Comm comm, const mapping::TaskGraph& graph, const RemapOptions& options) {
  const std::string method = fmt::format("scotch:{}", mapping::to_string(options.metric));
  return remap(comm, options.node_name, method, [&](const JobNodes& job, RemapReport& report) {
    const auto ranks = static_cast<std::uint32_t>(job.core_of_rank.size());
    if (graph.num_tasks != ranks) {
      throw InputError(
          fmt::format("remap: the task graph '{}' has {} tasks but the job runs {} ranks; give a "
                      "task graph with one task per rank",
                      graph.spec, graph.num_tasks, ranks));
    }
    const double fetch_start = MPI_Wtime();
    const std::unique_ptr<topo::Topology> topology = topo::make_topology(options.topology);
    mapping::Allocation allocation = mapping::make_allocation(*topology, job.nodes, job.cores_per_node);
    const std::array<mapping::WeightMetric, 1> metrics{options.metric};
    mapping::NodeMetrics node_metrics = mapping::fetch_node_metrics(
        *topology, allocation, options.source, mapping::needs_of(metrics), options.fetch);
    report.source = node_metrics.source;
    report.fetch_s = MPI_Wtime() - fetch_start;
    const double map_start = MPI_Wtime();
    const mapping::Machine machine(*topology, std::move(allocation), std::move(node_metrics));
    mapping::ScotchOptions scotch;
    scotch.seed = options.seed;
    mapping::Placement placement =
        mapping::scotch_placement(graph, machine, options.metric, scotch, &report.scotch);
    report.map_s = MPI_Wtime() - map_start;
    return placement;
  });
}

Remapping remap_with_placement(MPI_Comm comm, const std::string& topology, const std::string& node_name,
                               const PlacementMaker& make_placement) {
  return remap(comm, node_name, "placement", [&](const JobNodes& job, RemapReport& report) {
    const double start = MPI_Wtime();
    mapping::Allocation allocation;
    std::unique_ptr<topo::Topology> resolved;
    if (!topology.empty()) {
      resolved = topo::make_topology(topology);
      allocation = mapping::make_allocation(*resolved, job.nodes, job.cores_per_node);
    } else {
      // Launch files name hosts only: the node ids are the positions.
      allocation.names = job.nodes;
      allocation.nodes.resize(job.nodes.size());
      std::iota(allocation.nodes.begin(), allocation.nodes.end(), topo::NodeId{0});
      allocation.cores_per_node = job.cores_per_node;
    }
    report.fetch_s = MPI_Wtime() - start;
    const double map_start = MPI_Wtime();
    mapping::Placement placement = make_placement(allocation, report);
    report.map_s = MPI_Wtime() - map_start;
    return placement;
  });
}

}  // namespace gridlock::bench
