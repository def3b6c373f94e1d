#pragma once
// Small order statistics shared by the fits and the guideline checks.

#include <algorithm>
#include <vector>

namespace gridlock::model::detail {

// Median of a non-empty list (the mean of the two middle values for an even count).
inline double median(std::vector<double> values) {
  const std::size_t n = values.size();
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  const double upper = *mid;
  if (n % 2 == 1) {
    return upper;
  }
  return (*std::max_element(values.begin(), mid) + upper) / 2;
}

}  // namespace gridlock::model::detail
