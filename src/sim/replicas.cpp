#include "gridlock/sim/replicas.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <mutex>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/threads.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/replica_report_json.hpp"

namespace gridlock::sim {

LogGOPSParams scale_network(LogGOPSParams p, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) {
    throw InputError(fmt::format("--network-scale must be a positive number, not {}", factor));
  }
  if (factor == 1.0) {
    return p;
  }
  // std::llround is undefined beyond 2^63 (x86 returns 2^63): check the product against 2^64 ps.
  const auto scale = [&](SimTime t, std::string_view name) {
    const double ps = std::round(static_cast<double>(t.ps) * factor);
    if (ps >= 0x1p64) {
      throw InputError(
          fmt::format("--network-scale {}: {} = {} ps x {} is beyond 2^64 ps (about 213 days), the "
                      "simulator's time range; "
                      "use a smaller factor",
                      factor, name, t.ps, factor));
    }
    return SimTime{static_cast<std::uint64_t>(ps)};
  };
  p.latency = scale(p.latency, "L");
  p.gap = scale(p.gap, "g");
  p.gap_per_byte = scale(p.gap_per_byte, "G");
  return p;
}

std::vector<std::uint32_t> parse_scales(const std::string& text) {
  std::vector<std::uint32_t> out;
  if (text.empty()) {
    return out;
  }
  for (const std::string_view part : split(text, ',')) {
    const std::string s(part);
    char* end = nullptr;
    const std::uint64_t v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || s.front() == '-' || end != s.c_str() + s.size() || v == 0 || v > kMaxRanks) {
      throw InputError(
          fmt::format("--ranks '{}': '{}' is not a rank count in [1, {}]; give N or a list N1,N2,...", text,
                      s, kMaxRanks));
    }
    out.push_back(static_cast<std::uint32_t>(v));
  }
  // A scale given twice would be simulated and listed twice.
  std::vector<std::uint32_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) {
    throw InputError(
        fmt::format("--ranks '{}': {} ranks is given twice; give each scale once", text, *twice));
  }
  return out;
}

NoiseInjection make_noise_injection(const noise::DetourPattern& pattern, std::uint32_t ranks,
                                    std::uint64_t seed, std::uint64_t replica, bool cosched) {
  NoiseInjection n;
  n.pattern = &pattern;
  const std::uint64_t replica_seed = derive_seed(seed, replica);
  if (cosched) {
    Rng rng(replica_seed);
    n.offset_ps.push_back(uniform_below(rng, pattern.period_ps()));
    return n;
  }
  n.offset_ps.resize(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    Rng rng(derive_seed(replica_seed, r));
    n.offset_ps[r] = uniform_below(rng, pattern.period_ps());
  }
  return n;
}

void check_replica_count(std::uint64_t replicas) {
  if (replicas == 0 || replicas > kMaxReplicas) {
    throw InputError(fmt::format(
        "--replicas {}: give 1 to {} replicas per scale (each replica's completion time is kept and written "
        "to --json); for more, run several studies with different --seed values",
        replicas, kMaxReplicas));
  }
}

void check_thread_count(unsigned threads) {
  if (threads > kMaxReplicaThreads) {
    throw InputError(
        fmt::format("--threads {}: give 1 to {} threads (each simulates whole replicas, so more "
                    "threads than cores only cost memory)",
                    threads, kMaxReplicaThreads));
  }
}

std::vector<std::uint64_t> run_replicas(const Schedule& schedule, const SimOptions& options,
                                        const ReplicaConfig& config, std::uint64_t begin, std::uint64_t end) {
  if (config.pattern == nullptr) {
    throw InputError("run_replicas needs a noise pattern");
  }
  if (end < begin || end - begin > kMaxReplicas) {
    throw InputError(fmt::format("replicas [{}, {}): at most {} replicas at once", begin, end, kMaxReplicas));
  }
  check_thread_count(config.threads);
  std::vector<std::uint64_t> out(end - begin);
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  const auto worker = [&] {
    try {
      for (;;) {
        const std::uint64_t i = next.fetch_add(1);
        if (i >= out.size()) {
          return;
        }
        const NoiseInjection noise = make_noise_injection(*config.pattern, schedule.num_ranks(), config.seed,
                                                          begin + i, config.cosched);
        SimOptions o = options;
        o.record_timeline = false;
        o.progress = nullptr;  // Replicas report through ReplicaConfig::progress, from several threads.
        o.noise = &noise;
        const SimResult r = simulate(schedule, o);
        if (!r.complete) {
          throw InputError("a noisy replica did not complete: " + stuck_report(r));
        }
        out[i] = r.max_finish.ps;
        const std::uint64_t finished = done.fetch_add(1) + 1;
        if (config.progress) {
          config.progress(finished);
        }
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) {
        error = std::current_exception();
      }
      next.store(out.size());
    }
  };
  const unsigned threads =
      std::max(1U, std::min<unsigned>(config.threads, static_cast<unsigned>(out.size())));
  // Every worker takes replicas from the shared counter until none is left, so a worker that
  // run_on_threads runs here for want of a thread (ulimit -u) only makes the study slower.
  run_on_threads(threads, [&](unsigned /*thread*/) { worker(); });
  if (error) {
    std::rethrow_exception(error);
  }
  return out;
}

