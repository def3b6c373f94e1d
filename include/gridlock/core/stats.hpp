#pragma once
/// @file
/// Summary statistics and the Congestion Impact metric.

#include <cstdint>

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

}  // namespace gridlock
