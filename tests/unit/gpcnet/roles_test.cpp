#include "gridlock/gpcnet/roles.hpp"

#include <gtest/gtest.h>

#include <set>

#include "gridlock/core/error.hpp"

namespace gridlock::gpcnet {
namespace {

const std::vector<CongestorType> kFour{CongestorType::kAllToAll, CongestorType::kP2pIncast,
                                       CongestorType::kRmaIncast, CongestorType::kRmaBcast};

TEST(RoleLayout, PartitionsNodesIntoGroupsOfDocumentedSizes) {
  const RoleLayout roles(12, 1, 0.2, kFour);
  ASSERT_EQ(roles.group_count(), 5);
  // As GPCNeT: floor(0.8 * 12) = 9 congestor nodes, 3 canary nodes (rounding 2.4 would give 2).
  EXPECT_EQ(roles.group_size(0), 3U);
  EXPECT_EQ(roles.group_size(1), 3U);  // 9 nodes over 4 types: 3, 2, 2, 2
  EXPECT_EQ(roles.group_size(2), 2U);
  EXPECT_EQ(roles.group_size(3), 2U);
  EXPECT_EQ(roles.group_size(4), 2U);
  std::set<std::uint64_t> seen;
  for (int g = 0; g < roles.group_count(); ++g) {
    const auto nodes = roles.nodes_of(g);
    EXPECT_EQ(nodes.size(), roles.group_size(g));
    for (std::uint64_t p = 0; p < nodes.size(); ++p) {
      EXPECT_TRUE(seen.insert(nodes[p]).second) << "node in two groups";
      const NodeRole role = roles.role_of(nodes[p]);
      EXPECT_EQ(role.group, g);
      EXPECT_EQ(role.position, p);
    }
  }
  EXPECT_EQ(seen.size(), 12U);
}

TEST(RoleLayout, SameSeedSameRolesOtherSeedOtherRoles) {
  const RoleLayout a(1000, 42, 0.2, kFour);
  const RoleLayout b(1000, 42, 0.2, kFour);
  const RoleLayout c(1000, 43, 0.2, kFour);
  EXPECT_EQ(a.nodes_of(0), b.nodes_of(0));
  EXPECT_NE(a.nodes_of(0), c.nodes_of(0));
  EXPECT_EQ(a.group_size(0), 200U);
  EXPECT_EQ(RoleLayout(24, 1, 0.2, kFour).group_size(0), 5U);  // GPCNeT: 24 - floor(19.2)
  EXPECT_EQ(RoleLayout(10, 1, 0.2, kFour).group_size(0), 2U);
}

TEST(RoleLayout, TooFewNodesIsAClearError) {
  try {
    const RoleLayout roles(9, 1, 0.2, kFour);
    FAIL() << "accepted 9 nodes for 5 roles";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("too few nodes"), std::string::npos) << text;
    EXPECT_NE(text.find("at least 10 nodes"), std::string::npos) << text;
  }
  EXPECT_THROW(RoleLayout(20, 1, 0.05, kFour), InputError);  // one canary node
  EXPECT_THROW((void)RoleLayout::all_canaries(1, 1), InputError);
}

TEST(RoleLayout, SubsetOfCongestorsAndNetworkMode) {
  const RoleLayout roles(8, 5, 0.25, {CongestorType::kAllToAll, CongestorType::kRmaIncast});
  EXPECT_EQ(roles.group_size(0), 2U);
  EXPECT_EQ(roles.group_size(1), 3U);
  EXPECT_EQ(roles.group_size(2), 3U);
  EXPECT_EQ(roles.group_name(2), "rma-incast");
  const RoleLayout all = RoleLayout::all_canaries(5, 1);
  EXPECT_EQ(all.group_count(), 1);
  EXPECT_EQ(all.group_size(0), 5U);
}

}  // namespace
}  // namespace gridlock::gpcnet
