#include "gridlock/noise/pattern.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/noise/trace.hpp"

namespace gridlock::noise {

DetourPattern::DetourPattern(const std::vector<std::uint64_t>& start_ps,
                             const std::vector<std::uint64_t>& length_ps, std::uint64_t period_ps,
                             std::string_view source)
    : period_ps_(period_ps) {
  if (period_ps == 0) {
    throw InputError(
        fmt::format("{}: the noise period (trace duration) is 0: the trace needs at least one "
                    "detour of positive length or a duration_ns",
                    source));
  }
  std::uint64_t prev_end = 0;
  std::uint64_t total = 0;
  spans_.reserve(start_ps.size());
  for (std::size_t i = 0; i < start_ps.size(); ++i) {
    if (length_ps[i] == 0) {
      continue;  // A zero-length detour delays nothing.
    }
    const std::uint64_t end = start_ps[i] + length_ps[i];
    if (start_ps[i] < prev_end || end > period_ps || end < start_ps[i]) {
      throw InputError(
          fmt::format("{}: detour {} is unsorted, overlapping or outside the period", source, i + 1));
    }
    spans_.push_back(Span{start_ps[i], end});
    prev_end = end;
    total += length_ps[i];
  }
  if (total >= period_ps) {
    throw InputError(fmt::format("{}: detours cover the whole period: the CPU would never run", source));
  }
}

DetourPattern DetourPattern::from_trace(const NoiseTrace& trace, std::string_view source) {
  if (trace.detours_not_listed > 0) {
    // The measurement's totals include detours the list does not: injecting the list alone would
    // quietly simulate less noise than was measured.
    throw InputError(fmt::format(
        "{}: the measurement left {} detours out of this trace (--max-detours), so it holds {:.4g}% "
        "noise where more was measured; measure again with a larger --max-detours, or convert it "
        "(gridlock noise convert --to loggopsim) to inject the listed detours alone",
        source, trace.detours_not_listed, 100.0 * trace.noise_fraction()));
  }
  std::vector<std::uint64_t> start;
  std::vector<std::uint64_t> length;
  start.reserve(trace.detours.size());
  length.reserve(trace.detours.size());
  for (const Detour& d : trace.detours) {
    start.push_back(d.start_ns * 1000);
    length.push_back(d.length_ns * 1000);
  }
  DetourPattern pattern(start, length, trace.duration_ns * 1000, source);
  pattern.trace_origin_ = fmt::format("{} ({})", source, format_name(trace.format));
  return pattern;
}

DetourPattern DetourPattern::periodic(std::uint64_t period_ps, std::uint64_t length_ps) {
  return DetourPattern({0}, {length_ps}, period_ps, "--noise-periodic");
}

DetourPattern DetourPattern::random(double rate_hz, std::uint64_t length_ps, bool exponential,
                                    std::uint64_t seed, std::uint64_t horizon_ps, std::uint64_t max_detours) {
  if (!(rate_hz > 0) || length_ps == 0) {
    throw InputError("--noise-random: the rate and the length must be positive");
  }
  const double mean_gap_ps = 1e12 / rate_hz;
  // Long enough for about a thousand detours even at low rates (10 s of 1 mHz noise would hold
  // none), short enough for `max_detours`, and inside 64-bit picoseconds.
  constexpr double kLongestHorizonPs = 1e19;
  const double horizon = std::min({std::max(static_cast<double>(horizon_ps), mean_gap_ps * 1000.0),
                                   mean_gap_ps * static_cast<double>(max_detours), kLongestHorizonPs});
  horizon_ps = static_cast<std::uint64_t>(horizon);
  Rng rng(seed);
  std::vector<std::uint64_t> start;
  std::vector<std::uint64_t> length;
  double t = 0;
  std::uint64_t prev_end = 0;
  for (;;) {
    // Inverse-CDF exponential draws from Rng (std distributions differ between platforms).
    t += -std::log1p(-rng.uniform01()) * mean_gap_ps;
    const auto len =
        exponential ? std::max<std::uint64_t>(1, static_cast<std::uint64_t>(-std::log1p(-rng.uniform01()) *
                                                                            static_cast<double>(length_ps)))
                    : length_ps;
    const std::uint64_t s = std::max(static_cast<std::uint64_t>(t), prev_end);
    if (s + len >= horizon_ps) {
      break;
    }
    start.push_back(s);
    length.push_back(len);
    prev_end = s + len;
  }
  if (start.empty()) {
    throw InputError(fmt::format(
        "--noise-random: no detour was drawn in {} of noise at {} Hz (seed {}); the rate is too low to "
        "simulate, use --noise-periodic or a trace",
        format_time_ps(horizon_ps), rate_hz, seed));
  }
  return DetourPattern(start, length, horizon_ps, "--noise-random");
}

double DetourPattern::noise_fraction() const noexcept {
  std::uint64_t total = 0;
  for (const Span& sp : spans_) {
    total += sp.end - sp.start;
  }
  return static_cast<double>(total) / static_cast<double>(period_ps_);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> DetourPattern::detours() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  out.reserve(spans_.size());
  for (const Span& sp : spans_) {
    out.emplace_back(sp.start, sp.end - sp.start);
  }
  return out;
}

std::size_t DetourPattern::first_ending_after(std::uint64_t pos) const noexcept {
  const auto it = std::upper_bound(spans_.begin(), spans_.end(), pos,
                                   [](std::uint64_t p, const Span& sp) { return p < sp.end; });
  return static_cast<std::size_t>(it - spans_.begin());
}

void DetourPattern::seek(std::uint64_t a, Cursor& cursor) const noexcept {
  std::uint64_t base = a - a % period_ps_;
  std::size_t i = first_ending_after(a - base);
  if (i == spans_.size()) {
    i = 0;
    base += period_ps_;
  }
  point_at(cursor, i, base);
  cursor.valid_from = a;
}

std::vector<DetourPattern::Cursor> DetourPattern::cursors_at(std::span<const std::uint64_t> positions) const {
  std::vector<Cursor> cursors(positions.size());
  if (spans_.empty()) {
    return cursors;  // Not set: finish() answers without a detour list.
  }
  // A sweep reads the whole list once; a binary search reads about log2(size) lines per caller.
  const std::size_t log2_size = std::bit_width(spans_.size());
  if (spans_.size() / 8 > positions.size() * log2_size) {
    for (std::size_t i = 0; i < positions.size(); ++i) {
      seek(positions[i], cursors[i]);
    }
    return cursors;
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
  order.reserve(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] < period_ps_) {
      order.emplace_back(positions[i], static_cast<std::uint32_t>(i));
    } else {
      seek(positions[i], cursors[i]);  // Beyond the first period: not part of the sweep.
    }
  }
  std::sort(order.begin(), order.end());
  std::size_t next = 0;
  for (const auto& [a, i] : order) {
    while (next < spans_.size() && spans_[next].end <= a) {
      ++next;
    }
    const bool wraps = next == spans_.size();
    point_at(cursors[i], wraps ? 0 : next, wraps ? period_ps_ : 0);
    cursors[i].valid_from = a;
  }
  return cursors;
}

