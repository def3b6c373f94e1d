#pragma once
/// @file
/// Node detection and per-node communicators, in O(1) memory per rank.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gridlock/bench/comm.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::bench {

/// Where this rank lives: its node, its rank on the node, and how many nodes there are.
///
/// Nodes are found with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); with --ranks-per-node K (or
/// --virtual-nodes N, K = ranks / N) consecutive groups of K ranks of one host form separate
/// virtual nodes. Node ids are the ranks of a communicator of node leaders (local rank 0), so
/// they follow world rank order. No host names are exchanged and nothing is O(ranks) in memory.
class NodeLayout {
 public:
  /// Detects the layout collectively over `world`. Throws CollectiveError (identically on every
  /// rank) when nodes run different numbers of ranks or the virtual-node request does not divide
  /// the ranks, and MpiError when an MPI call fails.
  static NodeLayout detect(MPI_Comm world, const gpcnet::Options& options);

  NodeLayout(const NodeLayout&) = delete;             ///< Owns communicators: not copyable.
  NodeLayout& operator=(const NodeLayout&) = delete;  ///< Owns communicators: not copyable.
  NodeLayout(NodeLayout&& other) noexcept = default;  ///< Moves the communicators.
  NodeLayout& operator=(NodeLayout&&) = delete;       ///< Not needed.
  ~NodeLayout() = default;                            ///< Frees the communicators (Comm).

  /// This rank in `world`.
  [[nodiscard]] int world_rank() const noexcept { return world_rank_; }
  /// Number of ranks in `world`.
  [[nodiscard]] int world_size() const noexcept { return world_size_; }
  /// This rank's node id, 0 <= node_id < nodes().
  [[nodiscard]] std::uint64_t node_id() const noexcept { return node_id_; }
  /// Number of (virtual) nodes.
  [[nodiscard]] std::uint64_t nodes() const noexcept { return nodes_; }
  /// This rank's index on its node, 0 <= local_rank < ranks_per_node().
  [[nodiscard]] int local_rank() const noexcept { return local_rank_; }
  /// Ranks on every node (the same on all nodes).
  [[nodiscard]] int ranks_per_node() const noexcept { return ranks_per_node_; }
  /// True when nodes were formed with --virtual-nodes / --ranks-per-node.
  [[nodiscard]] bool virtual_nodes() const noexcept { return virtual_; }
  /// Name of this rank's node: the MPI processor name (the host name; the simulated host under
  /// SMPI), plus `#k` for the k-th virtual node on the host.
  [[nodiscard]] const std::string& node_name() const noexcept { return node_name_; }
  /// NICs of every node (1 when a node has one port, or hwloc found fewer than two).
  [[nodiscard]] std::uint32_t nics() const noexcept { return nics_; }
  /// The NIC this rank uses, 0 <= nic < nics().
  [[nodiscard]] std::uint32_t nic() const noexcept { return nic_; }
  /// Ranks per NIC: GPCNeT's PPort (the largest count where a node's NICs differ).
  [[nodiscard]] std::uint32_t ranks_per_nic() const noexcept { return ranks_per_nic_; }
  /// This rank's place in its node's slice order (by NIC, then local rank): slice i of a role is
  /// the ranks at place i of its nodes, so that it leaves every node through one NIC.
  [[nodiscard]] int slice_position() const noexcept { return slice_position_; }
  /// How the NICs were found: `option` (--nics-per-node), `virtual` (--virtual-nics), `hwloc`, or
  /// `one port` (hwloc found fewer than two).
  [[nodiscard]] const std::string& nic_source() const noexcept { return nic_source_; }
  /// Node 0's NICs, described (gathered to every rank; empty for option and one port).
  [[nodiscard]] const std::vector<std::string>& nic_names() const noexcept { return nic_names_; }
  /// False when a node's ranks are not spread evenly over its NICs (run with --allow-uneven).
  [[nodiscard]] bool nics_even() const noexcept { return nics_even_; }

  /// Communicator of the ranks on this node.
  [[nodiscard]] MPI_Comm node_comm() const noexcept { return node_comm_.get(); }
  /// Communicator of the ranks on this physical host (MPI_COMM_TYPE_SHARED): the same as the
  /// node's without virtual nodes; with them, every virtual node of the host is in it.
  [[nodiscard]] MPI_Comm host_comm() const noexcept { return host_comm_.get(); }

  /// Gathers every node's name to world rank 0 (index = node id). O(nodes) memory on rank 0
  /// only, for reports; other ranks get an empty vector. Collective over the world the layout
  /// was detected on.
  [[nodiscard]] std::vector<std::string> gather_node_names() const;

 private:
  NodeLayout() = default;
  /// Gives every rank its NIC and slice position (collective over the world; after the nodes).
  void assign_nics(MPI_Comm world, const gpcnet::Options& options);
  int world_rank_ = 0;
  int world_size_ = 1;
  std::uint64_t node_id_ = 0;
  std::uint64_t nodes_ = 1;
  int local_rank_ = 0;
  int ranks_per_node_ = 1;
  bool virtual_ = false;
  std::uint32_t nics_ = 1;
  std::uint32_t nic_ = 0;
  std::uint32_t ranks_per_nic_ = 1;
  int slice_position_ = 0;
  bool nics_even_ = true;
  std::string nic_source_ = "one port";
  std::vector<std::string> nic_names_;
  std::string node_name_;
  Comm host_comm_;
  Comm node_comm_;
  Comm leader_comm_;
};

}  // namespace gridlock::bench
