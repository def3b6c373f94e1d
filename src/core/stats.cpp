#include "gridlock/core/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace gridlock {

Summary summarize(const LogHistogram& histogram) noexcept {
  Summary s;
  s.count = histogram.count();
  if (s.count == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.min = s.max = s.p0_1 = s.p1 = s.median = s.p99 = s.p99_9 = nan;
    return s;
  }
  s.mean = histogram.mean();
  s.min = histogram.min();
  s.max = histogram.max();
  s.p0_1 = histogram.quantile(0.001);
  s.p1 = histogram.quantile(0.01);
  s.median = histogram.quantile(0.5);
  s.p99 = histogram.quantile(0.99);
  s.p99_9 = histogram.quantile(0.999);
  return s;
}

double congestion_impact(double isolated, double loaded, Better better) noexcept {
  const auto usable = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!usable(isolated) || !usable(loaded)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return better == Better::kLower ? loaded / isolated : isolated / loaded;
}

double ConfidenceInterval::relative_half_width() const noexcept {
  if (std::isnan(estimate)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (!bounded || estimate == 0.0) {
    return std::numeric_limits<double>::infinity();
  }
  return std::max(estimate - low, high - estimate) / std::abs(estimate);
}

namespace {

// The two-sided 95% normal quantile.
constexpr double kZ975 = 1.959963984540054;

}  // namespace

double student_t_975(std::uint64_t dof) noexcept {
  // t(0.975, dof) for dof 1..30 (to 6 decimals).
  static constexpr std::array<double, 30> kTable = {
      12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
      2.200985,  2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
      2.079614,  2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
  if (dof == 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (dof <= kTable.size()) {
    return kTable[dof - 1];
  }
  // Cornish-Fisher expansion of t in powers of 1/dof (Abramowitz and Stegun 26.7.5).
  const double z = kZ975;
  const double z2 = z * z;
  const double v = static_cast<double>(dof);
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

ConfidenceInterval confidence_interval_mean(std::span<const double> values) {
  ConfidenceInterval ci;
  const std::size_t n = values.size();
  ci.samples = n;
  if (n == 0) {
    return ci;
  }
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  ci.estimate = sum / static_cast<double>(n);
  ci.low = ci.high = ci.estimate;
  if (n < 2) {
    return ci;
  }
  constexpr std::size_t kMinBatches = 10;
  const auto root = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
  const std::size_t k = n <= kMinBatches ? n : std::max(kMinBatches, root);
  // Batch j holds values [j n / k, (j + 1) n / k): sizes differ by at most one.
  std::vector<double> means(k);
  for (std::size_t j = 0; j < k; ++j) {
    const std::size_t begin = j * n / k;
    const std::size_t end = (j + 1) * n / k;
    double s = 0;
    for (std::size_t i = begin; i < end; ++i) {
      s += values[i];
    }
    means[j] = s / static_cast<double>(end - begin);
  }
  double mean = 0;
  for (const double m : means) {
    mean += m;
  }
  mean /= static_cast<double>(k);
  double squares = 0;
  for (const double m : means) {
    squares += (m - mean) * (m - mean);
  }
  const double sd = std::sqrt(squares / static_cast<double>(k - 1));
  const double half = student_t_975(k - 1) * sd / std::sqrt(static_cast<double>(k));
  ci.low = ci.estimate - half;
  ci.high = ci.estimate + half;
  ci.bounded = true;
  return ci;
}

double design_effect(std::span<const double> values, std::size_t cluster_size) noexcept {
  const std::size_t m = cluster_size;
  const std::size_t k = m == 0 ? 0 : values.size() / m;
  if (m < 2 || k < 2) {
    return 1.0;
  }
  double grand = 0;
  for (std::size_t i = 0; i < k * m; ++i) {
    grand += values[i];
  }
  grand /= static_cast<double>(k * m);
  double between = 0;  // sum over clusters of m (cluster mean - grand mean)^2
  double within = 0;   // sum of (value - its cluster's mean)^2
  for (std::size_t c = 0; c < k; ++c) {
    double mean = 0;
    for (std::size_t i = c * m; i < (c + 1) * m; ++i) {
      mean += values[i];
    }
    mean /= static_cast<double>(m);
    between += static_cast<double>(m) * (mean - grand) * (mean - grand);
    for (std::size_t i = c * m; i < (c + 1) * m; ++i) {
      within += (values[i] - mean) * (values[i] - mean);
    }
  }
  const double msb = between / static_cast<double>(k - 1);
  const double msw = within / static_cast<double>(k * (m - 1));
  const double denominator = msb + static_cast<double>(m - 1) * msw;
  // Every value equal: nothing tells the clusters' values apart, so take them as one.
  const double rho = denominator > 0 ? std::clamp((msb - msw) / denominator, 0.0, 1.0) : 1.0;
  return 1.0 + static_cast<double>(m - 1) * rho;
}

ConfidenceInterval confidence_interval_quantile(std::vector<double>& values, double q, double design) {
  ConfidenceInterval ci;
  const std::size_t n = values.size();
  ci.samples = n;
  if (n == 0 || !(q > 0.0 && q < 1.0) || !(design >= 1.0)) {
    return ci;
  }
  const double nq = static_cast<double>(n) * q;
  const double spread = kZ975 * std::sqrt(nq * (1.0 - q) * design);
  // 1-based ranks of the estimate and of the interval's ends.
  const double rank = std::max(1.0, std::ceil(nq));
  const double lower = std::floor(nq - spread);
  const double upper = std::ceil(nq + spread);
  const double last = static_cast<double>(n);
  ci.bounded = lower >= 1.0 && upper <= last;
  auto nth = [&](double r) {
    const auto i = static_cast<std::size_t>(std::clamp(r, 1.0, last)) - 1;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values.end());
    return values[i];
  };
  ci.estimate = nth(rank);
  ci.low = nth(lower);
  ci.high = nth(upper);
  return ci;
}

}  // namespace gridlock
