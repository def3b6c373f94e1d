#include "gridlock/noise/measure.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "detail/clock.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::noise {
namespace {

template <typename Read>
Calibration calibrate_with(Read read, std::uint32_t block, std::uint32_t stable_blocks) {
  Calibration c;
  c.t_min_ticks = std::numeric_limits<std::uint64_t>::max();
  std::uint32_t stable = 0;
  // The reads of a block are stored and their gaps taken afterwards (a store per read, like the
  // subtraction and compare per read of the measurement loop).
  std::vector<std::uint64_t> reads(std::size_t{block} + 1);
  const std::uint64_t give_up_ns = detail::read_monotonic_ns_inline() + 2'000'000'000ULL;
  while (stable < stable_blocks) {
    for (std::uint64_t& r : reads) {
      r = read();
    }
    for (std::size_t i = 0; i + 1 < reads.size(); ++i) {
      reads[i] = reads[i + 1] - reads[i];
    }
    const std::uint64_t t_min = block_t_min(std::span<std::uint64_t>(reads.data(), block));
    ++c.blocks;
    if (t_min > 0 && t_min < c.t_min_ticks) {
      c.t_min_ticks = t_min;
      stable = 0;
    } else {
      ++stable;
    }
    if (detail::read_monotonic_ns_inline() > give_up_ns) {
      break;
    }
  }
  if (c.t_min_ticks == std::numeric_limits<std::uint64_t>::max()) {
    throw Error("the timer never advanced during calibration; try --timer monotonic");
  }
  return c;
}

// The hot loop: one read, one subtraction, one compare per iteration, plus the end check.
// t_min is fixed beforehand, so there is no minimum update here (paper §II).
template <typename Read>
void detour_loop(Read read, std::uint64_t threshold_ticks, std::uint64_t span_ticks, double ticks_per_ns,
                 std::uint64_t max_detours, Measurement& m) {
  std::vector<Detour>& list = m.trace.detours;
  list.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(max_detours, 1U << 16U)));
  const std::uint64_t begin = read();
  std::uint64_t prev = begin;
  std::uint64_t iterations = 0;
  std::uint64_t now = begin;
  do {
    now = read();
    ++iterations;
    if (now - prev > threshold_ticks) [[unlikely]] {
      const auto start_ns = static_cast<std::uint64_t>(static_cast<double>(prev - begin) / ticks_per_ns);
      const auto length_ns = static_cast<std::uint64_t>(static_cast<double>(now - prev) / ticks_per_ns);
      ++m.detour_count;
      m.detour_total_ns += length_ns;
      m.lengths_ns.record(static_cast<double>(length_ns));
      if (list.size() < max_detours) {
        // Rounding to ns can make two adjacent detours touch; keep the list non-overlapping.
        const std::uint64_t floor_ns = list.empty() ? 0 : list.back().start_ns + list.back().length_ns;
        const std::uint64_t s = std::max(start_ns, floor_ns);
        if (length_ns > 0 && s + length_ns > s) {
          list.push_back(Detour{s, length_ns});
        }
      } else {
        ++m.detours_not_listed;
      }
      // Recording costs far more than t_min; read the clock again so that cost is not taken
      // for the next detour (the blind spot is the recording itself, see docs/noise.md).
      now = read();
    }
    prev = now;
  } while (now - begin < span_ticks);
  m.iterations = iterations;
  m.measured_ns = static_cast<std::uint64_t>(static_cast<double>(now - begin) / ticks_per_ns);
}

Summary summarize_lengths(const std::vector<Detour>& detours, double cutoff_ns, std::uint64_t& outliers,
                          std::uint64_t& outlier_total_ns) {
  LogHistogram h;
  outliers = 0;
  outlier_total_ns = 0;
  for (const Detour& d : detours) {
    if (cutoff_ns > 0 && static_cast<double>(d.length_ns) > cutoff_ns) {
      ++outliers;
      outlier_total_ns += d.length_ns;
      continue;
    }
    h.record(static_cast<double>(d.length_ns));
  }
  return gridlock::summarize(h);
}

}  // namespace

