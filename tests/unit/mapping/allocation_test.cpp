// Allocations: Slurm hostlist expansion, @FILE node lists, and resolving names against a topology.
#include "gridlock/mapping/allocation.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir_test.hpp"

#include "gridlock/core/error.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::mapping {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Names = std::vector<std::string>;

std::string hostlist_error(const std::string& text) {
  return input_error([&] { (void)expand_hostlist(text); });
}

TEST(Hostlist, ExpandsRangesAndKeepsPadding) {
  EXPECT_EQ(expand_hostlist("nid[00017-00019,00024],login1"),
            (Names{"nid00017", "nid00018", "nid00019", "nid00024", "login1"}));
  EXPECT_EQ(expand_hostlist("nid[8-10]"), (Names{"nid8", "nid9", "nid10"}));
  EXPECT_EQ(expand_hostlist("nid[008-010]"), (Names{"nid008", "nid009", "nid010"}));
  EXPECT_EQ(expand_hostlist("nid[08-10]"), (Names{"nid08", "nid09", "nid10"}));
  EXPECT_EQ(expand_hostlist("nid[98-101]"), (Names{"nid98", "nid99", "nid100", "nid101"}));
  EXPECT_EQ(expand_hostlist("a"), (Names{"a"}));
  EXPECT_EQ(expand_hostlist("n[7]"), (Names{"n7"}));
}

TEST(Hostlist, SeveralItemsAndGroups) {
  EXPECT_EQ(expand_hostlist("r[1-2]n[1-2]"), (Names{"r1n1", "r1n2", "r2n1", "r2n2"}));
  EXPECT_EQ(expand_hostlist("c[1-2]-s[0,3]x"), (Names{"c1-s0x", "c1-s3x", "c2-s0x", "c2-s3x"}));
  EXPECT_EQ(expand_hostlist("[1-2]host"), (Names{"1host", "2host"}));
  EXPECT_EQ(expand_hostlist("a,b[1-2],c"), (Names{"a", "b1", "b2", "c"}));
  // Blanks separate too (a pasted list), repeated or around commas.
  EXPECT_EQ(expand_hostlist("  a b\n c , d\t"), (Names{"a", "b", "c", "d"}));
}

TEST(Hostlist, Errors) {
  EXPECT_THAT(hostlist_error(""), HasSubstr("no names"));
  EXPECT_THAT(hostlist_error("   "), HasSubstr("no names"));
  EXPECT_THAT(hostlist_error("a,,b"), HasSubstr("an empty name"));
  EXPECT_THAT(hostlist_error(",a"), HasSubstr("an empty name"));
  EXPECT_THAT(hostlist_error("a,"), HasSubstr("an empty name"));
  EXPECT_THAT(hostlist_error("a, ,b"), HasSubstr("an empty name"));
  EXPECT_THAT(hostlist_error("nid[1-3"), HasSubstr("'[' without ']'"));
  EXPECT_THAT(hostlist_error("nid1-3]"), HasSubstr("']' without '['"));
  EXPECT_THAT(hostlist_error("nid[1-[2]]"), HasSubstr("nested '['"));
  EXPECT_THAT(hostlist_error("nid[]"), HasSubstr("empty brackets"));
  EXPECT_THAT(hostlist_error("nid[1,]"), HasSubstr("an empty range"));
  EXPECT_THAT(hostlist_error("nid[5-3]"), HasSubstr("range '5-3' descends; write it as 3-5"));
  EXPECT_THAT(hostlist_error("nid[a-3]"), HasSubstr("'a' in brackets is not a number"));
  EXPECT_THAT(hostlist_error("nid[1-]"), HasSubstr("'' in brackets is not a number"));
  EXPECT_THAT(hostlist_error("nid[-1]"), HasSubstr("not a number"));
  EXPECT_THAT(hostlist_error("nid[1-2-3]"), HasSubstr("'2-3' in brackets is not a number"));
  EXPECT_THAT(hostlist_error("nid[1234567890123456789]"), HasSubstr("more than 18 digits"));
  EXPECT_THAT(hostlist_error(std::string(300, 'x')), HasSubstr("longer than 255 characters"));
}

TEST(Hostlist, CountIsBoundedBeforeExpanding) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(hostlist_error("nid[0-999999999]"), HasSubstr("more than 1048576 names"));
  EXPECT_THAT(hostlist_error("nid[0-999999999999999999]"), HasSubstr("more than 1048576 names"));
  EXPECT_THAT(hostlist_error("a[0-1023]b[0-1024]"), HasSubstr("more than 1048576 names"));
  EXPECT_THAT(hostlist_error("a[0-1023]b[0-1023],c"), HasSubstr("more than 1048576 names"));
  EXPECT_THAT(hostlist_error("a[0-999][0-999][0-999][0-999][0-999][0-999][0-999]"), HasSubstr("more than"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0);
  EXPECT_EQ(expand_hostlist("a[0-1023]b[0-1023]").size(), 1048576U);
}

