#include "gridlock/gpcnet/suite.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gridlock::gpcnet {
namespace {

TEST(Suite, EveryCanaryHasItsOwnRowInDeclarationOrder) {
  std::set<std::string_view> keys;
  std::set<std::string_view> names;
  int index = 0;
  for (const CanaryTest& test : canary_tests()) {
    EXPECT_EQ(static_cast<int>(test.id), index++);
    EXPECT_EQ(&canary_test(test.id), &test);
    EXPECT_TRUE(keys.insert(test.key).second) << test.key;
    EXPECT_TRUE(names.insert(test.name).second) << test.name;
  }
  EXPECT_EQ(index, 8);
}

TEST(Suite, TitlesCarryTheMessageSize) {
  EXPECT_EQ(canary_title(Canary::kRrTwoSidedLat, 8), "RR Two-sided Lat (8 B)");
  EXPECT_EQ(canary_title(Canary::kRrTwoSidedBwSync, 131072), "RR Two-sided BW+Sync (131072 B)");
  EXPECT_EQ(canary_title(Canary::kMultipleAlltoall, 4096), "Multiple Alltoall (4096 B)");
}

TEST(Suite, LoadModeRunsThreeCanariesWithTheOptionsSizes) {
  Options options;
  options.latency_bytes = 16;
  const auto specs = canary_specs(options);
  ASSERT_EQ(specs.size(), 3U);
  EXPECT_EQ(specs[0].key, "rr_two_sided_lat");
  EXPECT_EQ(specs[0].title, "RR Two-sided Lat (16 B)");
  EXPECT_EQ(specs[0].units, "usec");
  EXPECT_EQ(specs[0].loop.iterations, options.latency.iterations);
  EXPECT_EQ(specs[1].key, "rr_two_sided_bw_sync");
  EXPECT_EQ(specs[1].better, Better::kHigher);
  EXPECT_EQ(specs[1].units, "MiB/s/rank");
  EXPECT_EQ(specs[2].key, "multiple_allreduce");
  EXPECT_EQ(specs[2].rings, RingKind::kNone);
}

TEST(Suite, NetworkModeRunsEveryCanaryAndTheNaturalRingOnce) {
  Options options;
  options.mode = Mode::kNetwork;
  const auto specs = canary_specs(options);
  ASSERT_EQ(specs.size(), canary_tests().size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].key, canary_tests()[i].key);
  }
  EXPECT_EQ(specs[5].key, "nat_two_sided_bw");
  EXPECT_EQ(specs[5].loop.rings, 1U);
  EXPECT_EQ(specs[2].loop.rings, options.bandwidth.rings);
}

TEST(Suite, CongestorNamesComeFromTheTable) {
  for (const CongestorTest& test : congestor_tests()) {
    EXPECT_EQ(congestor_key(test.type), test.key);
    EXPECT_EQ(congestor_title(test.type), test.title);
    EXPECT_EQ(parse_congestor_list(test.key), std::vector<CongestorType>{test.type});
  }
  EXPECT_EQ(Options{}.congestors, default_congestors());
  EXPECT_EQ(default_congestors().size(), 4U);
}

}  // namespace
}  // namespace gridlock::gpcnet
