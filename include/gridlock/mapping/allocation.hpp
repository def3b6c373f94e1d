#pragma once
/// @file
/// The allocation: the nodes a job was given (in order) and the cores per node, resolved against a
/// topology. Cores are numbered node by node: core c is slot c % cores_per_node of node
/// c / cores_per_node (in the order the nodes were given).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridlock/topo/topology.hpp"

namespace gridlock::mapping {

/// Most nodes an allocation may list.
inline constexpr std::uint32_t kMaxAllocationNodes = 1U << 20;
/// Most cores per node.
inline constexpr std::uint32_t kMaxCoresPerNode = 4096;

/// Expands a Slurm hostlist: comma-separated names, each with optional bracketed ranges keeping
/// zero padding, e.g. `nid[00017-00019,00024],login1` -> nid00017 nid00018 nid00019 nid00024
/// login1. Several bracket groups in one name multiply out (`r[1-2]n[1-2]`). Throws InputError
/// for unbalanced brackets, empty names or ranges, a descending range, and for more than
/// kMaxAllocationNodes names.
[[nodiscard]] std::vector<std::string> expand_hostlist(std::string_view text);

/// A node list argument: a hostlist (see expand_hostlist), or `@FILE` with one hostlist per line
/// (`#` comments and blank lines ignored; the format of `scontrol show hostnames` and of
/// `$SLURM_JOB_NODELIST` alike).
[[nodiscard]] std::vector<std::string> read_node_list(std::string_view argument);

/// The file a node list argument reads (`@FILE`), or an empty path.
[[nodiscard]] std::filesystem::path node_list_input(std::string_view argument);

/// Allocated nodes and cores.
struct Allocation {
  std::vector<topo::NodeId> nodes;   ///< Topology node of each allocated node, in the given order.
  std::vector<std::string> names;    ///< Their names, as given.
  std::uint32_t cores_per_node = 1;  ///< Cores (slots) per node.

  /// Number of allocated nodes.
  [[nodiscard]] std::uint32_t num_nodes() const noexcept { return static_cast<std::uint32_t>(nodes.size()); }
  /// Number of cores: nodes x cores per node.
  [[nodiscard]] std::uint32_t num_cores() const noexcept { return num_nodes() * cores_per_node; }
  /// Index (in `nodes`) of the node holding core `core`.
  [[nodiscard]] std::uint32_t node_of_core(std::uint32_t core) const noexcept {
    return core / cores_per_node;
  }
  /// Slot of core `core` on its node.
  [[nodiscard]] std::uint32_t slot_of_core(std::uint32_t core) const noexcept {
    return core % cores_per_node;
  }
};

/// Resolves node names against the topology. Throws InputError naming every unknown node (and the
/// topology's naming, e.g. `nid00000..nid00063`), any duplicate, an empty list, cores_per_node 0 or
/// above kMaxCoresPerNode, or more than 2^31 cores.
[[nodiscard]] Allocation make_allocation(const topo::Topology& topology,
                                         const std::vector<std::string>& names, std::uint32_t cores_per_node);

/// How a job allocation takes nodes of a machine when no node list is given (`--allocation`).
enum class AllocationPolicy : std::uint8_t {
  kCompact,  ///< The first N nodes in node order: one chassis, group or leaf after the other.
  kSpread,   ///< N nodes evenly spaced over the machine (node floor(i * M / N) for i < N).
  kRandom,   ///< A seeded sample of N distinct nodes (a fragmented allocation), in node order.
};

/// `compact`, `spread` or `random`.
[[nodiscard]] const char* to_string(AllocationPolicy policy) noexcept;
/// Parses an --allocation value; throws InputError naming `what` and the choices otherwise.
[[nodiscard]] AllocationPolicy parse_allocation_policy(std::string_view text,
                                                       std::string_view what = "--allocation");

/// `count` distinct nodes of a machine made of the nodes 0 .. machine_nodes - 1, taken by
/// `policy` (random: with `seed`), in ascending node order. Throws InputError naming `what` when
/// `count` is 0 or larger than `machine_nodes`.
[[nodiscard]] std::vector<topo::NodeId> allocate_nodes(std::uint32_t machine_nodes, std::uint32_t count,
                                                       AllocationPolicy policy, std::uint64_t seed,
                                                       std::string_view what = "--nodes");

/// The nodes of a job on a machine and how they were taken.
struct JobNodes {
  std::vector<topo::NodeId> nodes;  ///< In ascending node order.
  std::string allocation;           ///< `compact`, `spread` or `random, seed S`.
};

/// allocate_nodes() for a machine of `machine_nodes` nodes (a topology's count, which may pass
/// 32 bits): `count` nodes (0: every node). Throws InputError naming --nodes when the machine has
/// more nodes than --nodes can take, or as allocate_nodes() does.
[[nodiscard]] JobNodes allocate_job_nodes(std::uint64_t machine_nodes, std::uint32_t count,
                                          AllocationPolicy policy, std::uint64_t seed);

/// Parses node pairs `A:B,C:D` (each name non-empty, one ':' per pair), e.g. the congestors of
/// `gridlock predict mapping`. Throws InputError naming `what` and the form expected.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> parse_node_pairs(std::string_view text,
                                                                                std::string_view what);

}  // namespace gridlock::mapping
