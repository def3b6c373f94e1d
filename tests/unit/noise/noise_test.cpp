// gridlock::noise: trace formats, the detour pattern's injection rule, synthetic specs and a short
// run of the measurement loop (no timing assertions: only invariants that hold on a busy machine).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/noise/measure.hpp"
#include "gridlock/noise/measure_json.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/noise/trace.hpp"

namespace gn = gridlock::noise;

namespace {

gn::NoiseTrace sample_trace() {
  gn::NoiseTrace t;
  t.detours = {{0, 1500}, {2000, 10}, {1'000'000, 250'000}, {5'000'123, 7}};
  t.duration_ns = 6'000'000;
  return t;
}

std::string error_of(const std::string& text, gn::TraceFormat format) {
  try {
    (void)gn::parse_trace(text, format, "bad.txt");
  } catch (const gridlock::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(NoiseTrace, GridlockFormatRoundTripsWithContext) {
  gn::NoiseTrace t = sample_trace();
  t.context = gridlock::Json{{"tool", "test"}, {"cpu", 3}};
  const std::string text = gn::format_trace(t, gn::TraceFormat::kGridlock);
  const gn::NoiseTrace back = gn::parse_trace(text, gn::TraceFormat::kAuto, "x");
  EXPECT_EQ(back.detours, t.detours);
  EXPECT_EQ(back.duration_ns, t.duration_ns);
  EXPECT_EQ(back.context.at("tool"), "test");
  EXPECT_EQ(back.context.at("cpu"), 3);
}

TEST(NoiseTrace, LoggopsimAndNetgaugeRoundTrip) {
  const gn::NoiseTrace t = sample_trace();
  for (const auto format : {gn::TraceFormat::kLoggopsim, gn::TraceFormat::kNetgauge}) {
    const std::string text = gn::format_trace(t, format);
    const gn::NoiseTrace explicit_format = gn::parse_trace(text, format, "x");
    const gn::NoiseTrace detected = gn::parse_trace(text, gn::TraceFormat::kAuto, "x");
    EXPECT_EQ(explicit_format.detours, t.detours) << gn::format_name(format);
    EXPECT_EQ(detected.detours, t.detours) << gn::format_name(format);
    // Without a stored duration the trace repeats after its last detour.
    EXPECT_EQ(explicit_format.duration_ns, 5'000'130U);
  }
}

// Regression: a LogGOPSim trace written with spaces was taken for Netgauge and read in us, every
// detour 1000x too long. LogGOPSim reads its lines with sscanf("%lf\t%lf"): any white space, and
// decimals.
TEST(NoiseTrace, IntegerColumnsAreLoggopsimWhateverTheSeparator) {
  for (const std::string text : {"1000 20\n5000 30\n", "1000\t20\n5000\t30\n", "1000 \t 20\n5000  30\n"}) {
    const gn::NoiseTrace t = gn::parse_trace(text, gn::TraceFormat::kAuto, "x");
    EXPECT_EQ(t.format, gn::TraceFormat::kLoggopsim) << text;
    EXPECT_EQ(t.detours, (std::vector<gn::Detour>{{1000, 20}, {5000, 30}})) << text;
  }
  const gn::NoiseTrace netgauge = gn::parse_trace("1000.5 20.25\n", gn::TraceFormat::kAuto, "x");
  EXPECT_EQ(netgauge.format, gn::TraceFormat::kNetgauge);
  EXPECT_EQ(netgauge.detours, (std::vector<gn::Detour>{{1'000'500, 20'250}}));
  // Given explicitly, LogGOPSim's decimals are ns (rounded to the nearest ns).
  const gn::NoiseTrace decimal_ns = gn::parse_trace("1000.5\t20.25\n", gn::TraceFormat::kLoggopsim, "x");
  EXPECT_EQ(decimal_ns.detours, (std::vector<gn::Detour>{{1001, 20}}));
}

// Regression: a trace starting with a UTF-8 byte-order mark (Windows editors) failed ("expected two
// columns ... got 3" or "not a gridlock noise trace"); the mark is skipped in every format.
TEST(NoiseTrace, Utf8ByteOrderMarkIsSkippedInEveryFormat) {
  const gn::NoiseTrace t = sample_trace();
  for (const auto format :
       {gn::TraceFormat::kGridlock, gn::TraceFormat::kLoggopsim, gn::TraceFormat::kNetgauge}) {
    const std::string text = "\xEF\xBB\xBF" + gn::format_trace(t, format);
    for (const auto read_as : {format, gn::TraceFormat::kAuto}) {
      gn::NoiseTrace back;
      ASSERT_NO_THROW(back = gn::parse_trace(text, read_as, "bom.trace")) << gn::format_name(format);
      EXPECT_EQ(back.format, format);
      EXPECT_EQ(back.detours, t.detours) << gn::format_name(format);
    }
  }
  // A comment line first, as Netgauge and LogGOPSim files may have.
  const gn::NoiseTrace commented =
      gn::parse_trace("\xEF\xBB\xBF# from a Windows editor\n1000 20\n", gn::TraceFormat::kAuto, "bom.trace");
  EXPECT_EQ(commented.detours, (std::vector<gn::Detour>{{1000, 20}}));
}

// Regression: a start near 2^64 ns overflowed on the way to picoseconds and was reported as
// "detour 1 is unsorted, overlapping or outside the period", without a line.
TEST(NoiseTrace, TimesBeyondTheSimulatorsRangeAreRefusedWithTheirLine) {
  EXPECT_EQ(error_of("5\t1\n18446744073709551\t10\n", gn::TraceFormat::kLoggopsim)
                .rfind("bad.txt:2: detour at 18446744073709551 ns of 10 ns ends beyond the longest trace", 0),
            0U);
  EXPECT_EQ(
      error_of("1e300 1\n", gn::TraceFormat::kNetgauge).rfind("bad.txt:1: start '1e300' us is beyond", 0),
      0U);
  EXPECT_EQ(error_of("99999999999999999999\t1\n", gn::TraceFormat::kLoggopsim).rfind("bad.txt:1: start", 0),
            0U);
  EXPECT_NE(error_of("# gridlock-noise-trace v1\n# duration_ns: 18446744073709551615\nstart_ns,length_ns\n",
                     gn::TraceFormat::kGridlock)
                .find("bad.txt:2: duration_ns 18446744073709551615 is beyond"),
            std::string::npos);
}

// Regression: a trace measured with a --max-detours cap injected only its listed detours, far less
// noise than was measured, without a word.
TEST(NoiseTrace, TraceMissingDetoursIsNotInjected) {
  gn::NoiseTrace t = sample_trace();
  t.context = gridlock::Json{{"detours_not_listed", 2182}};
  const gn::NoiseTrace back =
      gn::parse_trace(gn::format_trace(t, gn::TraceFormat::kGridlock), gn::TraceFormat::kAuto, "cap.trace");
  EXPECT_EQ(back.detours_not_listed, 2182U);
  try {
    (void)gn::DetourPattern::from_trace(back, "cap.trace");
    ADD_FAILURE() << "a trace with detours left out was accepted";
  } catch (const gridlock::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cap.trace: the measurement left 2182 detours out"),
              std::string::npos)
        << e.what();
  }
  t.context = gridlock::Json::object();
  const gn::DetourPattern whole = gn::DetourPattern::from_trace(
      gn::parse_trace(gn::format_trace(t, gn::TraceFormat::kGridlock), gn::TraceFormat::kAuto, "x"), "x");
  EXPECT_EQ(whole.size(), 4U);
  EXPECT_EQ(whole.trace_origin(), "x (gridlock)");
}

TEST(NoiseTrace, MalformedTracesGiveFileAndLine) {
  EXPECT_EQ(
      error_of("10\t5\n5\t1\n", gn::TraceFormat::kLoggopsim).rfind("bad.txt:2: detours are not sorted", 0),
      0U);
  EXPECT_EQ(error_of("# c\n10\t5\n12\t1\n", gn::TraceFormat::kLoggopsim).rfind("bad.txt:3: detour at 12", 0),
            0U);
  EXPECT_EQ(error_of("1\t-5\n", gn::TraceFormat::kLoggopsim).rfind("bad.txt:1: negative duration", 0), 0U);
  EXPECT_EQ(error_of("1\t5\nhello world\n", gn::TraceFormat::kLoggopsim).rfind("bad.txt:2: start 'hello'", 0),
            0U);
  EXPECT_EQ(error_of("1.5 2.5\n3 x\n", gn::TraceFormat::kNetgauge).rfind("bad.txt:2: length 'x'", 0), 0U);
  EXPECT_EQ(error_of("1 2 3\n", gn::TraceFormat::kNetgauge).rfind("bad.txt:1: expected two columns", 0), 0U);
  EXPECT_EQ(error_of("# gridlock-noise-trace v1\n# duration_ns: 100\nstart_ns,length_ns\n5,1\n2,1\n",
                     gn::TraceFormat::kAuto)
                .rfind("bad.txt:5: detours are not sorted", 0),
            0U);
  EXPECT_NE(error_of("# gridlock-noise-trace v1\nstart_ns,length_ns\n5,1\n", gn::TraceFormat::kGridlock)
                .find("missing the '# duration_ns: N'"),
            std::string::npos);
  EXPECT_EQ(
      error_of("nonsense\n", gn::TraceFormat::kGridlock).rfind("bad.txt:1: not a gridlock noise trace", 0),
      0U);
  // Binary garbage is quoted escaped and cut short, not written raw to the terminal.
  EXPECT_EQ(error_of("1\t5\n\x98\x01" + std::string(500, 'A') + "\t5\n", gn::TraceFormat::kLoggopsim)
                .rfind("bad.txt:2: start '\\x98\\x01AAAA", 0),
            0U);
  EXPECT_NE(error_of("1\t5\n\x98\x01" + std::string(500, 'A') + "\t5\n", gn::TraceFormat::kLoggopsim)
                .find("AAA...' is not"),
            std::string::npos);
}

TEST(DetourPattern, InjectionRule) {
  // One 100 ps detour at the start of every 1000 ps.
  const gn::DetourPattern p = gn::DetourPattern::periodic(1000, 100);
  EXPECT_EQ(p.finish(200, 300, 0), 500U);    // No detour inside [200, 500).
  EXPECT_EQ(p.finish(50, 10, 0), 110U);      // Detour in progress: start delayed to 100.
  EXPECT_EQ(p.finish(900, 200, 0), 1200U);   // The detour at 1000 falls inside: +100.
  EXPECT_EQ(p.finish(900, 2000, 0), 3200U);  // 1000, 2000 and, as the end moves, 3000 fall inside.
  EXPECT_EQ(p.finish(1000, 0, 0), 1100U);    // Zero-length work waits for the detour in progress.
  EXPECT_EQ(p.finish(200, 300, 900), 500U);  // Offset 900: pattern time [1100, 1400) holds no detour.
  EXPECT_EQ(p.finish(50, 100, 900), 250U);   // Pattern time 950: the detour at 1000 extends the work.
  const gn::DetourPattern none;
  EXPECT_EQ(none.finish(123, 456, 0), 579U);
}

TEST(DetourPattern, RejectsFullCoverageAndParsesSpecs) {
  EXPECT_THROW((void)gn::DetourPattern::periodic(100, 100), gridlock::InputError);
  const gn::NoiseSpec s = gn::parse_periodic_spec("1000Hz:100us");
  EXPECT_EQ(s.length_ps, 100'000'000U);
  EXPECT_DOUBLE_EQ(s.rate_hz, 1000.0);
  EXPECT_THROW((void)gn::parse_periodic_spec("1000:100us"), gridlock::InputError);
  EXPECT_THROW((void)gn::parse_periodic_spec("1000Hz:2ms"), gridlock::InputError);
  const gn::NoiseSpec r = gn::parse_random_spec("2kHz:10us:exp");
  EXPECT_TRUE(r.exponential);
  const gn::DetourPattern a = gn::make_pattern(r, 7);
  const gn::DetourPattern b = gn::make_pattern(r, 7);
  EXPECT_EQ(a.detours(), b.detours());
  EXPECT_GT(a.size(), 1000U);
  EXPECT_NEAR(a.noise_fraction(), 0.02, 0.005);
}

// Regression: --threshold 1e300 overflowed the conversion to ticks and found detours everywhere.
TEST(Measure, HugeThresholdFindsNoDetour) {
  gn::MeasureOptions o;
  o.duration_s = 0.05;
  o.timer = gn::TimerChoice::kMonotonic;
  o.threshold = 1e300;
  const gn::Measurement m = gn::measure(o);
  EXPECT_GT(m.iterations, 0U);
  EXPECT_EQ(m.detour_count, 0U);
  o.threshold = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)gn::measure(o), gridlock::InputError);
}

// Regression: 1e-9 Hz overflowed the period; 0.001 Hz drew no detour in 10 s and ran noiseless
// while printing "0% noise".
TEST(DetourPattern, LowRatesAreDrawnOrRefused) {
  EXPECT_THROW((void)gn::parse_periodic_spec("1e-9Hz:1us"), gridlock::InputError);
  EXPECT_THROW((void)gn::parse_random_spec("1e-9Hz:1us"), gridlock::InputError);
  const gn::DetourPattern rare = gn::make_pattern(gn::parse_random_spec("0.001Hz:1us"), 7);
  EXPECT_GT(rare.size(), 100U);
  EXPECT_GT(rare.noise_fraction(), 0.0);
  EXPECT_NEAR(static_cast<double>(rare.period_ps()) / static_cast<double>(rare.size()), 1e15, 2e14);
}

// Regression: t_min was the smallest positive gap of any calibration block. The TSC is read out of
// order: on an AMD EPYC VM one gap in ten was 1 tick (then 25; usually 26), so t_min was 1 tick,
// the threshold 9 ticks, and every iteration of the loop a "detour" (30% noise where 0.8% was).
TEST(Measure, OutOfOrderReadsDoNotMakeTMin) {
  std::vector<std::uint64_t> gaps(1000, 26);
  for (std::size_t i = 0; i < 110; ++i) {
    gaps[9 * i] = 1;  // two reads executed together
    gaps[9 * i + 1] = 25;
  }
  gaps[500] = 52;
  gaps[400] = 0;  // the clock did not tick
  gaps[401] = 0;
  EXPECT_EQ(gn::block_t_min(gaps), 26U);
  // A coarse clock: most gaps are 0, the positive ones its resolution.
  std::vector<std::uint64_t> coarse(1000, 0);
  for (std::size_t i = 0; i < 1000; i += 50) {
    coarse[i] = 1000;
  }
  EXPECT_EQ(gn::block_t_min(coarse), 1000U);
  std::vector<std::uint64_t> zeros(50, 0);
  EXPECT_EQ(gn::block_t_min(zeros), 0U);
}

// Regression: --cpu -3 measured unpinned without a word, as if --cpu had been left out.
TEST(Measure, NegativeCpuIsRefused) {
  gn::MeasureOptions o;
  o.duration_s = 0.01;
  o.timer = gn::TimerChoice::kMonotonic;
  o.cpu = -3;
  EXPECT_THROW((void)gn::measure(o), gridlock::InputError);
}

// Regression: the overflow row (detours of 2^34 ns, 17.2 s, and more) started at the lower bound of
// the last regular bucket, overlapping that bucket's row.
TEST(Measure, HistogramOverflowRowStartsWhereTheLastBucketEnds) {
  gridlock::LogHistogram h;
  h.record(1e11);
  const auto rows = gn::histogram_rows(h);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0][0], "1.71799e+10");
  EXPECT_EQ(rows[0][1], "inf");
  EXPECT_EQ(rows[0][2], "1");
}

TEST(Measure, ShortRunIsConsistent) {
  gn::MeasureOptions o;
  o.duration_s = 0.2;
  o.timer = gn::TimerChoice::kMonotonic;
  o.max_detours = 5;  // Small cap: the rest must still be counted.
  const gn::Measurement m = gn::measure(o);
  EXPECT_GT(m.t_min_ns, 0.0);
  EXPECT_GT(m.iterations, 0U);
  EXPECT_GT(m.measured_ns, 0U);
  EXPECT_EQ(m.detour_count, m.trace.detours.size() + m.detours_not_listed);
  EXPECT_LE(m.trace.detours.size(), 5U);
  EXPECT_EQ(m.lengths_ns.count(), m.detour_count);
  const gn::NoiseSummary s = gn::summarize(m, 0);
  EXPECT_GE(s.noise_fraction, 0.0);
  EXPECT_LE(s.noise_fraction, 1.0);
  EXPECT_NEAR(s.noise_fraction * static_cast<double>(m.measured_ns), static_cast<double>(m.detour_total_ns),
              1.0);
  for (const gn::Detour& d : m.trace.detours) {
    EXPECT_GE(static_cast<double>(d.length_ns) + 1.0, o.threshold * m.t_min_ns);
  }
  gn::validate_trace(m.trace, "measured");
  // The auto timer works too (TSC where there is one).
  o.timer = gn::TimerChoice::kAuto;
  o.duration_s = 0.05;
  EXPECT_GT(gn::measure(o).t_min_ns, 0.0);
}

// The JSON summary (noise measure --json, gridlock-bench noise) keeps every field, units in names;
// a percentile that does not exist (no detours) is null, not NaN.
TEST(Measure, SummaryJsonHasEveryField) {
  gn::NoiseSummary s;
  s.t_min_ns = 20;
  s.detours = 3;
  s.noise_fraction = 0.25;
  s.lengths_ns.count = 3;
  s.lengths_ns.median = 400;
  s.lengths_no_outliers_ns.median = std::nan("");
  const gridlock::Json j = gn::summary_json(s);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "t_min_ns", "sampling_rate_hz", "iterations", "measured_s", "detours", "detours_per_s",
                      "noise_fraction", "detour_length_ns", "outlier_cutoff_ns", "outliers",
                      "noise_fraction_without_outliers", "detour_length_without_outliers_ns"}));
  EXPECT_EQ(j["t_min_ns"], 20.0);
  EXPECT_EQ(j["detours"], 3);
  EXPECT_EQ(j["noise_fraction"], 0.25);
  EXPECT_EQ(j["detour_length_ns"]["count"], 3);
  EXPECT_EQ(j["detour_length_ns"]["median"], 400.0);
  EXPECT_TRUE(j["detour_length_without_outliers_ns"]["median"].is_null());
  EXPECT_EQ(j["detour_length_ns"].size(), 7U);
}

// The rule of docs/sim-model.md, "Noise", computed naively over every detour of every period.
std::uint64_t reference_finish(const gn::DetourPattern& p, std::uint64_t t, std::uint64_t d,
                               std::uint64_t offset) {
  const std::uint64_t a = t + offset;
  const std::uint64_t period = p.period_ps();
  const auto detours = p.detours();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> all;
  all.reserve(4 * detours.size());
  for (std::uint64_t base = (a / period) * period; base <= (a / period + 3) * period; base += period) {
    for (const auto& [start, length] : detours) {
      all.emplace_back(base + start, base + start + length);
    }
  }
  std::uint64_t cur = a;
  std::size_t i = 0;
  while (all[i].second <= cur) {
    ++i;
  }
  if (all[i].first <= cur) {
    cur = all[i].second;
    ++i;
  }
  std::uint64_t end = cur + d;
  for (; all[i].first < end; ++i) {
    end += all[i].second - all[i].first;
  }
  return end - offset;
}

// LogGOPSim's rule (docs/sim-model.md, "Differences"), computed naively: the rest of a detour in
// progress at t plus every detour that starts in (t, t + d).
std::uint64_t reference_loggopsim_noise(const gn::DetourPattern& p, std::uint64_t t, std::uint64_t d,
                                        std::uint64_t offset) {
  const std::uint64_t a = t + offset;
  const std::uint64_t period = p.period_ps();
  std::uint64_t noise = 0;
  for (std::uint64_t base = (a / period) * period; base <= (a / period + 3) * period; base += period) {
    for (const auto& [start, length] : p.detours()) {
      const std::uint64_t s = base + start;
      if (s <= a && a < s + length) {
        noise += s + length - a;
      } else if (a < s && s < a + d) {
        noise += length;
      }
    }
  }
  return noise;
}

// One rank's queries against a cursor: mostly increasing times (as one rank's CPU), sometimes a
// jump back or across the period, sometimes a long idle stretch (more detours than the cursor
// steps over one by one). `step_ps` is the usual distance between queries and the work's length.
void expect_cursor_answers_like_reference(const gn::DetourPattern& p, std::uint64_t step_ps,
                                          std::uint64_t seed) {
  gridlock::Rng rng(seed);
  gn::DetourPattern::Cursor cursor;
  gn::DetourPattern::Cursor loggopsim_cursor;
  std::uint64_t t = 0;
  // 5,000 queries: each jump kind hundreds of times, in 0.1 s optimised; 20,000 took 2.5 minutes
  // of the unoptimised ASan build's test step.
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t jump = gridlock::uniform_below(rng, 50);
    t = jump == 0   ? gridlock::uniform_below(rng, 3 * p.period_ps())
        : jump == 1 ? t + gridlock::uniform_below(rng, p.period_ps() / 4)
                    : t + gridlock::uniform_below(rng, step_ps);
    const std::uint64_t d = gridlock::uniform_below(rng, 4) == 0 ? 0 : gridlock::uniform_below(rng, step_ps);
    const std::uint64_t offset = 12'345'678;
    const std::uint64_t want = reference_finish(p, t, d, offset);
    ASSERT_EQ(p.finish(t, d, offset, cursor), want) << "query " << i << " seed " << seed;
    ASSERT_EQ(p.finish(t, d, offset), want) << "query " << i << " seed " << seed;
    ASSERT_EQ(p.loggopsim_noise(t, d, offset, loggopsim_cursor), reference_loggopsim_noise(p, t, d, offset))
        << "query " << i << " seed " << seed;
  }
}