class NodeListFiles : public TempDirTest {
 protected:
  NodeListFiles() : TempDirTest("gridlock_allocation_") {}
};

TEST_F(NodeListFiles, OneHostlistPerLineWithComments) {
  const fs::path path = write("nodes.txt",
                              "# from scontrol show hostnames\n"
                              "nid00001\n"
                              "\n"
                              "nid[00002-00003]  # two more\r\n"
                              "   \n"
                              "login1,login2\n");
  EXPECT_EQ(read_node_list("@" + path.string()),
            (Names{"nid00001", "nid00002", "nid00003", "login1", "login2"}));
  EXPECT_EQ(node_list_input("@" + path.string()), path);
  EXPECT_TRUE(node_list_input("nid[1-2]").empty());
  EXPECT_EQ(read_node_list("nid[1-2]"), (Names{"nid1", "nid2"}));
}

TEST_F(NodeListFiles, Errors) {
  const fs::path bad = write("bad.txt", "nid1\n# ok\nnid[3-1]\n");
  EXPECT_THAT(input_error([&] { (void)read_node_list("@" + bad.string()); }),
              HasSubstr("bad.txt:3: invalid node list 'nid[3-1]'"));
  const fs::path empty = write("empty.txt", "# nothing\n\n");
  EXPECT_THAT(input_error([&] { (void)read_node_list("@" + empty.string()); }),
              HasSubstr("has no node names"));
  EXPECT_THAT(input_error([] { (void)read_node_list("@"); }), HasSubstr("give a file name after '@'"));
  EXPECT_THROW((void)read_node_list("@" + (dir_ / "missing").string()), IoError);
  EXPECT_THROW((void)read_node_list("@" + dir_.string()), IoError);
  EXPECT_THROW((void)read_node_list("@/dev/zero"), IoError);
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW((void)read_node_list("@" + fifo.string()), IoError);  // refused, not opened (would block)
  // The bound holds across lines.
  const fs::path many = write("many.txt", "a[0-1023]b[0-1023]\nc\n");
  EXPECT_THAT(input_error([&] { (void)read_node_list("@" + many.string()); }),
              HasSubstr("many.txt:2: invalid node list 'c': more than 1048576 names"));
}

TEST(Allocation, ResolvesNamesAndIndices) {
  const auto topology = topo::make_topology("torus:2x2x8");
  const Allocation a = make_allocation(*topology, {"nid00005", "nid00001", "7"}, 4);
  EXPECT_THAT(a.nodes, ElementsAre(5U, 1U, 7U));
  EXPECT_EQ(a.names, (Names{"nid00005", "nid00001", "7"}));
  EXPECT_EQ(a.num_nodes(), 3U);
  EXPECT_EQ(a.num_cores(), 12U);
  EXPECT_EQ(a.node_of_core(5), 1U);
  EXPECT_EQ(a.slot_of_core(5), 1U);
}

TEST(Allocation, ReportsEveryUnknownNodeAtOnce) {
  const auto topology = topo::make_topology("torus:2x2x8");
  const std::string message = input_error([&] {
    (void)make_allocation(*topology, {"nid00001", "nid99999", "foo", "64", "bar"}, 1);
  });
  EXPECT_THAT(message, HasSubstr("4 nodes are not in topology 'torus:2x2x8"));
  EXPECT_THAT(message, HasSubstr(": nid99999, foo, 64, bar (its nodes are nid00000..nid00063"));
  EXPECT_THAT(input_error([&] { (void)make_allocation(*topology, {"x"}, 1); }),
              HasSubstr("1 node is not in"));
  Names many;
  for (int i = 0; i < 12; ++i) {
    many.push_back("bad" + std::to_string(i));
  }
  EXPECT_THAT(input_error([&] { (void)make_allocation(*topology, many, 1); }),
              HasSubstr("bad9 and 2 more (its nodes"));
}

TEST(Allocation, RejectsDuplicatesAndBadCounts) {
  const auto topology = topo::make_topology("torus:2x2x8");
  EXPECT_THAT(input_error([&] {
                (void)make_allocation(*topology, {"nid00002", "nid00003", "nid00002"}, 1);
              }),
              HasSubstr("lists 1 node more than once: nid00002 (entries 1 and 3)"));
  // The same node by name and by index.
  EXPECT_THAT(input_error([&] {
                (void)make_allocation(*topology, {"nid00004", "4"}, 1);
              }),
              HasSubstr("nid00004 (entries 1 'nid00004' and 2 '4')"));
  EXPECT_THAT(input_error([&] { (void)make_allocation(*topology, {}, 1); }), HasSubstr("lists no nodes"));
  EXPECT_THAT(input_error([&] { (void)make_allocation(*topology, {"nid00000"}, 0); }),
              HasSubstr("0 cores per node: give 1 to 4096"));
  EXPECT_THAT(input_error([&] { (void)make_allocation(*topology, {"nid00000"}, kMaxCoresPerNode + 1); }),
              HasSubstr("4097 cores per node"));
  EXPECT_NO_THROW((void)make_allocation(*topology, {"nid00000"}, kMaxCoresPerNode));
  Names nodes;
  for (int i = 0; i < 64; ++i) {
    nodes.push_back(std::to_string(i));
  }
  EXPECT_NO_THROW((void)make_allocation(*topology, nodes, kMaxCoresPerNode));
}