void DetourPattern::advance(Cursor& cursor) const noexcept {
  // Ends increase, so the next detour is the first to end after this one's end.
  cursor.valid_from = cursor.end;
  const std::uint32_t next = cursor.index + 1 == spans_.size() ? 0 : cursor.index + 1;
  if (cursor.held > 0) {
    const std::uint32_t k = Cursor::kHeldMax - cursor.held;
    --cursor.held;
    cursor.index = next;
    cursor.start = cursor.end + cursor.gap_ps[k];
    cursor.end = cursor.start + cursor.length_ps[k];
    return;
  }
  std::uint64_t base = cursor.start - spans_[cursor.index].start;
  if (next == 0) {
    base += period_ps_;
  }
  point_at(cursor, next, base);
}

void DetourPattern::point_at(Cursor& cursor, std::size_t i, std::uint64_t base) const noexcept {
  cursor.index = static_cast<std::uint32_t>(i);
  cursor.start = base + spans_[i].start;
  cursor.end = base + spans_[i].end;
  std::array<std::uint32_t, Cursor::kHeldMax> gaps{};
  std::array<std::uint32_t, Cursor::kHeldMax> lengths{};
  std::uint32_t n = 0;
  std::size_t j = i;
  std::uint64_t previous_end = cursor.end;
  constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();
  while (n < Cursor::kHeldMax) {
    if (++j == spans_.size()) {
      j = 0;
      if (__builtin_add_overflow(base, period_ps_, &base)) {
        break;
      }
    }
    std::uint64_t start = 0;
    if (__builtin_add_overflow(base, spans_[j].start, &start) || start < previous_end) {
      break;
    }
    const std::uint64_t length = spans_[j].end - spans_[j].start;
    // Only gaps and lengths that fit are held; the rest is read from the list when reached.
    if (start - previous_end > kMax32 || length > kMax32 || start + length < start) {
      break;
    }
    gaps[n] = static_cast<std::uint32_t>(start - previous_end);
    lengths[n] = static_cast<std::uint32_t>(length);
    previous_end = start + length;
    ++n;
  }
  const std::uint32_t first = Cursor::kHeldMax - n;
  for (std::uint32_t k = 0; k < n; ++k) {
    cursor.gap_ps[first + k] = gaps[k];
    cursor.length_ps[first + k] = lengths[k];
  }
  cursor.held = n;
}

