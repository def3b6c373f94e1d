#include "gridlock/gpcnet/nics.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridlock/core/error.hpp"

namespace gridlock::gpcnet {
namespace {

// The counts and the slice order of a complete nic_of_rank.
NicAssignment finish(std::vector<std::uint32_t> nic_of_rank, std::uint32_t nics) {
  NicAssignment a;
  a.nic_of_rank = std::move(nic_of_rank);
  a.ranks_per_nic.assign(nics, 0);
  for (const std::uint32_t nic : a.nic_of_rank) {
    ++a.ranks_per_nic[nic];
  }
  a.slice_order.resize(a.nic_of_rank.size());
  std::iota(a.slice_order.begin(), a.slice_order.end(), 0U);
  std::stable_sort(a.slice_order.begin(), a.slice_order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return a.nic_of_rank[x] < a.nic_of_rank[y]; });
  return a;
}

}  // namespace

bool NicAssignment::even() const noexcept {
  return !ranks_per_nic.empty() && ranks_per_nic.front() > 0 &&
         std::all_of(ranks_per_nic.begin(), ranks_per_nic.end(),
                     [&](std::uint32_t n) { return n == ranks_per_nic.front(); });
}

std::uint32_t NicAssignment::pport() const noexcept {
  return ranks_per_nic.empty() ? 0 : *std::max_element(ranks_per_nic.begin(), ranks_per_nic.end());
}

std::string NicAssignment::describe() const {
  return fmt::format("{} rank{} on {} NIC{}: {}", nic_of_rank.size(), nic_of_rank.size() == 1 ? "" : "s",
                     ranks_per_nic.size(), ranks_per_nic.size() == 1 ? "" : "s",
                     fmt::join(ranks_per_nic, " + "));
}

NicAssignment split_in_order(std::uint32_t ranks, std::uint32_t nics) {
  if (nics == 0 || nics > kMaxNicsPerNode) {
    throw InputError(fmt::format("--nics-per-node {}: give 1 to {}", nics, kMaxNicsPerNode));
  }
  if (nics > ranks) {
    throw InputError(
        fmt::format("--nics-per-node {}: a node has {} rank{}, fewer than its NICs; give at most {}", nics,
                    ranks, ranks == 1 ? "" : "s", ranks));
  }
  std::vector<std::uint32_t> nic_of_rank(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    nic_of_rank[r] = static_cast<std::uint32_t>(std::uint64_t{r} * nics / ranks);
  }
  return finish(std::move(nic_of_rank), nics);
}

NicAssignment assign_nearest(const std::vector<std::vector<std::size_t>>& nearest, std::uint32_t nics) {
  if (nics == 0 || nics > kMaxNicsPerNode) {
    throw InputError(fmt::format("{} NICs on a node: gridlock-bench handles 1 to {}", nics, kMaxNicsPerNode));
  }
  std::vector<std::uint32_t> nic_of_rank(nearest.size(), 0);
  std::vector<std::uint32_t> load(nics, 0);
  for (std::size_t r = 0; r < nearest.size(); ++r) {
    if (nearest[r].empty() ||
        std::any_of(nearest[r].begin(), nearest[r].end(), [&](std::size_t nic) { return nic >= nics; })) {
      throw InputError(fmt::format("local rank {}: its nearest NICs must be among the node's {}", r, nics));
    }
    if (nearest[r].size() == 1) {
      nic_of_rank[r] = static_cast<std::uint32_t>(nearest[r].front());
      ++load[nic_of_rank[r]];
    }
  }
  for (std::size_t r = 0; r < nearest.size(); ++r) {
    if (nearest[r].size() > 1) {
      const auto best = *std::min_element(
          nearest[r].begin(), nearest[r].end(),
          [&](std::size_t x, std::size_t y) { return load[x] != load[y] ? load[x] < load[y] : x < y; });
      nic_of_rank[r] = static_cast<std::uint32_t>(best);
      ++load[best];
    }
  }
  return finish(std::move(nic_of_rank), nics);
}

void check_even(const NicAssignment& assignment, std::string_view node, bool allow_uneven) {
  if (assignment.even() || allow_uneven) {
    return;
  }
  throw InputError(fmt::format(
      "node {}: {}, not as many ranks on every NIC: GPCNeT's per-port slices would mix ports and a port "
      "with more ranks carries more load; bind the ranks evenly (e.g. mpirun --map-by ppr:K:numa), or give "
      "--allow-uneven to measure it anyway",
      node, assignment.describe()));
}

}  // namespace gridlock::gpcnet
