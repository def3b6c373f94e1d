#pragma once
/// @file
/// Mergeable log-bucketed histogram with bounded relative error, for latency and bandwidth samples.

#include <cstdint>
#include <span>
#include <vector>

namespace gridlock {

/// A histogram of positive samples whose quantiles have relative error <= 1/256 (0.39%).
///
/// Buckets follow the binary representation of a double: each power of two [2^e, 2^(e+1)) is
/// split into 128 equal sub-buckets, so the bucket index is read from the exponent and the top
/// seven mantissa bits (no logarithm in the hot path). A quantile is reported as the midpoint of
/// its bucket, clamped to the exact [min, max]: for a true value x in [lo, hi) the error is at
/// most (hi - lo) / 2 / lo <= 1/256 of x. The range is [2^-30, 2^34) (about 1e-9 .. 1.7e10);
/// samples outside it (and non-positive ones) are counted in an underflow or overflow bucket and
/// are still exact in min, max, mean. Memory is fixed (64 KiB) whatever the number of samples,
/// and two histograms merge exactly by adding counts.
class LogHistogram {
 public:
  /// Sub-buckets per power of two, as a power of two.
  static constexpr int kSubBucketBits = 7;
  /// Smallest binary exponent tracked with full resolution.
  static constexpr int kMinExponent = -30;
  /// One past the largest binary exponent tracked with full resolution.
  static constexpr int kMaxExponent = 34;
  /// Number of regular buckets.
  static constexpr std::size_t kRegularBuckets = static_cast<std::size_t>(kMaxExponent - kMinExponent)
                                                 << kSubBucketBits;
  /// Index of the underflow bucket (values < 2^kMinExponent, including <= 0).
  static constexpr std::size_t kUnderflowBucket = kRegularBuckets;
  /// Index of the overflow bucket (values >= 2^kMaxExponent, infinities).
  static constexpr std::size_t kOverflowBucket = kRegularBuckets + 1;
  /// Total bucket count, including underflow and overflow.
  static constexpr std::size_t kBucketCount = kRegularBuckets + 2;
  /// Worst-case relative error of a reported quantile inside the regular range.
  static constexpr double kMaxRelativeError = 1.0 / 256.0;

  /// An empty histogram.
  LogHistogram();

  /// Adds one sample. NaN is ignored (counted in `nan_count`) so a failed timer cannot poison sums.
  void record(double value) noexcept;
  /// Adds all samples of `other`: the result is exactly the histogram of the union.
  void merge(const LogHistogram& other) noexcept;
  /// Removes every sample.
  void clear() noexcept;

  /// Number of recorded samples (NaNs excluded).
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  /// Number of NaN samples that were ignored.
  [[nodiscard]] std::uint64_t nan_count() const noexcept { return nan_count_; }
  /// Exact sum of the samples (floating-point summation).
  [[nodiscard]] double sum() const noexcept { return sum_; }
  /// Exact smallest sample; +inf when empty.
  [[nodiscard]] double min() const noexcept { return min_; }
  /// Exact largest sample; -inf when empty.
  [[nodiscard]] double max() const noexcept { return max_; }
  /// Exact mean; NaN when empty.
  [[nodiscard]] double mean() const noexcept;
  /// Nearest-rank quantile for q in [0, 1] (the ceil(q*n)-th smallest sample, q=0 gives min),
  /// within kMaxRelativeError of the exact nearest-rank quantile. NaN when empty.
  [[nodiscard]] double quantile(double q) const noexcept;

  /// Raw bucket counts (kBucketCount entries), for reductions across processes.
  [[nodiscard]] std::span<const std::uint64_t> bucket_counts() const noexcept { return buckets_; }
  /// Rebuilds a histogram from reduced parts (bucket counts summed, sum summed, min/max reduced).
  /// Throws InputError if `counts` has the wrong length.
  [[nodiscard]] static LogHistogram from_parts(std::span<const std::uint64_t> counts, double sum, double min,
                                               double max, std::uint64_t nan_count);

  /// Bucket index of a value.
  [[nodiscard]] static std::size_t bucket_of(double value) noexcept;
  /// Inclusive lower bound of a regular bucket.
  [[nodiscard]] static double bucket_lower(std::size_t bucket) noexcept;
  /// Exclusive upper bound of a regular bucket.
  [[nodiscard]] static double bucket_upper(std::size_t bucket) noexcept;

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::uint64_t nan_count_ = 0;
  double sum_ = 0.0;
  double min_;
  double max_;
};

}  // namespace gridlock
