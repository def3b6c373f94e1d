#include "gridlock/gpcnet/nics.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_of.hpp"
#include "gridlock/core/error.hpp"

namespace gridlock::gpcnet {
namespace {

using Ranks = std::vector<std::uint32_t>;
using unittest::error_of;

TEST(NicAssignment, SplitInOrder) {
  const NicAssignment a = split_in_order(8, 2);
  EXPECT_EQ(a.nic_of_rank, (Ranks{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(a.ranks_per_nic, (Ranks{4, 4}));
  EXPECT_EQ(a.slice_order, (Ranks{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(a.even());
  EXPECT_EQ(a.pport(), 4U);
  EXPECT_EQ(a.describe(), "8 ranks on 2 NICs: 4 + 4");
  const NicAssignment odd = split_in_order(7, 2);
  EXPECT_EQ(odd.ranks_per_nic, (Ranks{4, 3}));
  EXPECT_FALSE(odd.even());
  EXPECT_EQ(odd.pport(), 4U);
  const NicAssignment one = split_in_order(1, 1);
  EXPECT_TRUE(one.even());
  EXPECT_EQ(one.describe(), "1 rank on 1 NIC: 1");
  EXPECT_NE(error_of([] { (void)split_in_order(8, 0); }).find("--nics-per-node 0: give 1 to 64"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)split_in_order(2, 4); }).find("a node has 2 ranks, fewer than its NICs"),
            std::string::npos);
}

// Ranks bound round-robin over two sockets (Open MPI's --map-by numa): each uses its socket's
// NIC, and the slice order puts socket 0's ranks first, so slice i stays on one NIC.
TEST(NicAssignment, NearestNicsOfBoundRanks) {
  const NicAssignment a = assign_nearest({{0}, {1}, {0}, {1}, {0}, {1}}, 2);
  EXPECT_EQ(a.nic_of_rank, (Ranks{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(a.ranks_per_nic, (Ranks{3, 3}));
  EXPECT_EQ(a.slice_order, (Ranks{0, 2, 4, 1, 3, 5}));
  EXPECT_TRUE(a.even());
}

// Unbound ranks (every NIC as near) are spread over the NICs after the bound ones took theirs.
TEST(NicAssignment, UnboundRanksAreSpread) {
  // Rank 2 takes NIC 1; then rank 0 the emptier NIC 0, rank 1 NIC 0 (a tie: the lower), rank 3 NIC 1.
  const NicAssignment a = assign_nearest({{0, 1}, {0, 1}, {1}, {0, 1}}, 2);
  EXPECT_EQ(a.nic_of_rank, (Ranks{0, 0, 1, 1}));
  EXPECT_EQ(a.ranks_per_nic, (Ranks{2, 2}));
  const NicAssignment b = assign_nearest({{0, 1}, {0}, {0, 1}, {0, 1}}, 2);
  EXPECT_EQ(b.nic_of_rank, (Ranks{1, 0, 0, 1}));
  EXPECT_EQ(b.slice_order, (Ranks{1, 2, 0, 3}));
  EXPECT_NE(error_of([] { (void)assign_nearest({{0}, {}}, 2); }).find("local rank 1"), std::string::npos);
  EXPECT_NE(error_of([] { (void)assign_nearest({{2}}, 2); }).find("among the node's 2"), std::string::npos);
}

TEST(NicAssignment, UnevenBindingIsRefusedUnlessAllowed) {
  const NicAssignment a = assign_nearest({{0}, {0}, {0}, {1}}, 2);
  EXPECT_FALSE(a.even());
  const std::string message = error_of([&] { check_even(a, "nid00042", false); });
  EXPECT_NE(message.find("node nid00042: 4 ranks on 2 NICs: 3 + 1, not as many ranks on every NIC"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--allow-uneven"), std::string::npos);
  EXPECT_EQ(error_of([&] { check_even(a, "nid00042", true); }), "");
  // A NIC without ranks is uneven too.
  EXPECT_FALSE(assign_nearest({{0}, {0}}, 2).even());
  EXPECT_EQ(error_of([] { check_even(split_in_order(4, 2), "n", false); }), "");
}

}  // namespace
}  // namespace gridlock::gpcnet