BoxStats box_stats(std::vector<std::uint64_t> values) {
  BoxStats b;
  b.count = values.size();
  if (values.empty()) {
    return b;
  }
  std::sort(values.begin(), values.end());
  const auto quantile = [&](double q) {
    const double h = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(h);
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return static_cast<double>(values[lo]) +
           (h - static_cast<double>(lo)) *
               (static_cast<double>(values[hi]) - static_cast<double>(values[lo]));
  };
  b.min = static_cast<double>(values.front());
  b.max = static_cast<double>(values.back());
  b.q1 = quantile(0.25);
  b.median = quantile(0.5);
  b.q3 = quantile(0.75);
  double sum = 0;
  for (const std::uint64_t v : values) {
    sum += static_cast<double>(v);
  }
  b.mean = sum / static_cast<double>(values.size());
  const double iqr = b.q3 - b.q1;
  b.whisker_low = b.max;
  b.whisker_high = b.min;
  for (const std::uint64_t v : values) {
    const auto x = static_cast<double>(v);
    if (x < b.q1 - 1.5 * iqr || x > b.q3 + 1.5 * iqr) {
      b.outliers.push_back(v);
    } else {
      b.whisker_low = std::min(b.whisker_low, x);
      b.whisker_high = std::max(b.whisker_high, x);
    }
  }
  return b;
}

double slowdown(double value_ps, double noiseless_ps) {
  return noiseless_ps > 0 ? value_ps / noiseless_ps - 1.0 : 0.0;
}

double median_slowdown(const ScaleResult& scale) {
  return slowdown(box_stats(scale.completion_ps).median, static_cast<double>(scale.noiseless_ps));
}

void check_bottleneck_threshold(double threshold) {
  if (!(threshold > 0) || !std::isfinite(threshold)) {
    throw InputError(fmt::format(
        "--bottleneck-slowdown must be a positive percentage (a median slowdown, e.g. 100), not {}",
        100 * threshold));
  }
}

NoiseBottleneck find_noise_bottleneck(const std::vector<ScaleResult>& scales, double threshold) {
  check_bottleneck_threshold(threshold);
  if (scales.empty()) {
    throw InputError("the noise bottleneck needs at least one scale");
  }
  struct Point {
    std::uint32_t ranks;
    double slowdown;
  };
  std::vector<Point> points;
  points.reserve(scales.size());
  for (const ScaleResult& scale : scales) {
    points.push_back(Point{scale.ranks, median_slowdown(scale)});
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.ranks < b.ranks; });
  NoiseBottleneck result;
  result.threshold = threshold;
  for (const Point& p : points) {
    if (p.slowdown > result.max_slowdown || result.max_ranks == 0) {
      result.max_ranks = p.ranks;
      result.max_slowdown = p.slowdown;
    }
  }
  // The first scale of the run of scales at the top that all reach the threshold: one noisy scale
  // above it, followed by smaller slowdowns again, does not count.
  std::size_t first = points.size();
  while (first > 0 && points[first - 1].slowdown >= threshold) {
    --first;
  }
  if (first == points.size()) {
    result.status = NoiseBottleneck::Status::kNotReached;
    return result;
  }
  result.ranks = points[first].ranks;
  result.slowdown = points[first].slowdown;
  if (first == 0) {
    result.status = NoiseBottleneck::Status::kAtOrBelowSmallest;
    return result;
  }
  result.status = NoiseBottleneck::Status::kWithin;
  result.below_ranks = points[first - 1].ranks;
  result.below_slowdown = points[first - 1].slowdown;
  return result;
}

