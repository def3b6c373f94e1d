#include "gridlock/bench/layout.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <utility>

#include <sched.h>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/gpcnet/nics.hpp"
#include "gridlock/nic/nics.hpp"

namespace gridlock::bench {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::Options;

namespace {
constexpr std::size_t kNameLength = 256;
// A binding as CPU_SETSIZE bits, to gather a node's bindings in one fixed-size message.
constexpr std::size_t kCpuWords = CPU_SETSIZE / 64;
using CpuMask = std::array<std::uint64_t, kCpuWords>;

CpuMask mask_of(const std::vector<unsigned>& cpus) {
  CpuMask mask{};
  for (const unsigned cpu : cpus) {
    mask.at(cpu / 64) |= std::uint64_t{1} << (cpu % 64);
  }
  return mask;
}

std::vector<unsigned> cpus_of(const std::uint64_t* words) {
  std::vector<unsigned> cpus;
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (((words[cpu / 64] >> (cpu % 64)) & 1U) != 0) {
      cpus.push_back(cpu);
    }
  }
  return cpus;
}

// --virtual-nics N on a node whose ranks may use `cpus`: NIC k is local to the k-th of N equal
// shares of them (the remainder belongs to none, so that an unbound rank is as near to every
// NIC), or with fewer CPUs than NICs to CPU k mod the count.
std::vector<nic::Nic> virtual_nics(std::size_t count, const std::vector<unsigned>& cpus) {
  std::vector<nic::Nic> nics(count);
  const std::size_t per = cpus.size() / count;
  for (std::size_t k = 0; k < count; ++k) {
    nics[k].name = fmt::format("vnic{}", k);
    if (per > 0) {
      nics[k].local_cpus.assign(cpus.begin() + static_cast<std::ptrdiff_t>(k * per),
                                cpus.begin() + static_cast<std::ptrdiff_t>((k + 1) * per));
    } else if (!cpus.empty()) {
      nics[k].local_cpus = {cpus[k % cpus.size()]};
    }
  }
  return nics;
}

// What a node's leader decided: the NIC and slice position of each local rank, and the node's
// NICs described.
struct NodeNics {
  gpcnet::NicAssignment assignment;
  std::string source;
  std::vector<std::string> names;
};

// The leader's part of assign_nics(): `masks` holds every local rank's binding (empty with
// --nics-per-node). hwloc failing to read the node is not fatal: the node counts as one port,
// and the source says why.
NodeNics decide_node_nics(const gpcnet::Options& options, std::uint32_t ranks,
                          const std::vector<std::uint64_t>& masks) {
  NodeNics out;
  if (options.nics_per_node > 0) {
    out.assignment = gpcnet::split_in_order(ranks, static_cast<std::uint32_t>(options.nics_per_node));
    out.source = "option";
    return out;
  }
  std::vector<std::vector<unsigned>> bindings(ranks);
  std::vector<unsigned> all;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    bindings[r] = cpus_of(masks.data() + std::size_t{r} * kCpuWords);
    all.insert(all.end(), bindings[r].begin(), bindings[r].end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<nic::Nic> nics;
  if (options.virtual_nics > 0) {
    nics = virtual_nics(options.virtual_nics, all);
    out.source = "virtual";
  } else {
    try {
      nics = nic::machine_nics();
      out.source = "hwloc";
    } catch (const Error& e) {
      out.source = fmt::format("one port (hwloc: {})", e.what());
    }
  }
  if (nics.size() < 2) {
    out.assignment = gpcnet::split_in_order(ranks, 1);
    if (out.source == "hwloc") {
      out.source = "one port";
    }
    return out;
  }
  std::vector<std::vector<std::size_t>> nearest(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    nearest[r] = nic::nearest_nics(nics, bindings[r]);
  }
  out.assignment = gpcnet::assign_nearest(nearest, static_cast<std::uint32_t>(nics.size()));
  for (const nic::Nic& n : nics) {
    out.names.push_back(nic::describe(n));
  }
  return out;
}

// `text` from world rank `root` to every rank.
std::string broadcast_text(const std::string& text, int root, MPI_Comm world) {
  std::array<char, kNameLength * 4> buffer{};
  std::strncpy(buffer.data(), text.c_str(), buffer.size() - 1);
  GRIDLOCK_MPI(MPI_Bcast(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, root, world));
  return {buffer.data()};
}

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
  layout.assign_nics(world, options);
  return layout;
}

void NodeLayout::assign_nics(MPI_Comm world, const Options& options) {
  // Every node runs as many ranks (checked above), so this refusal is the same on every rank.
  if (options.nics_per_node > static_cast<std::uint64_t>(ranks_per_node_)) {
    throw CollectiveError(
        fmt::format("--nics-per-node {}: a node runs {} rank{}, fewer than its NICs; give at "
                    "most {}",
                    options.nics_per_node, ranks_per_node_, ranks_per_node_ == 1 ? "" : "s", ranks_per_node_),
        ExitCode::kUsage);
  }
  const bool leader = local_rank_ == 0;
  const auto ranks = static_cast<std::uint32_t>(ranks_per_node_);
  std::vector<std::uint64_t> masks;
  if (options.nics_per_node == 0) {
    // A binding that cannot be read counts as none (every NIC as near): a throw on one rank would
    // leave the others in the gather.
    std::vector<unsigned> bound;
    try {
      bound = nic::bound_cpus();
    } catch (const Error&) {
      bound.clear();
    }
    const CpuMask mine = mask_of(bound);
    masks.resize(leader ? std::size_t{ranks} * kCpuWords : 0);
    GRIDLOCK_MPI(MPI_Gather(mine.data(), static_cast<int>(kCpuWords), MPI_UINT64_T, masks.data(),
                            static_cast<int>(kCpuWords), MPI_UINT64_T, 0, node_comm_.get()));
  }
  NodeNics decided;
  std::vector<int> nic_of(leader ? ranks : 0);
  std::vector<int> position(leader ? ranks : 0);
  // nics, ranks per NIC, uneven
  std::array<int, 3> node{1, ranks_per_node_, 0};
  if (leader) {
    decided = decide_node_nics(options, ranks, masks);
    const gpcnet::NicAssignment& a = decided.assignment;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      nic_of[r] = static_cast<int>(a.nic_of_rank[r]);
      position[a.slice_order[r]] = static_cast<int>(r);
    }
    node = {static_cast<int>(a.ranks_per_nic.size()), static_cast<int>(a.pport()), a.even() ? 0 : 1};
  }
  int my_nic = 0;
  GRIDLOCK_MPI(MPI_Scatter(nic_of.data(), 1, MPI_INT, &my_nic, 1, MPI_INT, 0, node_comm_.get()));
  GRIDLOCK_MPI(MPI_Scatter(position.data(), 1, MPI_INT, &slice_position_, 1, MPI_INT, 0, node_comm_.get()));
  GRIDLOCK_MPI(MPI_Bcast(node.data(), 3, MPI_INT, 0, node_comm_.get()));
  nic_ = static_cast<std::uint32_t>(my_nic);

