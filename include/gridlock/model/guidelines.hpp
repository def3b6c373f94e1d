#pragma once
/// @file
/// The self-consistent MPI performance guidelines (Traeff, Gropp, Thakur 2010) checked on a
/// measured sweep: each guideline compares one collective with a composition of others at every
/// size and communicator size where all of them were measured (docs/model.md).

#include <cstdint>
#include <string>
#include <vector>

namespace gridlock::model {

// Declared, not included: sweep.hpp carries the sweep file's JSON context, and this header is plain.
struct Sweep;

/// How `check_guidelines` decides.
struct CheckOptions {
  double level = 0.05;             ///< Significance level of the one-sided rank-sum test.
  double tolerance = 0.05;         ///< lhs may exceed rhs by this fraction before it counts as a violation.
  std::uint64_t seed = 1;          ///< Seed of the resampling that forms sums of rhs samples.
  std::uint32_t resamples = 1000;  ///< Sums drawn for a composed rhs (independent resamples).
};

/// One guideline at one size and communicator size.
struct CheckResult {
  std::string guideline;         ///< `allreduce(n) <= reduce(n) + bcast(n)`.
  std::uint64_t size_bytes = 0;  ///< n (bytes per rank).
  std::uint32_t ranks = 0;       ///< p (for monotony: the larger communicator).
  double lhs_median_us = 0;      ///< Median of the left side.
  double rhs_median_us = 0;      ///< Median of the right side (of the sums when composed).
  double factor = 0;             ///< lhs_median / rhs_median.
  std::string test;              ///< `rank-sum` (samples on both sides) or `tolerance` (medians only).
  double p_value = 1;            ///< One-sided p-value of "lhs is slower" (rank-sum only; 1 otherwise).
  bool violated = false;         ///< The guideline does not hold (see docs/model.md for the rule).
};

/// Everything `gridlock model check` finds.
struct CheckReport {
  std::vector<CheckResult> results;      ///< One per guideline, size and p that could be checked.
  std::vector<std::string> not_checked;  ///< "allgather(n) <= ...: not checked: needs gather at 1 KiB (p=4)".
  /// Number of violations.
  [[nodiscard]] std::size_t violations() const;
};

/// Checks every guideline on `sweep`. Throws InputError when no guideline could be checked at all
/// (the message lists what each one needs).
[[nodiscard]] CheckReport check_guidelines(const Sweep& sweep, const CheckOptions& options);

/// The table of `gridlock model check`: its settings, one row per check (guideline, p, size, the
/// two medians, their ratio, the test, its p-value, the result), then what was not checked.
[[nodiscard]] std::string check_table(const CheckReport& report, const CheckOptions& options);

/// The summary `gridlock model check` always prints: how many checks were violated, and a line
/// per violation.
[[nodiscard]] std::string check_summary(const CheckReport& report);

/// One-sided Mann-Whitney U (Wilcoxon rank-sum) test, normal approximation with tie correction and
/// continuity correction: the p-value of H1 "values of `a` tend to be larger than those of `b`".
/// 1 when either side is empty or every value is tied.
[[nodiscard]] double rank_sum_p_value(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace gridlock::model
