#include "gridlock/core/stats.hpp"

#include <cmath>
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

}  // namespace gridlock
