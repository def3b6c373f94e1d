#pragma once
/// @file
/// How the ranks of one node share its NICs (issue 41; GPCNeT's PPort is processes per port): each
/// local rank's NIC, given in order (`--nics-per-node N`) or from the NICs nearest to each rank's
/// binding (gridlock::nic), and the order of the local ranks that makes GPCNeT's i-th slice leave
/// every node through one port.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gridlock::gpcnet {

/// The NIC of every local rank of one node.
struct NicAssignment {
  std::vector<std::uint32_t> nic_of_rank;    ///< NIC of each local rank (0-based), by local rank.
  std::vector<std::uint32_t> ranks_per_nic;  ///< Local ranks using each NIC.
  /// The local ranks by NIC, then by local rank. With as many ranks on every NIC (PPort), the i-th
  /// of them is the (i mod PPort)-th rank of NIC i / PPort, so that slice i (the i-th rank of every
  /// node) leaves each node through one NIC.
  std::vector<std::uint32_t> slice_order;

  /// True when every NIC has as many ranks (and at least one).
  [[nodiscard]] bool even() const noexcept;
  /// Ranks per NIC: GPCNeT's PPort (the largest count when they differ).
  [[nodiscard]] std::uint32_t pport() const noexcept;
  /// `8 ranks on 2 NICs: 4 + 4`.
  [[nodiscard]] std::string describe() const;
};

/// Most NICs per node (`--nics-per-node`): today's nodes have 1 to 8.
inline constexpr std::uint32_t kMaxNicsPerNode = 64;

/// `--nics-per-node N`: `ranks` local ranks split in order, rank r on NIC r·N / ranks (the first
/// ranks / N on NIC 0 when N divides ranks). Throws InputError for N of 0 or above kMaxNicsPerNode,
/// or more NICs than ranks.
[[nodiscard]] NicAssignment split_in_order(std::uint32_t ranks, std::uint32_t nics);

/// From each local rank's nearest NICs (`nearest[r]`, indexes below `nics`, as
/// nic::nearest_nics() gives them): a rank with one nearest NIC uses it; ranks with several take,
/// in local-rank order after those, the one of theirs with the fewest ranks so far (ties: the
/// lowest index), as an unbound rank would be spread. Throws InputError for an empty or
/// out-of-range list.
[[nodiscard]] NicAssignment assign_nearest(const std::vector<std::vector<std::size_t>>& nearest,
                                           std::uint32_t nics);

/// Throws InputError naming `node` and the counts unless `assignment` is even or `allow_uneven`:
/// GPCNeT's per-port slices then mix ports, and a port with more ranks measures more load.
void check_even(const NicAssignment& assignment, std::string_view node, bool allow_uneven);

}  // namespace gridlock::gpcnet