TEST(Allocation, CoreLimit) {
  // 2^20 nodes x 4096 cores would be 2^32 cores: refused before any name is looked up.
  const auto topology = topo::make_topology("torus:2x2x8");
  const Names names(std::size_t{1} << 20U, "nid00000");
  EXPECT_THAT(input_error([&] { (void)make_allocation(*topology, names, kMaxCoresPerNode); }),
              HasSubstr("more than the 2147483648 cores"));
}

// --allocation (issue 37): compact takes the first nodes, spread spaces them evenly, random is a
// seeded sample; every choice is distinct, sorted and inside the machine.
TEST(AllocateNodes, CompactSpreadAndRandom) {
  using Ids = std::vector<topo::NodeId>;
  EXPECT_EQ(allocate_nodes(696, 4, AllocationPolicy::kCompact, 1), (Ids{0, 1, 2, 3}));
  EXPECT_EQ(allocate_nodes(696, 4, AllocationPolicy::kSpread, 1), (Ids{0, 174, 348, 522}));
  EXPECT_EQ(allocate_nodes(10, 10, AllocationPolicy::kSpread, 1), (Ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  const Ids a = allocate_nodes(696, 64, AllocationPolicy::kRandom, 7);
  EXPECT_EQ(a, allocate_nodes(696, 64, AllocationPolicy::kRandom, 7));
  EXPECT_NE(a, allocate_nodes(696, 64, AllocationPolicy::kRandom, 8));
  EXPECT_NE(a, allocate_nodes(696, 64, AllocationPolicy::kCompact, 7));
  ASSERT_EQ(a.size(), 64U);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());
  EXPECT_LT(a.back(), 696U);
  EXPECT_EQ(allocate_nodes(5, 5, AllocationPolicy::kRandom, 3), (Ids{0, 1, 2, 3, 4}));
}

TEST(AllocateNodes, RefusesZeroAndMoreThanTheMachine) {
  EXPECT_THAT(input_error([] { (void)allocate_nodes(696, 697, AllocationPolicy::kCompact, 1); }),
              HasSubstr("--nodes 697: the machine has 696 nodes; give 1 to 696"));
  EXPECT_THAT(input_error([] { (void)allocate_nodes(696, 0, AllocationPolicy::kSpread, 1); }),
              HasSubstr("--nodes 0"));
  EXPECT_EQ(parse_allocation_policy("spread"), AllocationPolicy::kSpread);
  EXPECT_THAT(input_error([] { (void)parse_allocation_policy("scatter"); }),
              HasSubstr("--allocation 'scatter': give compact"));
}

// A job's nodes on a machine whose node count may pass 32 bits, and its description (moved from
// `gridlock predict gpcnet`).
TEST(JobNodes, CountZeroTakesEveryNodeAndTheDescriptionNamesTheSeed) {
  const JobNodes all = allocate_job_nodes(6, 0, AllocationPolicy::kCompact, 1);
  EXPECT_EQ(all.nodes.size(), 6U);
  EXPECT_EQ(all.allocation, "compact");
  const JobNodes some = allocate_job_nodes(100, 4, AllocationPolicy::kRandom, 7);
  EXPECT_EQ(some.nodes.size(), 4U);
  EXPECT_TRUE(std::is_sorted(some.nodes.begin(), some.nodes.end()));
  EXPECT_EQ(some.allocation, "random, seed 7");
  EXPECT_EQ(allocate_job_nodes(100, 4, AllocationPolicy::kSpread, 7).allocation, "spread");
  try {
    (void)allocate_job_nodes(std::uint64_t{1} << 33U, 2, AllocationPolicy::kCompact, 1);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--nodes 2: the network has 8589934592 nodes, more than --nodes can take");
  }
}

// Node pairs A:B,C:D (moved from `gridlock predict mapping --congestors`).
TEST(JobNodes, NodePairsNeedOneColonAndTwoNames) {
  const auto pairs = parse_node_pairs("a:b,nid1:nid2", "--congestors");
  ASSERT_EQ(pairs.size(), 2U);
  EXPECT_EQ(pairs[1].first, "nid1");
  EXPECT_EQ(pairs[1].second, "nid2");
  for (const char* bad : {"a", ":b", "a:", "a:b:c", "a:b,", ",a:b", "a:b,,c:d"}) {
    try {
      (void)parse_node_pairs(bad, "--congestors");
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--congestors '") + bad +
                                           "': expected node pairs A:B separated by commas, e.g. "
                                           "nid00016:nid00040,nid00048:nid00042");
    }
  }
}

}  // namespace
}  // namespace gridlock::mapping
