#pragma once
/// @file
/// Summary statistics and the Congestion Impact metric.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "gridlock/core/histogram.hpp"

namespace gridlock {

/// Which direction of a metric is good: latencies are better low, bandwidths better high.
enum class Better { kLower, kHigher };

/// Summary of a sample population, computed from a LogHistogram.
struct Summary {
  std::uint64_t count = 0;  ///< Number of samples.
  double mean = 0;          ///< Exact mean.
  double min = 0;           ///< Exact minimum.
  double max = 0;           ///< Exact maximum.
  double p0_1 = 0;          ///< 0.1th percentile (slow tail of bandwidths).
  double p1 = 0;            ///< 1st percentile (slow tail of bandwidths).
  double median = 0;        ///< 50th percentile.
  double p99 = 0;           ///< 99th percentile (slow tail of latencies).
  double p99_9 = 0;         ///< 99.9th percentile.

  /// The "99%" tail figure in the direction that hurts: p99 for latencies, p1 for bandwidths.
  [[nodiscard]] double tail99(Better better) const noexcept { return better == Better::kLower ? p99 : p1; }
  /// The "99.9%" tail figure in the direction that hurts.
  [[nodiscard]] double tail99_9(Better better) const noexcept {
    return better == Better::kLower ? p99_9 : p0_1;
  }
};

/// Summarises a histogram; every field is NaN (count 0) when it is empty.
[[nodiscard]] Summary summarize(const LogHistogram& histogram) noexcept;

/// Congestion Impact (GPCNeT Eq. 1-2): loaded/isolated for latencies, isolated/loaded for
/// bandwidths, so that values above 1 always mean "congestion hurt". NaN if either input is
/// not a positive finite number.
[[nodiscard]] double congestion_impact(double isolated, double loaded, Better better) noexcept;

/// A two-sided 95% confidence interval of an estimate (confidence_interval_mean(),
/// confidence_interval_quantile()).
struct ConfidenceInterval {
  double estimate = std::numeric_limits<double>::quiet_NaN();  ///< The point estimate.
  double low = std::numeric_limits<double>::quiet_NaN();       ///< Lower end.
  double high = std::numeric_limits<double>::quiet_NaN();      ///< Upper end.
  std::uint64_t samples = 0;                                   ///< Samples it was computed from.
  /// false when the samples are too few for a 95% interval (fewer than 2, or a quantile whose
  /// interval would need order statistics beyond the smallest or the largest sample): the ends
  /// are then those of the samples and relative_half_width() is infinite.
  bool bounded = false;

  /// The larger distance from the estimate to an end, over |estimate|: infinite when not
  /// bounded or the estimate is 0, NaN when there is no estimate.
  [[nodiscard]] double relative_half_width() const noexcept;
};

/// The 0.975 quantile of Student's t distribution with `dof` degrees of freedom (12.706 for 1,
/// 1.960 in the limit): a table to 30, a Cornish-Fisher expansion beyond (error below 1e-5).
/// NaN for 0.
[[nodiscard]] double student_t_975(std::uint64_t dof) noexcept;

/// 95% confidence interval of the mean of a series of possibly autocorrelated values (such as
/// successive iterations of a benchmark), by batch means: the series is cut into k contiguous
/// batches (k = n up to 10 values, then max(10, floor(sqrt(n)))) and the interval is a t interval
/// (k - 1 degrees of freedom) over the batch means; neighbouring values that move together then
/// widen the interval instead of hiding in it. The estimate is the mean of all values.
[[nodiscard]] ConfidenceInterval confidence_interval_mean(std::span<const double> values);

/// The design effect of values that come in clusters of `cluster_size` (values [k m, (k + 1) m)
/// are cluster k; a last partial cluster is left out): 1 + (m - 1) rho, with rho the intraclass
/// correlation of a one-way analysis of variance, clamped to [0, 1] (1 when every value is
/// equal). n values are worth n / design effect independent ones (Kish): m when the values of a
/// cluster move together, 1 when they are independent. 1 for fewer than 2 clusters or m < 2.
[[nodiscard]] double design_effect(std::span<const double> values, std::size_t cluster_size) noexcept;

/// 95% confidence interval of the `q`-quantile (0 < q < 1) of the population `values` were drawn
/// from, by order statistics (distribution-free): the number of samples below the quantile is
/// binomial (n, q), so the l-th and u-th smallest samples with l = floor(nq - 1.96
/// sqrt(nq(1-q) d)) and u = ceil(nq + 1.96 sqrt(nq(1-q) d)) bracket it with about 95%
/// confidence, d the design effect of correlated samples (1: independent; design_effect()). The
/// estimate is the nearest-rank quantile (the ceil(nq)-th smallest). Reorders `values`.
[[nodiscard]] ConfidenceInterval confidence_interval_quantile(std::vector<double>& values, double q,
                                                              double design = 1.0);

}  // namespace gridlock
