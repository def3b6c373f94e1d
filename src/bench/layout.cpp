#include "gridlock/bench/layout.hpp"

#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"

namespace gridlock::bench {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::Options;

namespace {
constexpr std::size_t kNameLength = 256;
}  // namespace

NodeLayout NodeLayout::detect(MPI_Comm world, const Options& options) {
  NodeLayout layout;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &layout.world_rank_));
  GRIDLOCK_MPI(MPI_Comm_size(world, &layout.world_size_));

  GRIDLOCK_MPI(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, layout.world_rank_, MPI_INFO_NULL,
                                   layout.host_comm_.reset_and_get_address()));
  int host_rank = 0;
  int host_size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(layout.host_comm_.get(), &host_rank));
  GRIDLOCK_MPI(MPI_Comm_size(layout.host_comm_.get(), &host_size));

  // Ranks per (virtual) node requested: with --virtual-nodes it follows from the total.
  int group = host_size;
  if (options.virtual_nodes > 0) {
    if (static_cast<std::uint64_t>(layout.world_size_) % options.virtual_nodes != 0) {
      throw CollectiveError(fmt::format("--virtual-nodes {} does not divide the {} ranks; choose a divisor "
                                        "of the rank count",
                                        options.virtual_nodes, layout.world_size_),
                            ExitCode::kUsage);
    }
    group = static_cast<int>(static_cast<std::uint64_t>(layout.world_size_) / options.virtual_nodes);
  } else if (options.ranks_per_node > 0) {
    // Larger than any host: rejected below without overflowing the int.
    group = options.ranks_per_node > static_cast<std::uint64_t>(host_size)
                ? 0
                : static_cast<int>(options.ranks_per_node);
  }
  // Every rank must agree on whether the split is valid, so the check is reduced.
  int bad_split = (group <= 0 || host_size % group != 0) ? 1 : 0;
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &bad_split, 1, MPI_INT, MPI_MAX, world));
  if (bad_split != 0 || group <= 0) {
    throw CollectiveError(
        fmt::format("cannot form virtual nodes of {} ranks: some host runs a number of "
                    "ranks that is not a multiple of it; use --ranks-per-node with a "
                    "divisor of the ranks on each host",
                    options.ranks_per_node > 0 ? options.ranks_per_node : static_cast<std::uint64_t>(group)),
        ExitCode::kUsage);
  }
  layout.virtual_ = group != host_size;
  const int virtual_index = host_rank / group;
  GRIDLOCK_MPI(MPI_Comm_split(layout.host_comm_.get(), virtual_index, host_rank,
                              layout.node_comm_.reset_and_get_address()));
  GRIDLOCK_MPI(MPI_Comm_rank(layout.node_comm_.get(), &layout.local_rank_));
  GRIDLOCK_MPI(MPI_Comm_size(layout.node_comm_.get(), &layout.ranks_per_node_));

  std::array<int, 2> sizes{layout.ranks_per_node_, -layout.ranks_per_node_};
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, sizes.data(), 2, MPI_INT, MPI_MIN, world));
  if (sizes[0] != -sizes[1]) {
    throw CollectiveError(
        fmt::format("nodes run different numbers of ranks (between {} and {}); gridlock-bench needs the same "
                    "number of ranks on every node. Launch with e.g. `mpiexec --map-by ppr:K:node` or use "
                    "--ranks-per-node",
                    sizes[0], -sizes[1]),
        ExitCode::kUsage);
  }

  const bool leader = layout.local_rank_ == 0;
  GRIDLOCK_MPI(MPI_Comm_split(world, leader ? 0 : MPI_UNDEFINED, layout.world_rank_,
                              layout.leader_comm_.reset_and_get_address()));
  std::array<std::uint64_t, 2> ids{0, 0};
  if (leader) {
    int id = 0;
    int count = 0;
    GRIDLOCK_MPI(MPI_Comm_rank(layout.leader_comm_.get(), &id));
    GRIDLOCK_MPI(MPI_Comm_size(layout.leader_comm_.get(), &count));
    ids = {static_cast<std::uint64_t>(id), static_cast<std::uint64_t>(count)};
  }
  GRIDLOCK_MPI(MPI_Bcast(ids.data(), 2, MPI_UINT64_T, 0, layout.node_comm_.get()));
  layout.node_id_ = ids[0];
  layout.nodes_ = ids[1];
  // The MPI processor name, not gethostname(): under SimGrid SMPI every rank runs in one real
  // process, and only MPI_Get_processor_name gives the simulated host (docs/smpi.md).
  std::array<char, MPI_MAX_PROCESSOR_NAME> processor{};
  int processor_length = 0;
  GRIDLOCK_MPI(MPI_Get_processor_name(processor.data(), &processor_length));
  layout.node_name_.assign(processor.data(),
                           strnlen(processor.data(), static_cast<std::size_t>(processor_length)));
  if (layout.virtual_) {
    layout.node_name_ += fmt::format("#{}", virtual_index);
  }
  return layout;
}

std::vector<std::string> NodeLayout::gather_node_names() const {
  std::vector<std::string> names;
  // Only leaders take part; world rank 0 is always the leader of node 0.
  if (leader_comm_.get() != MPI_COMM_NULL) {
    std::array<char, kNameLength> mine{};
    std::strncpy(mine.data(), node_name_.c_str(), kNameLength - 1);
    std::vector<char> all(world_rank_ == 0 ? kNameLength * nodes_ : 0);
    GRIDLOCK_MPI(MPI_Gather(mine.data(), static_cast<int>(kNameLength), MPI_CHAR, all.data(),
                            static_cast<int>(kNameLength), MPI_CHAR, 0, leader_comm_.get()));
    if (world_rank_ == 0) {
      for (std::uint64_t i = 0; i < nodes_; ++i) {
        names.emplace_back(all.data() + i * kNameLength);
      }
    }
  }
  return names;
}

}  // namespace gridlock::bench
