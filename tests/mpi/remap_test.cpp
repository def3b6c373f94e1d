// In-application remapping under mpiexec: every rank runs these tests; rank 0 reports. Ranks form
// virtual nodes of two ranks each (names given explicitly, in reverse topology order so that the
// allocation's order is not the topology's), on a small torus.
#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/remap.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/machine.hpp"
#include "gridlock/mapping/mapping.hpp"
#include "gridlock/mapping/task_graph.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::bench {
namespace {

constexpr const char* kTopology = "torus:2x2x2";
constexpr int kRanksPerNode = 2;

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

int nodes() { return world_size() / kRanksPerNode; }

// Virtual node of rank r: nodes in reverse order of the topology's names.
std::string node_of(int rank) { return fmt::format("nid{:05d}", nodes() - 1 - rank / kRanksPerNode); }

mapping::TaskGraph stencil() {
  std::array<int, 3> dims{0, 0, 0};
  MPI_Dims_create(world_size(), 3, dims.data());
  return mapping::stencil3d({static_cast<std::uint32_t>(dims[0]), static_cast<std::uint32_t>(dims[1]),
                             static_cast<std::uint32_t>(dims[2])},
                            mapping::kDefaultStencilBytes, false);
}

// The task this rank runs under `placement`, computed serially: its core is its node's position
// in order of first appearance times the ranks per node plus its slot on the node.
int expected_task(const mapping::Placement& placement) {
  const int rank = world_rank();
  const int node_position = rank / kRanksPerNode;  // nodes first appear in rank order
  const auto core = static_cast<std::uint32_t>(node_position * kRanksPerNode + rank % kRanksPerNode);
  return static_cast<int>(std::find(placement.begin(), placement.end(), core) - placement.begin());
}

// Every rank's value of `value`, on every rank.
std::vector<int> all_of(int value) {
  std::vector<int> values(static_cast<std::size_t>(world_size()));
  MPI_Allgather(&value, 1, MPI_INT, values.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return values;
}

// The message of the CollectiveError `run` throws, after checking that every rank threw one with
// the same message and exit code.
template <class F>
std::string collective_error(F run, ExitCode code) {
  std::string message;
  try {
    run();
    ADD_FAILURE() << "rank " << world_rank() << ": no error";
  } catch (const CollectiveError& e) {
    message = e.what();
    EXPECT_EQ(e.exit_code(), code) << message;
  }
  // Same message on every rank: compare lengths and a checksum of the bytes.
  int sum = 0;
  for (const char c : message) {
    sum = (sum * 31 + static_cast<unsigned char>(c)) % 1'000'003;
  }
  for (const int v : all_of(static_cast<int>(message.size()))) {
    EXPECT_EQ(v, static_cast<int>(message.size()));
  }
  for (const int v : all_of(sum)) {
    EXPECT_EQ(v, sum);
  }
  return message;
}

TEST(Remap, ScotchPlacementIsThePermutationComputedSerially) {
  RemapOptions options;
  options.topology = kTopology;
  options.source = "sim:none";
  options.metric = mapping::WeightMetric::kHops;
  options.seed = 3;
  options.node_name = node_of(world_rank());
  const mapping::TaskGraph graph = stencil();
  const Remapping remapping = remap_with_scotch(MPI_COMM_WORLD, graph, options);

  int new_rank = -1;
  int new_size = 0;
  MPI_Comm_rank(remapping.comm(), &new_rank);
  MPI_Comm_size(remapping.comm(), &new_size);
  EXPECT_EQ(new_size, world_size());
  EXPECT_EQ(new_rank, remapping.report().new_rank);
  std::vector<int> ranks = all_of(new_rank);
  std::sort(ranks.begin(), ranks.end());
  for (int r = 0; r < world_size(); ++r) {
    EXPECT_EQ(ranks[static_cast<std::size_t>(r)], r) << "the new ranks are not a permutation";
  }

  // The same library calls, serially, on every rank.
  const auto topology = topo::make_topology(kTopology);
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(nodes()));
  for (int n = 0; n < nodes(); ++n) {
    names.push_back(node_of(n * kRanksPerNode));
  }
  mapping::Allocation allocation = mapping::make_allocation(*topology, names, kRanksPerNode);
  const std::array<mapping::WeightMetric, 1> metrics{mapping::WeightMetric::kHops};
  mapping::NodeMetrics node_metrics =
      mapping::fetch_node_metrics(*topology, allocation, "sim:none", mapping::needs_of(metrics));
  const mapping::Machine machine(*topology, std::move(allocation), std::move(node_metrics));
  mapping::ScotchOptions scotch;
  scotch.seed = 3;
  const mapping::Placement placement =
      mapping::scotch_placement(graph, machine, mapping::WeightMetric::kHops, scotch);
  EXPECT_EQ(remapping.report().placement, placement);
  EXPECT_EQ(new_rank, expected_task(placement));
  EXPECT_EQ(remapping.report().nodes, names);
  EXPECT_EQ(remapping.report().cores_per_node, static_cast<std::uint32_t>(kRanksPerNode));
  EXPECT_EQ(remapping.report().method, "scotch:hops");
}

TEST(Remap, GivenPlacementIsApplied) {
  // Reverse order: task t on core P-1-t.
  const Remapping remapping = remap_with_placement(MPI_COMM_WORLD, kTopology, node_of(world_rank()),
                                                   [](const mapping::Allocation& allocation, RemapReport&) {
                                                     mapping::Placement placement(allocation.num_cores());
                                                     for (std::uint32_t t = 0; t < placement.size(); ++t) {
                                                       placement[t] = allocation.num_cores() - 1 - t;
                                                     }
                                                     return placement;
                                                   });
  int new_rank = -1;
  MPI_Comm_rank(remapping.comm(), &new_rank);
  EXPECT_EQ(new_rank, world_size() - 1 - world_rank());
  EXPECT_EQ(remapping.report().method, "placement");
}

TEST(Remap, UnknownNodeNameFailsOnEveryRank) {
  RemapOptions options;
  options.topology = kTopology;
  // A whole node (both its ranks) is unknown, so the ranks per node stay even.
  options.node_name = world_rank() < kRanksPerNode ? "nosuchnode" : node_of(world_rank());
  const mapping::TaskGraph graph = stencil();
  const std::string message =
      collective_error([&] { (void)remap_with_scotch(MPI_COMM_WORLD, graph, options); }, ExitCode::kUsage);
  EXPECT_NE(message.find("nosuchnode"), std::string::npos) << message;
}

TEST(Remap, UnevenRanksPerNodeFailOnEveryRank) {
  RemapOptions options;
  options.topology = kTopology;
  options.node_name = world_rank() == 0 ? "nid00000" : "nid00001";
  const mapping::TaskGraph graph = stencil();
  const std::string message =
      collective_error([&] { (void)remap_with_scotch(MPI_COMM_WORLD, graph, options); }, ExitCode::kUsage);
  EXPECT_NE(message.find("different numbers of ranks"), std::string::npos) << message;
}

TEST(Remap, TaskGraphOfAnotherSizeFailsOnEveryRank) {
  RemapOptions options;
  options.topology = kTopology;
  options.node_name = node_of(world_rank());
  const mapping::TaskGraph graph =
      mapping::stencil3d({static_cast<std::uint32_t>(world_size()) + 1, 1, 1}, 8, false);
  const std::string message =
      collective_error([&] { (void)remap_with_scotch(MPI_COMM_WORLD, graph, options); }, ExitCode::kUsage);
  EXPECT_NE(message.find("tasks but the job runs"), std::string::npos) << message;
}

TEST(Remap, UnreachableOracleFailsOnEveryRank) {
  RemapOptions options;
  options.topology = kTopology;
  options.source = "oracle:http://127.0.0.1:1";
  options.metric = mapping::WeightMetric::kStalls;
  options.fetch.timeout_s = 2;
  options.node_name = node_of(world_rank());
  const mapping::TaskGraph graph = stencil();
  const std::string message =
      collective_error([&] { (void)remap_with_scotch(MPI_COMM_WORLD, graph, options); }, ExitCode::kIo);
  EXPECT_NE(message.find("127.0.0.1:1"), std::string::npos) << message;
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
