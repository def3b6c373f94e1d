#include "gridlock/core/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock {
namespace {

constexpr std::uint64_t kExponentBias = 1023;
constexpr unsigned kMantissaBits = 52;
constexpr std::uint64_t kSubBucketMask = (std::uint64_t{1} << LogHistogram::kSubBucketBits) - 1U;

}  // namespace

LogHistogram::LogHistogram()
    : buckets_(kBucketCount, 0),
      min_(std::numeric_limits<double>::infinity()),
      max_(-std::numeric_limits<double>::infinity()) {}

std::size_t LogHistogram::bucket_of(double value) noexcept {
  if (!(value > 0.0)) {
    return kUnderflowBucket;
  }
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const auto biased_exponent = static_cast<std::int64_t>(bits >> kMantissaBits);
  const std::int64_t exponent = biased_exponent - static_cast<std::int64_t>(kExponentBias);
  if (exponent < kMinExponent) {
    return kUnderflowBucket;
  }
  if (exponent >= kMaxExponent) {
    return kOverflowBucket;
  }
  const std::uint64_t sub = (bits >> (kMantissaBits - kSubBucketBits)) & kSubBucketMask;
  return (static_cast<std::size_t>(exponent - kMinExponent) << kSubBucketBits) | sub;
}

double LogHistogram::bucket_lower(std::size_t bucket) noexcept {
  const auto exponent = static_cast<int>(bucket >> kSubBucketBits) + kMinExponent;
  const auto sub = static_cast<double>(bucket & kSubBucketMask);
  return std::ldexp(1.0 + sub / static_cast<double>(1U << kSubBucketBits), exponent);
}

double LogHistogram::bucket_upper(std::size_t bucket) noexcept {
  const auto exponent = static_cast<int>(bucket >> kSubBucketBits) + kMinExponent;
  const auto sub = static_cast<double>((bucket & kSubBucketMask) + 1U);
  return std::ldexp(1.0 + sub / static_cast<double>(1U << kSubBucketBits), exponent);
}

void LogHistogram::record(double value) noexcept {
  if (std::isnan(value)) {
    ++nan_count_;
    return;
  }
  ++buckets_[bucket_of(value)];
  ++count_;
  sum_ += value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void LogHistogram::merge(const LogHistogram& other) noexcept {
  for (std::size_t i = 0; i < kBucketCount; ++i) {
    buckets_[i] += other.buckets_[i];
  }
  count_ += other.count_;
  nan_count_ += other.nan_count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LogHistogram::clear() noexcept {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
  nan_count_ = 0;
  sum_ = 0.0;
  min_ = std::numeric_limits<double>::infinity();
  max_ = -std::numeric_limits<double>::infinity();
}

double LogHistogram::mean() const noexcept {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN() : sum_ / static_cast<double>(count_);
}

double LogHistogram::quantile(double q) const noexcept {
  if (count_ == 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  q = std::clamp(q, 0.0, 1.0);
  // Nearest rank: the smallest sample with at least ceil(q*n) samples at or below it.
  const auto rank =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  if (rank == 1) {
    return min_;
  }
  if (rank == count_) {
    return max_;
  }
  std::uint64_t seen = buckets_[kUnderflowBucket];
  if (seen >= rank) {
    return min_;  // The answer is below the tracked range; min is the best exact bound.
  }
  for (std::size_t i = 0; i < kRegularBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      const double mid = 0.5 * (bucket_lower(i) + bucket_upper(i));
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

LogHistogram LogHistogram::from_parts(std::span<const std::uint64_t> counts, double sum, double min,
                                      double max, std::uint64_t nan_count) {
  if (counts.size() != kBucketCount) {
    throw InputError(fmt::format("histogram has {} buckets, expected {}", counts.size(), kBucketCount));
  }
  LogHistogram result;
  std::copy(counts.begin(), counts.end(), result.buckets_.begin());
  for (const auto c : counts) {
    result.count_ += c;
  }
  result.sum_ = sum;
  result.min_ = min;
  result.max_ = max;
  result.nan_count_ = nan_count;
  return result;
}

}  // namespace gridlock