void DetourPattern::catch_up(std::uint64_t a, Cursor& cursor) const noexcept {
  constexpr int kSteps = 8;
  int steps = 0;
  while (cursor.end <= a) {
    if (++steps > kSteps) {
      seek(a, cursor);
      return;
    }
    advance(cursor);
  }
}

std::uint64_t DetourPattern::finish_slow(std::uint64_t a, std::uint64_t d, Cursor& cursor) const noexcept {
  catch_up(a, cursor);
  std::uint64_t cur = a;
  if (cursor.start <= cur) {
    cur = cursor.end;  // A detour in progress delays the start.
    advance(cursor);
  }
  std::uint64_t end = cur + d;
  while (cursor.start < end) {
    end += cursor.end - cursor.start;
    advance(cursor);
  }
  return end;
}

std::uint64_t DetourPattern::loggopsim_noise_slow(std::uint64_t a, std::uint64_t d,
                                                  Cursor& cursor) const noexcept {
  catch_up(a, cursor);
  std::uint64_t noise = 0;
  if (cursor.start <= a) {
    noise = cursor.end - a;  // The rest of a detour in progress.
    advance(cursor);
  }
  const std::uint64_t end = a + d;  // Fixed: the added noise does not reach further detours.
  while (cursor.start < end) {
    noise += cursor.end - cursor.start;
    advance(cursor);
  }
  return noise;
}

namespace {

double parse_rate_hz(std::string_view text, std::string_view what) {
  double scale = 1;
  std::string_view num = text;
  if (num.ends_with("kHz")) {
    scale = 1e3;
    num.remove_suffix(3);
  } else if (num.ends_with("MHz")) {
    scale = 1e6;
    num.remove_suffix(3);
  } else if (num.ends_with("Hz")) {
    num.remove_suffix(2);
  } else {
    throw InputError(fmt::format("{}: rate '{}' needs a unit: Hz, kHz or MHz (e.g. 1000Hz)", what, text));
  }
  const double v = parse_double(num).value_or(0.0);
  if (!(v > 0) || !std::isfinite(v)) {
    throw InputError(fmt::format("{}: rate '{}' is not a positive number of Hz", what, text));
  }
  // A period must fit the simulator's 64-bit picoseconds with room to spare.
  constexpr double kLowestRateHz = 1e-6;
  if (v * scale < kLowestRateHz) {
    throw InputError(fmt::format(
        "{}: rate '{}' is below 1e-06 Hz (one detour in 11.6 days), too rare to simulate", what, text));
  }
  return v * scale;
}

}  // namespace

NoiseSpec parse_periodic_spec(std::string_view text) {
  const auto parts = split(text, ':');
  if (parts.size() != 2) {
    throw InputError(fmt::format("--noise-periodic '{}': expected FREQ:LENGTH, e.g. 1000Hz:100us", text));
  }
  NoiseSpec s;
  s.kind = NoiseSpec::Kind::kPeriodic;
  s.rate_hz = parse_rate_hz(parts[0], "--noise-periodic");
  s.length_ps = parse_time_ps(parts[1], "--noise-periodic length");
  const double period_ps = 1e12 / s.rate_hz;
  if (std::fmod(period_ps, 1.0) != 0.0) {
    throw InputError(
        fmt::format("--noise-periodic '{}': the period 1/FREQ must be a whole number of ps", text));
  }
  if (static_cast<double>(s.length_ps) >= period_ps) {
    throw InputError(fmt::format("--noise-periodic '{}': the detour must be shorter than the period", text));
  }
  return s;
}

