#include "gridlock/core/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "gridlock/core/rng.hpp"

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

// Standard normal samples (Box-Muller on gridlock's Rng: the same on every platform).
std::vector<double> normal_samples(std::uint64_t seed, std::size_t n, double mean, double sd) {
  Rng rng(seed);
  std::vector<double> out;
  while (out.size() < n) {
    const double u1 = 1.0 - rng.uniform01();
    const double u2 = rng.uniform01();
    out.push_back(mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
  }
  return out;
}

TEST(StudentT, MatchesTheTablesAndTheNormalLimit) {
  EXPECT_NEAR(student_t_975(1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t_975(9), 2.2622, 1e-4);
  EXPECT_NEAR(student_t_975(30), 2.0423, 1e-4);
  // Beyond the table: the expansion (R's qt(0.975, df)).
  EXPECT_NEAR(student_t_975(31), 2.039513, 1e-5);
  EXPECT_NEAR(student_t_975(40), 2.021075, 1e-5);
  EXPECT_NEAR(student_t_975(60), 2.000298, 1e-5);
  EXPECT_NEAR(student_t_975(120), 1.979930, 1e-5);
  EXPECT_NEAR(student_t_975(1'000'000), 1.959966, 1e-5);
  EXPECT_TRUE(std::isnan(student_t_975(0)));
}

TEST(ConfidenceIntervalMean, SmallSeriesIsATInterval) {
  // 1..5: mean 3, sd sqrt(2.5), t(0.975, 4) = 2.776445: half-width 1.963243.
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const ConfidenceInterval ci = confidence_interval_mean(v);
  EXPECT_TRUE(ci.bounded);
  EXPECT_DOUBLE_EQ(ci.estimate, 3.0);
  EXPECT_NEAR(ci.high - ci.estimate, 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-6);
  EXPECT_NEAR(ci.relative_half_width(), 1.963243 / 3.0, 1e-6);
  const std::vector<double> one = {4};
  EXPECT_FALSE(confidence_interval_mean(one).bounded);
  EXPECT_TRUE(std::isinf(confidence_interval_mean(one).relative_half_width()));
  EXPECT_TRUE(std::isnan(confidence_interval_mean({}).relative_half_width()));
}

TEST(ConfidenceIntervalMean, CoversTheMeanOfNormalSamplesAbout95PercentOfTheTime) {
  // 400 series of 100 N(10, 2) values: about 95% of the intervals hold 10, and their half-width
  // is about t * 2 / sqrt(100) (batch means of 10 batches of 10: t(0.975, 9) = 2.262).
  int covered = 0;
  double half_sum = 0;
  constexpr int kSeries = 400;
  for (int s = 0; s < kSeries; ++s) {
    const auto v = normal_samples(1000 + static_cast<std::uint64_t>(s), 100, 10.0, 2.0);
    const ConfidenceInterval ci = confidence_interval_mean(v);
    covered += ci.low <= 10.0 && 10.0 <= ci.high ? 1 : 0;
    half_sum += (ci.high - ci.low) / 2;
  }
  EXPECT_GE(covered, 370);  // 95% of 400 = 380, binomial sd 4.4
  EXPECT_LE(covered, 392);
  EXPECT_NEAR(half_sum / kSeries, 2.262 * 2.0 / 10.0, 0.05);
}

TEST(ConfidenceIntervalMean, CorrelatedNeighboursWidenTheInterval) {
  // A series whose values come in runs of 10 equal ones: as many independent values as 1/10 of
  // the series. Batch means see that; a t interval over the values would be about 3x narrower.
  auto base = normal_samples(7, 100, 5.0, 1.0);
  std::vector<double> runs;
  for (const double b : base) {
    runs.insert(runs.end(), 10, b);
  }
  const ConfidenceInterval ci = confidence_interval_mean(runs);
  const ConfidenceInterval independent = confidence_interval_mean(base);
  // 1000 values in 31 batches of about 32: the interval of the 100 independent values, not sqrt(10) less.
  EXPECT_GT(ci.high - ci.low, 0.7 * (independent.high - independent.low));
}

TEST(ConfidenceIntervalQuantile, OrderStatisticRanks) {
  // 1..1000: p99 is the 990th; n q = 990, 1.96 sqrt(9.9) = 6.17: the 983rd and 997th.
  std::vector<double> v;
  for (int i = 1000; i >= 1; --i) {
    v.push_back(i);
  }
  const ConfidenceInterval ci = confidence_interval_quantile(v, 0.99);
  EXPECT_TRUE(ci.bounded);
  EXPECT_DOUBLE_EQ(ci.estimate, 990.0);
  EXPECT_DOUBLE_EQ(ci.low, 983.0);
  EXPECT_DOUBLE_EQ(ci.high, 997.0);
  EXPECT_NEAR(ci.relative_half_width(), 7.0 / 990.0, 1e-12);
  // p1 the same way from below: 10th, 3rd .. 17th.
  const ConfidenceInterval p1 = confidence_interval_quantile(v, 0.01);
  EXPECT_DOUBLE_EQ(p1.estimate, 10.0);
  EXPECT_DOUBLE_EQ(p1.low, 3.0);
  EXPECT_DOUBLE_EQ(p1.high, 17.0);
}

TEST(ConfidenceIntervalQuantile, TooFewSamplesForATailAreNotBounded) {
  // 100 samples: the interval of p99 would need the 101st smallest.
  std::vector<double> v(100, 1.0);
  const ConfidenceInterval ci = confidence_interval_quantile(v, 0.99);
  EXPECT_FALSE(ci.bounded);
  EXPECT_TRUE(std::isinf(ci.relative_half_width()));
  std::vector<double> none;
  EXPECT_TRUE(std::isnan(confidence_interval_quantile(none, 0.5).estimate));
}

TEST(ConfidenceIntervalQuantile, CoversTheNormalP99About95PercentOfTheTime) {
  // p99 of N(0, 1) is 2.326348; 300 sets of 2000 samples.
  int covered = 0;
  constexpr int kSets = 300;
  for (int s = 0; s < kSets; ++s) {
    auto v = normal_samples(5000 + static_cast<std::uint64_t>(s), 2000, 0.0, 1.0);
    const ConfidenceInterval ci = confidence_interval_quantile(v, 0.99);
    covered += ci.low <= 2.326348 && 2.326348 <= ci.high ? 1 : 0;
  }
  EXPECT_GE(covered, 276);  // 95% of 300 = 285, binomial sd 3.8; the discrete ranks cover a little more
  EXPECT_LE(covered, 298);
}

TEST(DesignEffect, IsTheClusterSizeWhenClustersMoveTogetherAndOneWhenIndependent) {
  // 100 clusters of 10 equal values: worth 100 values, a design effect of 10.
  const auto base = normal_samples(11, 100, 0.0, 1.0);
  std::vector<double> together;
  for (const double b : base) {
    together.insert(together.end(), 10, b);
  }
  EXPECT_NEAR(design_effect(together, 10), 10.0, 1e-9);
  // Independent values: about 1 (the estimate of rho is clamped at 0).
  const auto independent = normal_samples(12, 1000, 0.0, 1.0);
  EXPECT_NEAR(design_effect(independent, 10), 1.0, 0.3);
  // Every value equal: taken as one per cluster. Too few clusters or clusters of 1: 1.
  EXPECT_DOUBLE_EQ(design_effect(std::vector<double>(40, 3.0), 4), 4.0);
  EXPECT_DOUBLE_EQ(design_effect(together, 1), 1.0);
  EXPECT_DOUBLE_EQ(design_effect(std::vector<double>(10, 1.0), 10), 1.0);
}

TEST(ConfidenceIntervalQuantile, ADesignEffectWidensItToTheIndependentSamples) {
  // 2000 values in clusters of 10 equal ones: the interval with design effect 10 is about that
  // of the 200 distinct values.
  const auto base = normal_samples(13, 200, 0.0, 1.0);
  std::vector<double> clustered;
  for (const double b : base) {
    clustered.insert(clustered.end(), 10, b);
  }
  std::vector<double> distinct = base;
  std::vector<double> pooled = clustered;
  const ConfidenceInterval narrow = confidence_interval_quantile(pooled, 0.9);
  pooled = clustered;
  const ConfidenceInterval wide = confidence_interval_quantile(pooled, 0.9, design_effect(clustered, 10));
  const ConfidenceInterval expected = confidence_interval_quantile(distinct, 0.9);
  // Within one order statistic of it (ranks 1716 and 1884 of 2000 against 171 and 189 of 200).
  EXPECT_GE(wide.low, expected.low);
  EXPECT_LE(wide.high, expected.high);
  EXPECT_GT(wide.high - wide.low, 0.8 * (expected.high - expected.low));
  EXPECT_LT(narrow.high - narrow.low, wide.high - wide.low);
}

}  // namespace
}  // namespace gridlock
