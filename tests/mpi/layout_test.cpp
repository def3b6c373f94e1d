// Node detection under mpiexec: every rank runs these tests; rank 0 reports.
#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/layout.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::bench {
namespace {

using gpcnet::Options;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

TEST(NodeLayout, RanksPerNodeFormsConsecutiveVirtualNodes) {
  Options options;
  options.ranks_per_node = 2;
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, options);
  EXPECT_EQ(layout.nodes(), static_cast<std::uint64_t>(world_size() / 2));
  EXPECT_EQ(layout.ranks_per_node(), 2);
  EXPECT_EQ(layout.node_id(), static_cast<std::uint64_t>(world_rank() / 2));
  EXPECT_EQ(layout.local_rank(), world_rank() % 2);
  EXPECT_TRUE(layout.virtual_nodes());
  EXPECT_NE(layout.node_name().find('#'), std::string::npos);
}

TEST(NodeLayout, VirtualNodesGivesTheRequestedCount) {
  Options options;
  options.virtual_nodes = static_cast<std::uint64_t>(world_size());
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, options);
  EXPECT_EQ(layout.nodes(), static_cast<std::uint64_t>(world_size()));
  EXPECT_EQ(layout.ranks_per_node(), 1);
  EXPECT_EQ(layout.node_id(), static_cast<std::uint64_t>(world_rank()));
}

TEST(NodeLayout, WholeHostIsOneNodeByDefault) {
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, Options{});
  EXPECT_EQ(layout.nodes(), 1U);
  EXPECT_EQ(layout.ranks_per_node(), world_size());
  EXPECT_FALSE(layout.virtual_nodes());
}

TEST(NodeLayout, NodeNamesGatherOnRankZeroOnly) {
  Options options;
  options.ranks_per_node = 2;
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, options);
  const auto names = layout.gather_node_names();
  if (world_rank() == 0) {
    ASSERT_EQ(names.size(), layout.nodes());
    EXPECT_NE(names[0], names[1]);
  } else {
    EXPECT_TRUE(names.empty());
  }
}

TEST(NodeLayout, IndivisibleRequestsFailOnEveryRankAlike) {
  Options options;
  options.ranks_per_node = 3;  // 8 ranks on one host cannot form nodes of 3
  EXPECT_THROW((void)NodeLayout::detect(MPI_COMM_WORLD, options), CollectiveError);
  options.ranks_per_node = 0;
  options.virtual_nodes = 3;
  EXPECT_THROW((void)NodeLayout::detect(MPI_COMM_WORLD, options), CollectiveError);
}

// --nics-per-node: the local ranks split in order; slice positions follow local ranks.
TEST(NodeLayout, NicsPerNodeSplitsTheLocalRanksInOrder) {
  Options options;
  options.ranks_per_node = 4;
  options.nics_per_node = 2;
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, options);
  EXPECT_EQ(layout.nics(), 2U);
  EXPECT_EQ(layout.ranks_per_nic(), 2U);
  EXPECT_EQ(layout.nic(), static_cast<std::uint32_t>(layout.local_rank() / 2));
  EXPECT_EQ(layout.slice_position(), layout.local_rank());
  EXPECT_EQ(layout.nic_source(), "option");
  EXPECT_TRUE(layout.nics_even());
}

// --virtual-nics: each rank on the virtual NIC nearest to its binding (whatever the launcher
// bound); the slice positions of a node are a permutation in which a NIC's ranks are together.
TEST(NodeLayout, VirtualNicsKeepEachSliceOnOneNic) {
  Options options;
  options.ranks_per_node = 4;
  options.virtual_nics = 2;
  options.allow_uneven = true;  // the launcher's binding decides; the invariants hold either way
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, options);
  EXPECT_EQ(layout.nics(), 2U);
  EXPECT_EQ(layout.nic_source(), "virtual");
  EXPECT_EQ(layout.nic_names().size(), 2U);
  // (slice position, NIC) of every rank of the node.
  std::vector<std::array<int, 2>> pairs(4);
  const std::array<int, 2> mine{layout.slice_position(), static_cast<int>(layout.nic())};
  MPI_Allgather(mine.data(), 2, MPI_INT, pairs.data(), 2, MPI_INT, layout.node_comm());
  std::vector<int> nic_at(4, -1);
  for (const auto& [position, nic] : pairs) {
    ASSERT_GE(position, 0);
    ASSERT_LT(position, 4);
    const auto at = static_cast<std::size_t>(position);
    EXPECT_EQ(nic_at[at], -1) << "two ranks at slice position " << position;
    nic_at[at] = nic;
  }
  EXPECT_TRUE(std::is_sorted(nic_at.begin(), nic_at.end()));
  if (layout.nics_even()) {
    EXPECT_EQ(layout.ranks_per_nic(), 2U);
    EXPECT_EQ(static_cast<std::uint32_t>(layout.slice_position()) / 2, layout.nic());
  }
}

TEST(NodeLayout, UnevenNicsFailOnEveryRankAlikeUnlessAllowed) {
  Options options;
  options.ranks_per_node = 4;
  options.nics_per_node = 3;  // 2 + 1 + 1
  try {
    (void)NodeLayout::detect(MPI_COMM_WORLD, options);
    ADD_FAILURE() << "accepted";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find(": 4 ranks on 3 NICs: 2 + 1 + 1, not as many ranks on every NIC"),
              std::string::npos)
        << e.what();
  }
  options.allow_uneven = true;
  const NodeLayout layout = NodeLayout::detect(MPI_COMM_WORLD, options);
  EXPECT_FALSE(layout.nics_even());
  EXPECT_EQ(layout.ranks_per_nic(), 2U);
  options.nics_per_node = 5;
  EXPECT_THROW((void)NodeLayout::detect(MPI_COMM_WORLD, options), CollectiveError);
}

}  // namespace
}  // namespace gridlock::bench

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    // Failures on any rank still count through the reduction below.
    delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