std::string describe(const NoiseBottleneck& b) {
  const std::string head = fmt::format("noise bottleneck (median slowdown >= {:g}%):", 100 * b.threshold);
  switch (b.status) {
    case NoiseBottleneck::Status::kWithin:
      return fmt::format("{} at {} ranks ({} ranks: {:+.2f}%, {} ranks: {:+.2f}%)", head, b.ranks,
                         b.below_ranks, 100 * b.below_slowdown, b.ranks, 100 * b.slowdown);
    case NoiseBottleneck::Status::kAtOrBelowSmallest:
      return fmt::format(
          "{} at or below {} ranks, the smallest scale studied ({:+.2f}%); add smaller scales to "
          "place it",
          head, b.ranks, 100 * b.slowdown);
    case NoiseBottleneck::Status::kNotReached:
      break;
  }
  return fmt::format("{} not reached (largest median slowdown {:+.2f}% at {} ranks)", head,
                     100 * b.max_slowdown, b.max_ranks);
}

Json bottleneck_json(const NoiseBottleneck& b) {
  const char* status = b.status == NoiseBottleneck::Status::kWithin              ? "within"
                       : b.status == NoiseBottleneck::Status::kAtOrBelowSmallest ? "at_or_below_smallest"
                                                                                 : "not_reached";
  const bool found = b.status != NoiseBottleneck::Status::kNotReached;
  const bool within = b.status == NoiseBottleneck::Status::kWithin;
  return Json{{"threshold", b.threshold},
              {"status", status},
              {"ranks", found ? Json(b.ranks) : Json(nullptr)},
              {"median_slowdown", found ? Json(b.slowdown) : Json(nullptr)},
              {"below_ranks", within ? Json(b.below_ranks) : Json(nullptr)},
              {"below_median_slowdown", within ? Json(b.below_slowdown) : Json(nullptr)},
              {"max_median_slowdown", b.max_slowdown},
              {"max_median_slowdown_ranks", b.max_ranks}};
}

Json scale_json(const ScaleResult& scale) {
  const BoxStats b = box_stats(scale.completion_ps);
  const auto slow = [&](double v) { return slowdown(v, static_cast<double>(scale.noiseless_ps)); };
  return Json{{"ranks", scale.ranks},
              {"replicas", b.count},
              {"noiseless_ps", scale.noiseless_ps},
              {"min_ps", b.min},
              {"q1_ps", b.q1},
              {"median_ps", b.median},
              {"q3_ps", b.q3},
              {"max_ps", b.max},
              {"mean_ps", b.mean},
              {"outliers_ps", b.outliers},
              {"slowdown",
               {{"min", slow(b.min)},
                {"q1", slow(b.q1)},
                {"median", slow(b.median)},
                {"q3", slow(b.q3)},
                {"max", slow(b.max)},
                {"mean", slow(b.mean)}}},
              {"completion_ps", scale.completion_ps}};
}

std::string scale_table_header() {
  return "| ranks | noiseless | min | q1 | median | q3 | max | mean | outliers | median slowdown |\n"
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
}

std::string scale_table_row(const ScaleResult& scale) {
  const BoxStats b = box_stats(scale.completion_ps);
  const auto noiseless = static_cast<double>(scale.noiseless_ps);
  // The noiseless time is one exact simulated time (format_time_ps keeps every digit); the
  // statistics over replicas print in the one duration style of every table (docs/units.md).
  const auto stat = [](double ps) { return format_duration_s(ps / 1e12); };
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f}% |\n", scale.ranks,
                     format_time_ps(scale.noiseless_ps), stat(b.min), stat(b.q1), stat(b.median), stat(b.q3),
                     stat(b.max), stat(b.mean), b.outliers.size(), 100.0 * slowdown(b.median, noiseless));
}

std::vector<std::string> scale_csv_columns() {
  return {"ranks",           "replicas",    "noiseless_ps", "min_ps",       "q1_ps",        "median_ps",
          "q3_ps",           "max_ps",      "mean_ps",      "outliers",     "min_slowdown", "q1_slowdown",
          "median_slowdown", "q3_slowdown", "max_slowdown", "mean_slowdown"};
}

std::vector<std::string> scale_csv_row(const ScaleResult& scale) {
  const BoxStats b = box_stats(scale.completion_ps);
  const auto noiseless = static_cast<double>(scale.noiseless_ps);
  const auto num = [](double v) { return fmt::format("{}", v); };
  const auto slow = [&](double v) { return fmt::format("{}", slowdown(v, noiseless)); };
  return {std::to_string(scale.ranks),
          std::to_string(b.count),
          std::to_string(scale.noiseless_ps),
          num(b.min),
          num(b.q1),
          num(b.median),
          num(b.q3),
          num(b.max),
          num(b.mean),
          std::to_string(b.outliers.size()),
          slow(b.min),
          slow(b.q1),
          slow(b.median),
          slow(b.q3),
          slow(b.max),
          slow(b.mean)};
}

}  // namespace gridlock::sim