std::uint64_t block_t_min(std::span<std::uint64_t> gaps) {
  // A zero gap means the clock did not tick between two reads (coarse clock): it says nothing
  // about the loop overhead, so only positive gaps count.
  const auto positive_end = std::partition(gaps.begin(), gaps.end(), [](std::uint64_t g) { return g > 0; });
  const auto positive = static_cast<std::size_t>(positive_end - gaps.begin());
  if (positive == 0) {
    return 0;
  }
  const auto nth = gaps.begin() + static_cast<std::ptrdiff_t>(positive / 2);
  std::nth_element(gaps.begin(), nth, positive_end);
  return *nth;
}

Calibration calibrate(const Timer& timer, std::uint32_t block, std::uint32_t stable_blocks) {
  if (timer.kind == TimerKind::kTsc) {
    return calibrate_with([] { return detail::read_tsc_inline(); }, block, stable_blocks);
  }
  return calibrate_with([] { return detail::read_monotonic_ns_inline(); }, block, stable_blocks);
}

void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    throw InputError(fmt::format("--cpu {} is out of range", cpu));
  }
  CPU_SET(static_cast<unsigned>(cpu), &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw InputError(fmt::format(
        "cannot pin to CPU {} (sched_setaffinity failed, errno {}): choose a CPU this process may use "
        "(see `taskset -p $$`) or leave out --cpu",
        cpu, errno));
  }
}

// The longest measurement: a day. It also bounds a meaningful --outlier-cutoff.
constexpr double kMaxMeasureSeconds = 86400;

void check_measure_options(const MeasureOptions& options) {
  if (!(options.duration_s > 0) || options.duration_s > kMaxMeasureSeconds) {
    throw InputError(fmt::format("--duration must be in (0, 1 day], not {} s", options.duration_s));
  }
  if (!(options.threshold > 1) || !std::isfinite(options.threshold)) {
    throw InputError(fmt::format("--threshold must be > 1 (a multiple of t_min), not {}", options.threshold));
  }
  if (options.cpu < -1) {
    throw InputError(
        fmt::format("--cpu {}: give a CPU number (0 or more) to pin to, or leave out --cpu", options.cpu));
  }
  if (options.cpu >= CPU_SETSIZE) {
    throw InputError(
        fmt::format("--cpu {} is out of range (CPU numbers go up to {})", options.cpu, CPU_SETSIZE - 1));
  }
}

void check_outlier_cutoff(double cutoff_s) {
  if (!(cutoff_s >= 0) || cutoff_s > kMaxMeasureSeconds) {
    throw InputError(
        fmt::format("--outlier-cutoff must be at most 1 day (no detour outlasts the measurement; 0 turns it "
                    "off), not {} s",
                    cutoff_s));
  }
}

Measurement measure(const MeasureOptions& options) {
  check_measure_options(options);
  if (options.cpu >= 0) {
    pin_to_cpu(options.cpu);
  }
  Measurement m;
  m.timer = make_timer(options.timer);
  m.cpu = options.cpu;
  m.threshold = options.threshold;
  m.calibration = calibrate(m.timer, options.calibration_block, options.calibration_stable_blocks);
  m.t_min_ns = m.timer.to_ns(m.calibration.t_min_ticks);
  // Saturating: a huge --threshold means "no gap is a detour", not a wrapped-around small one.
  const double threshold_ticks_exact = options.threshold * static_cast<double>(m.calibration.t_min_ticks);
  const std::uint64_t threshold_ticks =
      threshold_ticks_exact >= 0x1p64 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(threshold_ticks_exact);
  const auto span_ticks = static_cast<std::uint64_t>(options.duration_s * 1e9 * m.timer.ticks_per_ns);
  if (m.timer.kind == TimerKind::kTsc) {
    detour_loop([] { return detail::read_tsc_inline(); }, threshold_ticks, span_ticks, m.timer.ticks_per_ns,
                options.max_detours, m);
  } else {
    detour_loop([] { return detail::read_monotonic_ns_inline(); }, threshold_ticks, span_ticks, 1.0,
                options.max_detours, m);
  }
  m.trace.duration_ns = std::max(m.measured_ns, m.trace.last_detour_end_ns());
  return m;
}