TEST(DetourPattern, CursorGivesTheSameAnswers) {
  const gn::DetourPattern p = gn::DetourPattern::random(1e6, 200'000, true, 3, 200'000'000ULL);
  ASSERT_GT(p.size(), 100U);
  expect_cursor_answers_like_reference(p, 3'000'000, 5);
}

// A cursor holds the next detours only while their gaps and lengths fit in 32 bits (4.29 ms):
// patterns where none fit, where some do, and a single detour repeating (the next period's
// detour held across the wrap) answer like the reference all the same.
TEST(DetourPattern, CursorHoldingTheNextDetoursGivesTheSameAnswers) {
  // 10 Hz of 1 ms: gaps of about 100 ms, too long to hold.
  const gn::DetourPattern sparse =
      gn::DetourPattern::random(10, 1'000'000'000, true, 4, 20'000'000'000'000ULL);
  ASSERT_GT(sparse.size(), 100U);
  expect_cursor_answers_like_reference(sparse, 300'000'000'000, 6);
  // 300 Hz of 1 ms: exponential gaps around 3.3 ms, some held and some not.
  const gn::DetourPattern mixed =
      gn::DetourPattern::random(300, 1'000'000'000, true, 5, 1'000'000'000'000ULL);
  ASSERT_GT(mixed.size(), 100U);
  expect_cursor_answers_like_reference(mixed, 10'000'000'000, 7);
  // 1 kHz of 100 us: one detour a period, held three periods ahead. (Steps stay below the period:
  // the reference lists detours only three periods past each query.)
  const gn::DetourPattern periodic = gn::DetourPattern::periodic(1'000'000'000, 100'000'000);
  expect_cursor_answers_like_reference(periodic, 400'000'000, 8);
  // Detours longer than 4.29 ms: 10 Hz of 10 ms, fixed.
  const gn::DetourPattern long_detours =
      gn::DetourPattern::random(10, 10'000'000'000, false, 6, 20'000'000'000'000ULL);
  expect_cursor_answers_like_reference(long_detours, 300'000'000'000, 9);
}

// Cursors found together (sorted sweep or one binary search each, depending on how many) answer
// like a cursor that starts unset, from the first query on.
TEST(DetourPattern, CursorsFoundTogetherGiveTheSameAnswers) {
  const gn::DetourPattern p = gn::DetourPattern::random(1e6, 200'000, true, 3, 200'000'000ULL);
  ASSERT_GT(p.size(), 100U);
  const auto detours = p.detours();
  gridlock::Rng rng(9);
  // 200 detours: up to 3 callers take a binary search each, 60 take the sweep.
  for (const std::size_t callers : {std::size_t{1}, std::size_t{3}, std::size_t{60}}) {
    std::vector<std::uint64_t> positions;
    for (std::size_t i = 0; i < callers; ++i) {
      const std::uint64_t kind = gridlock::uniform_below(rng, 4);
      const auto& [start, length] = detours[gridlock::uniform_below(rng, detours.size())];
      // At a detour's start or end, inside one, after the last one (wrapping), or anywhere.
      positions.push_back(kind == 0   ? start + length
                          : kind == 1 ? start + length / 2
                          : kind == 2 ? p.period_ps() - 1
                                      : gridlock::uniform_below(rng, p.period_ps()));
    }
    std::vector<gn::DetourPattern::Cursor> cursors = p.cursors_at(positions);
    ASSERT_EQ(cursors.size(), callers);
    for (std::size_t i = 0; i < callers; ++i) {
      std::uint64_t t = 0;
      for (int step = 0; step < 20; ++step) {
        const std::uint64_t d = gridlock::uniform_below(rng, 3'000'000);
        const std::uint64_t want = reference_finish(p, t, d, positions[i]);
        ASSERT_EQ(p.finish(t, d, positions[i], cursors[i]), want) << callers << " callers, caller " << i;
        t = want + gridlock::uniform_below(rng, 1'000'000);
      }
    }
  }
}

namespace {

// A measurement made by hand for the report functions: two detours, one of them beyond a cut-off.
gn::Measurement sample_measurement() {
  gn::Measurement m;
  m.t_min_ns = 20;
  m.threshold = 9;
  m.cpu = 3;
  m.calibration.blocks = 7;
  m.iterations = 1'000'000;
  m.measured_ns = 1'000'000'000;
  m.detour_count = 2;
  m.detour_total_ns = 3000;
  m.lengths_ns.record(1000);
  m.lengths_ns.record(2000);
  return m;
}

}  // namespace

// The context block of the measure command's files (moved out of the CLI): its keys in order.
TEST(Measure, MeasurementContextNamesTimerCalibrationAndLimits) {
  const gn::Measurement m = sample_measurement();
  gn::MeasureOptions o;
  o.duration_s = 1;
  o.max_detours = 5;
  const gridlock::Json c = gn::measurement_context(m, o);
  EXPECT_EQ(c["tool"], "gridlock noise measure");
  EXPECT_EQ(c["cpu"], 3);
  EXPECT_EQ(c["calibration_blocks"], 7);
  EXPECT_EQ(c["duration_s"], 1.0);
  EXPECT_EQ(c["max_detours"], 5);
  EXPECT_EQ(c["detours_not_listed"], 0);
  EXPECT_TRUE(c.contains("timer_ticks_per_ns"));
}

// The histogram CSV has the context block, the header and one row per non-empty bucket.
TEST(Measure, HistogramCsvHasContextHeaderAndRows) {
  const gn::Measurement m = sample_measurement();
  const gridlock::Json context = gn::measurement_context(m, gn::MeasureOptions{});
  const std::string csv = gn::histogram_csv(context, m);
  EXPECT_EQ(csv.rfind("# ", 0), 0U) << csv;
  EXPECT_NE(csv.find("lower_ns,upper_ns,count\n"), std::string::npos) << csv;
  const std::size_t rows = gn::histogram_rows(m.lengths_ns).size();
  EXPECT_EQ(rows, 2U);
  EXPECT_NE(csv.find(",1\n"), std::string::npos) << csv;
}

// The console report: the table, the outlier lines only with a cut-off, the note only when detours
// were left out of the trace.
TEST(Measure, MeasurementTextShowsOutliersAndNoteOnlyWhenThereAreAny) {
  gn::Measurement m = sample_measurement();
  const std::string plain = gn::measurement_text(m, gn::summarize(m, 0));
  EXPECT_NE(plain.find("CPU 3\n"), std::string::npos) << plain;
  EXPECT_NE(plain.find("detours: 2 (2.0/s)"), std::string::npos) << plain;
  EXPECT_NE(plain.find("| detour length | min | median | 99% | 99.9% | max |\n"), std::string::npos);
  EXPECT_EQ(plain.find("outliers above"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("note:"), std::string::npos) << plain;
  m.detours_not_listed = 2;
  const std::string cut = gn::measurement_text(m, gn::summarize(m, 1500));
  EXPECT_NE(cut.find("outliers above"), std::string::npos) << cut;
  EXPECT_NE(cut.find("note: 2 detours beyond --max-detours"), std::string::npos) << cut;
  EXPECT_EQ(cut.back(), '\n');
}
