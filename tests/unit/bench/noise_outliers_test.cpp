// The outlier-node rule of `gridlock-bench noise`: noise fraction > median + k x MAD over nodes.
#include <gtest/gtest.h>

#include "gridlock/bench/noise_run.hpp"

namespace gb = gridlock::bench;

TEST(NoiseOutliers, MedianPlusThreeMad) {
  gb::NoiseReport report;
  for (const double f : {0.01, 0.011, 0.012, 0.0105, 0.5}) {
    gb::NoiseNodeRow row;
    row.noise_fraction = f;
    report.nodes.push_back(row);
  }
  gb::flag_noise_outliers(report, 3.0);
  EXPECT_DOUBLE_EQ(report.median_noise_fraction, 0.011);
  EXPECT_NEAR(report.mad_noise_fraction, 0.001, 1e-12);
  EXPECT_NEAR(report.outlier_threshold, 0.014, 1e-12);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_FALSE(report.nodes[i].outlier) << i;
  }
  EXPECT_TRUE(report.nodes[4].outlier);
  // Identical nodes: MAD 0 and nobody is above the median.
  for (auto& n : report.nodes) {
    n.noise_fraction = 0.02;
  }
  gb::flag_noise_outliers(report, 3.0);
  for (const auto& n : report.nodes) {
    EXPECT_FALSE(n.outlier);
  }
}
