#pragma once
// What the sources do with bytes beyond a link's capacity (private; docs/oracle.md, "Used
// bandwidth above 100%").
#include <cstdint>

namespace gridlock::oracle::detail {

// A link cannot carry more than its capacity. Up to kMaxOvershoot times it, the excess is taken
// for sampling jitter (a sample stamped a little late) or a capacity slightly off, and the
// interval is stored at 100%; beyond it the figure is not a measurement (a counter reset or
// garbage, a wrong unit or capacity) and is not stored. Either way the source reports it.
inline constexpr double kMaxOvershoot = 2.0;

enum class Verdict : std::uint8_t {
  kOk,       // within capacity: stored as it is
  kClamped,  // over capacity, at most kMaxOvershoot times: stored as capacity * interval
  kRejected  // more than kMaxOvershoot times the capacity: not stored
};

struct CapacityCheck {
  Verdict verdict = Verdict::kOk;
  double bytes = 0;    // what to store (kOk, kClamped)
  double percent = 0;  // the figure as given, in percent of capacity (0 when capacity is unknown)
};

// Checks `bytes` carried in `interval_s` seconds on a link of `capacity_bytes_per_s` (unchecked
// when the capacity or interval is not positive).
inline CapacityCheck check_capacity(double bytes, double interval_s, double capacity_bytes_per_s) {
  CapacityCheck out;
  out.bytes = bytes;
  if (!(capacity_bytes_per_s > 0) || !(interval_s > 0)) {
    return out;
  }
  const double full = capacity_bytes_per_s * interval_s;
  out.percent = 100 * bytes / full;
  // 1e-9 relative: a percentage of exactly 100 converted to bytes and back is not rounded up.
  if (bytes <= full * (1 + 1e-9)) {
    return out;
  }
  if (bytes <= full * kMaxOvershoot) {
    out.verdict = Verdict::kClamped;
    out.bytes = full;
    return out;
  }
  out.verdict = Verdict::kRejected;
  return out;
}

}  // namespace gridlock::oracle::detail