NoiseSummary summarize(const Measurement& m, double outlier_cutoff_ns) {
  NoiseSummary s;
  s.t_min_ns = m.t_min_ns;
  s.iterations = m.iterations;
  s.measured_s = static_cast<double>(m.measured_ns) / 1e9;
  s.sampling_rate_hz = s.measured_s > 0 ? static_cast<double>(m.iterations) / s.measured_s : 0;
  s.detours = m.detour_count;
  s.detours_per_s = s.measured_s > 0 ? static_cast<double>(m.detour_count) / s.measured_s : 0;
  s.noise_fraction =
      m.measured_ns > 0 ? static_cast<double>(m.detour_total_ns) / static_cast<double>(m.measured_ns) : 0;
  s.lengths_ns = gridlock::summarize(m.lengths_ns);
  s.outlier_cutoff_ns = outlier_cutoff_ns;
  // Outliers are found among the listed detours (all of them unless --max-detours was reached).
  std::uint64_t outlier_ns = 0;
  s.lengths_no_outliers_ns = summarize_lengths(m.trace.detours, outlier_cutoff_ns, s.outliers, outlier_ns);
  s.noise_fraction_no_outliers = m.measured_ns > 0 ? static_cast<double>(m.detour_total_ns - outlier_ns) /
                                                         static_cast<double>(m.measured_ns)
                                                   : 0;
  return s;
}

namespace {

// A length in ns for the report, "-" when there is none (no detours).
std::string fmt_ns(double ns) {
  if (std::isnan(ns)) {
    return "-";
  }
  return format_duration_s(ns * 1e-9);
}

}  // namespace

std::string measurement_text(const Measurement& m, const NoiseSummary& s) {
  std::string out;
  const auto line = [&out](const std::string& text) { out += text + "\n"; };
  line(fmt::format("timer: {} ({:.4f} ticks/ns), CPU {}", m.timer.name(), m.timer.ticks_per_ns,
                   m.cpu >= 0 ? std::to_string(m.cpu) : std::string("not pinned")));
  line(fmt::format("t_min: {} ({} calibration blocks); threshold {} x t_min = {}", fmt_ns(s.t_min_ns),
                   m.calibration.blocks, m.threshold, fmt_ns(m.threshold * s.t_min_ns)));
  line(fmt::format("measured: {}, {} iterations, sampling rate {:.1f} MHz", format_duration_s(s.measured_s),
                   s.iterations, s.sampling_rate_hz / 1e6));
  line(fmt::format("detours: {} ({:.1f}/s), noise fraction {:.4f}%", s.detours, s.detours_per_s,
                   100.0 * s.noise_fraction));
  line("| detour length | min | median | 99% | 99.9% | max |");
  line(fmt::format("| all | {} | {} | {} | {} | {} |", fmt_ns(s.lengths_ns.min), fmt_ns(s.lengths_ns.median),
                   fmt_ns(s.lengths_ns.p99), fmt_ns(s.lengths_ns.p99_9), fmt_ns(s.lengths_ns.max)));
  const double cutoff_ns = s.outlier_cutoff_ns;
  if (cutoff_ns > 0) {
    const Summary& n = s.lengths_no_outliers_ns;
    line(fmt::format("| <= {} | {} | {} | {} | {} | {} |", fmt_ns(cutoff_ns), fmt_ns(n.min), fmt_ns(n.median),
                     fmt_ns(n.p99), fmt_ns(n.p99_9), fmt_ns(n.max)));
    line(fmt::format("outliers above {}: {}; noise fraction without them {:.4f}%", fmt_ns(cutoff_ns),
                     s.outliers, 100.0 * s.noise_fraction_no_outliers));
  }
  if (m.detours_not_listed > 0) {
    line(fmt::format(
        "note: {} detours beyond --max-detours are in the totals and the histogram, not in the trace",
        m.detours_not_listed));
  }
  return out;
}

std::vector<std::vector<std::string>> histogram_rows(const LogHistogram& h) {
  std::vector<std::vector<std::string>> rows;
  const auto counts = h.bucket_counts();
  for (std::size_t b = 0; b < LogHistogram::kRegularBuckets; ++b) {
    if (counts[b] != 0) {
      rows.push_back({fmt::format("{:.6g}", LogHistogram::bucket_lower(b)),
                      fmt::format("{:.6g}", LogHistogram::bucket_upper(b)), std::to_string(counts[b])});
    }
  }
  if (counts[LogHistogram::kOverflowBucket] != 0) {
    rows.push_back({fmt::format("{:.6g}", LogHistogram::bucket_upper(LogHistogram::kRegularBuckets - 1)),
                    "inf", std::to_string(counts[LogHistogram::kOverflowBucket])});
  }
  return rows;
}

}  // namespace gridlock::noise