NoiseSpec parse_random_spec(std::string_view text) {
  const auto parts = split(text, ':');
  if (parts.size() != 2 && parts.size() != 3) {
    throw InputError(
        fmt::format("--noise-random '{}': expected RATE:LENGTH[:exp|fixed], e.g. 1000Hz:100us:exp", text));
  }
  NoiseSpec s;
  s.kind = NoiseSpec::Kind::kRandom;
  s.rate_hz = parse_rate_hz(parts[0], "--noise-random");
  s.length_ps = parse_time_ps(parts[1], "--noise-random length");
  if (parts.size() == 3) {
    if (parts[2] == "exp") {
      s.exponential = true;
    } else if (parts[2] != "fixed") {
      throw InputError(fmt::format("--noise-random '{}': the length distribution is 'exp' or 'fixed'", text));
    }
  }
  if (s.length_ps == 0 || static_cast<double>(s.length_ps) * s.rate_hz >= 1e12) {
    throw InputError(
        fmt::format("--noise-random '{}': RATE x LENGTH must be below 1 (the CPU must run sometimes)", text));
  }
  return s;
}

std::string NoiseSpec::describe() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kTrace:
      return fmt::format("trace {} ({})", trace_path, format_name(format));
    case Kind::kPeriodic:
      return fmt::format("periodic {} Hz x {}", rate_hz, format_time_ps(length_ps));
    case Kind::kRandom:
      return fmt::format("random {} Hz x {} ({})", rate_hz, format_time_ps(length_ps),
                         exponential ? "exponential" : "fixed");
  }
  return "?";
}

std::string describe(const NoiseSpec& spec, const DetourPattern& pattern) {
  if (spec.kind == NoiseSpec::Kind::kTrace && !pattern.trace_origin().empty()) {
    return fmt::format("trace {}{}", pattern.trace_origin(),
                       spec.format == TraceFormat::kAuto ? ", format detected from its content" : "");
  }
  return spec.describe();
}

DetourPattern make_pattern(const NoiseSpec& spec, std::uint64_t seed) {
  switch (spec.kind) {
    case NoiseSpec::Kind::kNone:
      return {};
    case NoiseSpec::Kind::kTrace:
      return DetourPattern::from_trace(read_trace(spec.trace_path, spec.format), spec.trace_path);
    case NoiseSpec::Kind::kPeriodic:
      return DetourPattern::periodic(static_cast<std::uint64_t>(1e12 / spec.rate_hz), spec.length_ps);
    case NoiseSpec::Kind::kRandom:
      // 10 s of random noise, then it repeats; ranks start at random offsets in it.
      return DetourPattern::random(spec.rate_hz, spec.length_ps, spec.exponential, seed,
                                   10'000'000'000'000ULL);
  }
  return {};
}

NoiseSpec noise_spec_of_options(std::string_view trace, std::string_view format, std::string_view periodic,
                                std::string_view random) {
  std::vector<std::string_view> given;
  for (const auto& [name, value] : {std::pair{"--noise", trace}, std::pair{"--noise-periodic", periodic},
                                    std::pair{"--noise-random", random}}) {
    if (!value.empty()) {
      given.emplace_back(name);
    }
  }
  if (given.size() > 1) {
    throw InputError(fmt::format("give at most one of --noise, --noise-periodic and --noise-random (got {})",
                                 fmt::join(given, " and ")));
  }
  if (!trace.empty()) {
    NoiseSpec spec;
    spec.kind = NoiseSpec::Kind::kTrace;
    spec.trace_path = std::string(trace);
    spec.format = parse_trace_format(format, "--noise-format");
    return spec;
  }
  if (!periodic.empty()) {
    return parse_periodic_spec(periodic);
  }
  if (!random.empty()) {
    return parse_random_spec(random);
  }
  return {};
}

}  // namespace gridlock::noise
