#pragma once
// What the sources do with bytes beyond a link's capacity and stalls longer than their interval
// (private; docs/oracle.md, "Used bandwidth and stalls above 100%").
#include <cstdint>

namespace gridlock::oracle::detail {

// A link cannot carry more than its capacity, nor stall for longer than the interval. Up to
// kMaxOvershoot times the limit, the excess is taken for sampling jitter (a sample stamped a
// little late) or a capacity or unit slightly off, and the interval is stored at 100%; beyond it
// the figure is not a measurement (a counter reset or garbage, a wrong unit or capacity) and is
// not stored. Either way the source reports it.
inline constexpr double kMaxOvershoot = 2.0;

enum class Verdict : std::uint8_t {
  kOk,       // within the limit: stored as it is
  kClamped,  // over the limit, at most kMaxOvershoot times: stored as the limit
  kRejected  // more than kMaxOvershoot times the limit: not stored
};

struct LimitCheck {
  Verdict verdict = Verdict::kOk;
  double amount = 0;   // what to store (kOk, kClamped): bytes, or seconds stalled
  double percent = 0;  // the figure as given, in percent of the limit (0 when the limit is unknown)
};

// Checks `amount` against `limit` (unchecked when the limit is not positive).
inline LimitCheck check_limit(double amount, double limit) {
  LimitCheck out;
  out.amount = amount;
  if (!(limit > 0)) {
    return out;
  }
  out.percent = 100 * amount / limit;
  // 1e-9 relative: a percentage of exactly 100 converted to bytes or seconds and back is not
  // rounded up.
  if (amount <= limit * (1 + 1e-9)) {
    return out;
  }
  if (amount <= limit * kMaxOvershoot) {
    out.verdict = Verdict::kClamped;
    out.amount = limit;
    return out;
  }
  out.verdict = Verdict::kRejected;
  return out;
}

// Checks `bytes` carried in `interval_s` seconds on a link of `capacity_bytes_per_s` (unchecked
// when the capacity or interval is not positive).
inline LimitCheck check_capacity(double bytes, double interval_s, double capacity_bytes_per_s) {
  if (!(capacity_bytes_per_s > 0) || !(interval_s > 0)) {
    return check_limit(bytes, 0);
  }
  return check_limit(bytes, capacity_bytes_per_s * interval_s);
}

// Checks `stall_s` seconds stalled in `interval_s` seconds (unchecked when the interval is not
// positive).
inline LimitCheck check_stall(double stall_s, double interval_s) { return check_limit(stall_s, interval_s); }

}  // namespace gridlock::oracle::detail
