// A rankfile read against a whole topology's nodes (`gridlock sim --placement rankfile:FILE`):
// the node of each rank, and the messages for unknown hosts, missing, extra and repeated ranks.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::mapping {
namespace {

TEST(RankfileNodes, NodeOfEachRank) {
  const auto topology = topo::make_topology("torus:4x1x1");
  const std::string n0 = topology->nodes()[0].name;
  const std::string n3 = topology->nodes()[3].name;
  const std::vector<topo::NodeId> nodes = read_rankfile_nodes(
      *topology, 3, "rank 0=" + n3 + " slot=0\nrank 1=" + n0 + " slot=0\nrank 2=" + n3 + " slot=1\n", "rf");
  EXPECT_EQ(nodes, (std::vector<topo::NodeId>{3, 0, 3}));

  const auto message_of = [&](const std::string& text, std::uint32_t ranks) {
    try {
      (void)read_rankfile_nodes(*topology, ranks, text, "rf");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message_of("rank 0=nosuchhost slot=0\n", 1).find("rf:1: host 'nosuchhost' is not in the allocation"),
      std::string::npos);
  // Ranks left out at the end, or in the middle, and more ranks than the schedule has.
  EXPECT_NE(message_of("rank 0=" + n0 + " slot=0\n", 2).find("places 1 ranks (0..0), the schedule has 2"),
            std::string::npos);
  EXPECT_NE(message_of("rank 0=" + n0 + " slot=0\nrank 2=" + n0 + " slot=1\n", 3).find("rank 1 is missing"),
            std::string::npos);
  EXPECT_NE(message_of("rank 0=" + n0 + " slot=0\nrank 1=" + n3 + " slot=0\n", 1).find("the schedule has 1"),
            std::string::npos);
}

}  // namespace
}  // namespace gridlock::mapping
