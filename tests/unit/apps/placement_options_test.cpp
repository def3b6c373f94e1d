// `gridlock sim --placement` (placement_options.hpp): identity and random through gridlock::net,
// a rankfile read from its file through gridlock::mapping's reader, --ranks-per-node refused beside it.
#include "placement_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::cli {
namespace {

TEST(PlacementOptions, IdentityAndRandom) {
  const auto topology = topo::make_topology("torus:4x2x1,npr=1");
  const net::Placement identity = make_placement(*topology, 6, net::PlacementSpec{}, 2, 1);
  EXPECT_EQ(identity.node_of_rank, (std::vector<topo::NodeId>{0, 0, 1, 1, 2, 2}));
  const net::PlacementSpec random{net::PlacementKind::kRandom, {}};
  const net::Placement a = make_placement(*topology, 8, random, 1, 42);
  const net::Placement b = make_placement(*topology, 8, random, 1, 42);
  EXPECT_EQ(a.node_of_rank, b.node_of_rank);  // the seed decides
  std::vector<topo::NodeId> sorted = a.node_of_rank;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<topo::NodeId>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_THROW((void)make_placement(*topology, 9, random, 1, 42), InputError);  // 9 ranks, 8 nodes
}

TEST(PlacementOptions, Rankfile) {
  const auto topology = topo::make_topology("torus:4x1x1");
  const std::string n0 = topology->nodes()[0].name;
  const std::string n3 = topology->nodes()[3].name;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("gridlock_placement_options_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "rf").string();
  std::ofstream(path) << "rank 0=" + n3 + " slot=0\nrank 1=" + n0 + " slot=0\nrank 2=" + n3 + " slot=1\n";
  const net::Placement p = make_placement(*topology, 3, net::parse_placement_spec("rankfile:" + path), 1, 1);
  EXPECT_EQ(p.node_of_rank, (std::vector<topo::NodeId>{3, 0, 3}));
  EXPECT_EQ(p.description, "rankfile " + path);
  // A rankfile says where each rank goes: --ranks-per-node is refused beside it.
  EXPECT_THROW((void)make_placement(*topology, 3, net::parse_placement_spec("rankfile:" + path), 2, 1),
               InputError);
  // A file that cannot be read.
  EXPECT_THROW(
      (void)make_placement(*topology, 3, net::parse_placement_spec("rankfile:" + path + ".none"), 1, 1),
      IoError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gridlock::cli
