#include "gridlock/core/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gridlock {
namespace {

TEST(CongestionImpact, LatencyIsLoadedOverIsolated) {
  EXPECT_DOUBLE_EQ(congestion_impact(2.0, 5.0, Better::kLower), 2.5);
}

TEST(CongestionImpact, BandwidthIsIsolatedOverLoaded) {
  EXPECT_DOUBLE_EQ(congestion_impact(1000.0, 250.0, Better::kHigher), 4.0);
}

TEST(CongestionImpact, UsesUnroundedValues) {
  // GPCNeT divides values printed with one decimal: 0.04 / 0.06 would become 0.0 / 0.1.
  EXPECT_NEAR(congestion_impact(0.06, 0.04, Better::kLower), 0.6666666666, 1e-9);
}

TEST(CongestionImpact, NonPositiveOrMissingInputsGiveNan) {
  EXPECT_TRUE(std::isnan(congestion_impact(0.0, 1.0, Better::kLower)));
  EXPECT_TRUE(std::isnan(congestion_impact(1.0, std::nan(""), Better::kHigher)));
  EXPECT_TRUE(std::isnan(congestion_impact(-1.0, 1.0, Better::kLower)));
}

TEST(Summary, TailDependsOnDirection) {
  LogHistogram h;
  for (int i = 1; i <= 1000; ++i) {
    h.record(static_cast<double>(i));
  }
  const Summary s = summarize(h);
  EXPECT_EQ(s.count, 1000U);
  EXPECT_NEAR(s.p99, 990.0, 990.0 / 256);
  EXPECT_NEAR(s.p1, 10.0, 10.0 / 256);
  EXPECT_EQ(s.tail99(Better::kLower), s.p99);
  EXPECT_EQ(s.tail99(Better::kHigher), s.p1);
  EXPECT_NEAR(s.median, 500.0, 500.0 / 256);
}

TEST(Summary, EmptyGivesNanAndZeroCount) {
  const Summary s = summarize(LogHistogram{});
  EXPECT_EQ(s.count, 0U);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.p99));
}

}  // namespace
}  // namespace gridlock
