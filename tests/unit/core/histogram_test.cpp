#include "gridlock/core/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gridlock/core/rng.hpp"

namespace gridlock {
namespace {

// Exact nearest-rank quantile, the definition LogHistogram::quantile approximates.
double exact_quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
  rank = std::clamp<std::size_t>(rank, 1, n);
  return values[rank - 1];
}

void expect_quantiles_close(const std::vector<double>& values) {
  LogHistogram h;
  for (const double v : values) {
    h.record(v);
  }
  for (const double q : {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
    const double exact = exact_quantile(values, q);
    const double approx = h.quantile(q);
    EXPECT_LE(std::abs(approx - exact), exact * LogHistogram::kMaxRelativeError)
        << "q=" << q << " exact=" << exact << " approx=" << approx;
  }
}

TEST(LogHistogram, QuantilesOfUniformWithinRelativeError) {
  Rng rng(1);
  std::vector<double> values(100000);
  for (auto& v : values) {
    v = 1.0 + 99.0 * rng.uniform01();
  }
  expect_quantiles_close(values);
}

TEST(LogHistogram, QuantilesOfHeavyTailedLogNormalWithinRelativeError) {
  Rng rng(2);
  std::vector<double> values(50000);
  for (auto& v : values) {
    // Box-Muller from our own RNG so the distribution is identical everywhere.
    const double u1 = 1.0 - rng.uniform01();
    const double u2 = rng.uniform01();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    v = std::exp(1.0 + 2.0 * z);  // Spans many decades: microseconds to seconds.
  }
  expect_quantiles_close(values);
}

TEST(LogHistogram, QuantilesOfBimodalWithinRelativeError) {
  std::vector<double> values;
  values.reserve(10000);
  for (int i = 0; i < 9900; ++i) {
    values.push_back(1.7 + 0.001 * (i % 100));
  }
  for (int i = 0; i < 100; ++i) {
    values.push_back(5000.0 + i);
  }
  expect_quantiles_close(values);
}

TEST(LogHistogram, MeanMinMaxAreExact) {
  LogHistogram h;
  h.record(2.0);
  h.record(4.0);
  h.record(9.0);
  EXPECT_EQ(h.count(), 3U);
  EXPECT_DOUBLE_EQ(h.mean(), 5.0);
  EXPECT_EQ(h.min(), 2.0);
  EXPECT_EQ(h.max(), 9.0);
  EXPECT_EQ(h.quantile(0.0), 2.0);
  EXPECT_EQ(h.quantile(1.0), 9.0);
}

TEST(LogHistogram, MergeIsExactlyTheHistogramOfTheUnion) {
  Rng rng(3);
  LogHistogram a;
  LogHistogram b;
  LogHistogram all;
  for (int i = 0; i < 10000; ++i) {
    const double v = 0.5 + 1000.0 * rng.uniform01();
    (i % 3 == 0 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_NEAR(a.sum(), all.sum(), 1e-9 * all.sum());
  const auto ca = a.bucket_counts();
  const auto call = all.bucket_counts();
  EXPECT_TRUE(std::equal(ca.begin(), ca.end(), call.begin(), call.end()));
  for (const double q : {0.01, 0.5, 0.99, 0.999}) {
    EXPECT_EQ(a.quantile(q), all.quantile(q));
  }
}

TEST(LogHistogram, FromPartsRoundTrips) {
  LogHistogram h;
  for (int i = 1; i <= 1000; ++i) {
    h.record(i * 0.37);
  }
  const auto copy = LogHistogram::from_parts(h.bucket_counts(), h.sum(), h.min(), h.max(), 0);
  EXPECT_EQ(copy.count(), h.count());
  EXPECT_EQ(copy.quantile(0.99), h.quantile(0.99));
  const std::vector<std::uint64_t> wrong(3, 0);
  EXPECT_THROW((void)LogHistogram::from_parts(wrong, 0, 0, 0, 0), std::exception);
}

TEST(LogHistogram, OutOfRangeAndNanSamplesAreCountedNotLost) {
  LogHistogram h;
  h.record(0.0);
  h.record(1e-20);
  h.record(1e30);
  h.record(std::nan(""));
  h.record(1.0);
  EXPECT_EQ(h.count(), 4U);
  EXPECT_EQ(h.nan_count(), 1U);
  EXPECT_EQ(h.min(), 0.0);
  EXPECT_EQ(h.max(), 1e30);
  EXPECT_EQ(h.bucket_counts()[LogHistogram::kUnderflowBucket], 2U);
  EXPECT_EQ(h.bucket_counts()[LogHistogram::kOverflowBucket], 1U);
}

TEST(LogHistogram, BucketBoundsContainTheirValues) {
  for (const double v : {1e-9, 0.001, 1.0, 1.5, 3.14159, 1e6, 1e10}) {
    const auto b = LogHistogram::bucket_of(v);
    ASSERT_LT(b, LogHistogram::kRegularBuckets);
    EXPECT_LE(LogHistogram::bucket_lower(b), v);
    EXPECT_GT(LogHistogram::bucket_upper(b), v);
    EXPECT_LE((LogHistogram::bucket_upper(b) - LogHistogram::bucket_lower(b)) / LogHistogram::bucket_lower(b),
              2 * LogHistogram::kMaxRelativeError + 1e-12);
  }
}

TEST(LogHistogram, EmptyHistogramGivesNan) {
  const LogHistogram h;
  EXPECT_TRUE(std::isnan(h.mean()));
  EXPECT_TRUE(std::isnan(h.quantile(0.5)));
}

}  // namespace
}  // namespace gridlock