  // Every node must look alike for the slices to keep to one NIC: as many NICs, as many ranks on
  // each. The first node that does not (or whose ranks are uneven) is named.
  std::array<int, 5> agree{node[0], -node[0], node[1], -node[1], node[2]};
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, agree.data(), 4, MPI_INT, MPI_MIN, world));
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &agree[4], 1, MPI_INT, MPI_MAX, world));
  const bool alike = agree[0] == -agree[1] && agree[2] == -agree[3];
  nics_ = static_cast<std::uint32_t>(-agree[1]);
  ranks_per_nic_ = static_cast<std::uint32_t>(-agree[3]);
  nics_even_ = alike && agree[4] == 0;
  if (!nics_even_ && !options.allow_uneven) {
    int root = leader && node[2] != 0 ? world_rank_ : INT_MAX;
    GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &root, 1, MPI_INT, MPI_MIN, world));
    std::string detail;
    if (root != INT_MAX) {
      detail = broadcast_text(
          leader ? fmt::format("node {}: {}", node_name_, decided.assignment.describe()) : "", root, world);
    } else {
      detail = fmt::format("nodes differ: {} to {} NICs, {} to {} ranks per NIC", agree[0], -agree[1],
                           agree[2], -agree[3]);
    }
    throw CollectiveError(
        fmt::format(
            "{}, not as many ranks on every NIC of every node: GPCNeT's per-port slices would mix ports "
            "and a port with more ranks carries more load; bind the ranks evenly (e.g. mpirun --map-by "
            "ppr:K:numa --bind-to core), give --nics-per-node, or --allow-uneven to measure anyway",
            detail),
        ExitCode::kUsage);
  }
  // Node 0's NICs and how they were found, for the report (world rank 0 leads node 0).
  nic_source_ = broadcast_text(leader ? decided.source : "", 0, world);
  std::string names;
  for (const std::string& n : decided.names) {
    names += names.empty() ? n : "; " + n;
  }
  names = broadcast_text(names, 0, world);
  nic_names_.clear();
  for (std::size_t start = 0; start < names.size();) {
    const std::size_t end = std::min(names.find("; ", start), names.size());
    nic_names_.push_back(names.substr(start, end - start));
    start = end + 2;
  }
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
