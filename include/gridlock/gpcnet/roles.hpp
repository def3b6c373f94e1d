#pragma once
/// @file
/// Assignment of nodes to canary and congestor roles (paper §3.3), without MPI.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {

/// The role of one node and its position within the role's group.
struct NodeRole {
  int group = 0;               ///< 0 = canary; 1 + i = the i-th configured congestor type.
  std::uint64_t position = 0;  ///< Position of the node in its group (its rank in slice comms).
};

/// Splits `nodes` nodes into a canary group and one group per congestor type.
///
/// Rule (documented in docs/gridlock-bench.md): the node list is shuffled with a seeded random
/// permutation; the first nodes - floor((1 - fraction) x nodes) shuffled nodes are canaries (GPCNeT's rule);
/// the remaining R nodes are split evenly over the T congestor types in the order given, the first R mod T
/// types taking one node more. Every group must have at least 2 nodes, otherwise the
/// constructor throws InputError saying how many nodes are needed. Each node's role is found
/// in O(1) time and memory (no node list is materialised).
class RoleLayout {
 public:
  /// Load-mode layout. Throws InputError if a group would have fewer than 2 nodes.
  RoleLayout(std::uint64_t nodes, std::uint64_t seed, double canary_fraction,
             std::vector<CongestorType> congestors);

  /// Network-mode layout: every node is a canary (in shuffled order). Needs >= 2 nodes.
  [[nodiscard]] static RoleLayout all_canaries(std::uint64_t nodes, std::uint64_t seed);

  /// Congest-mode layout (gridlock-bench congest): no canary node (group 0 is empty), the nodes
  /// split among `congestors` as evenly as they go. Throws InputError if a type would get fewer
  /// than 2 nodes.
  [[nodiscard]] static RoleLayout all_congestors(std::uint64_t nodes, std::uint64_t seed,
                                                 std::vector<CongestorType> congestors);

  /// Role of node `node_id` (0 <= node_id < nodes()).
  [[nodiscard]] NodeRole role_of(std::uint64_t node_id) const;
  /// Node ids of group `group` in position order: O(nodes) time and memory, for reports only.
  [[nodiscard]] std::vector<std::uint64_t> nodes_of(int group) const;

  /// Number of nodes.
  [[nodiscard]] std::uint64_t nodes() const noexcept { return nodes_; }
  /// Number of groups: 1 + number of congestor types.
  [[nodiscard]] int group_count() const noexcept { return static_cast<int>(sizes_.size()); }
  /// Number of nodes in a group.
  [[nodiscard]] std::uint64_t group_size(int group) const {
    return sizes_.at(static_cast<std::size_t>(group));
  }
  /// Congestor types, in group order (group 1 + i has type congestors()[i]).
  [[nodiscard]] const std::vector<CongestorType>& congestors() const noexcept { return congestors_; }
  /// Group name: "canary" or the congestor key.
  [[nodiscard]] std::string group_name(int group) const;

 private:
  RoleLayout(std::uint64_t nodes, std::uint64_t seed, std::vector<std::uint64_t> sizes,
             std::vector<CongestorType> congestors);

  std::uint64_t nodes_;
  std::uint64_t seed_;
  std::vector<std::uint64_t> sizes_;
  std::vector<std::uint64_t> starts_;
  std::vector<CongestorType> congestors_;
};

/// Seed stream identifiers so node shuffles and rings never share random numbers.
inline constexpr std::uint64_t kRoleStream = 0x726f6c6573ULL;  // "roles"
/// Seed stream of the random rings; ring n of every pass uses derive_seed(derive_seed(seed, kRingStream), n).
inline constexpr std::uint64_t kRingStream = 0x72696e6773ULL;  // "rings"

}  // namespace gridlock::gpcnet
