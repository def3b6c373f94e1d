// Noise injection and Monte-Carlo replicas: the engine's noise rule on hand-computed cases, and
// the paper's findings (Hoefler et al., SC10, §IV) on small deterministic simulations.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "gridlock/core/rng.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/noise.hpp"
#include "gridlock/sim/params_json.hpp"
#include "gridlock/sim/replica_report_json.hpp"
#include "gridlock/sim/replicas.hpp"

namespace gridlock::sim {
namespace {

constexpr std::uint64_t kUs = 1'000'000;  // ps per us
constexpr std::uint64_t o = std::uint64_t{1500} * 1000;
constexpr std::uint64_t L = std::uint64_t{2500} * 1000;
constexpr std::uint64_t G = std::uint64_t{6} * 1000;

// Periodic 1000 Hz x 100 us noise, the paper's synthetic pattern.
const noise::DetourPattern& paper_noise() {
  static const noise::DetourPattern p = noise::DetourPattern::periodic(1000 * kUs, 100 * kUs);
  return p;
}

SimResult run_with(const Schedule& s, const NoiseInjection* noise) {
  SimOptions options;
  options.noise = noise;
  return simulate(s, options);
}

// Median slowdown (median / noiseless - 1) of `k` replicas.
double median_slowdown(const std::string& program, std::uint32_t ranks, std::uint64_t k,
                       bool cosched = false) {
  const Schedule s = generate(program, ranks, 1);
  const SimResult clean = run_with(s, nullptr);
  ReplicaConfig config;
  config.pattern = &paper_noise();
  config.seed = 42;
  config.cosched = cosched;
  config.threads = 2;
  const BoxStats b = box_stats(run_replicas(s, SimOptions{}, config, 0, k));
  return b.median / static_cast<double>(clean.max_finish.ps) - 1.0;
}

TEST(NoiseEngine, CalcWaitsForDetourInProgressAndIsExtended) {
  const Schedule s =
      parse_goal("num_ranks 1\nrank 0 {\nc1: calc 5000\nc2: calc 990000\nc2 requires c1\n}\n", "x");
  const noise::DetourPattern& p = paper_noise();
  // Phase 0: the detour [0, 100us) is in progress at 0, so c1 runs [100, 105) us; c2 needs 990 us
  // from 105 us and the detour at 1000 us falls inside: 105 + 990 + 100 = 1195 us.
  NoiseInjection zero{&p, {0}};
  EXPECT_EQ(run_with(s, &zero).max_finish.ps, 1195 * kUs);
  // Phase 950 us: pattern time 950 us at t = 0; the detour at pattern 1000 us (t = 50 us) falls
  // into c1: c1 ends at 105 us; c2 [105, 1095) us sees the next detour at t = 1050 us: 1195 us.
  NoiseInjection late{&p, {950 * kUs}};
  EXPECT_EQ(run_with(s, &late).max_finish.ps, 1195 * kUs);
  // Phase 200 us: no detour until t = 800 us; c1 ends at 5 us, c2 at 995 + 100 = 1095 us.
  NoiseInjection mid{&p, {200 * kUs}};
  EXPECT_EQ(run_with(s, &mid).max_finish.ps, 1095 * kUs);
}

TEST(NoiseEngine, SendOverheadIsNoisyNetworkIsNot) {
  const Schedule s = parse_goal("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", "x");
  const noise::DetourPattern& p = paper_noise();
  // Rank 0 in a detour until 100 us: o_s runs [100us, 100us + o), the message arrives L later and
  // rank 1 (phase 500 us, quiet) pays o_r: 100us + 2o + L + 7G.
  NoiseInjection n{&p, {0, 500 * kUs}};
  EXPECT_EQ(run_with(s, &n).finish[1].ps, 100 * kUs + 2 * o + L + 7 * G);
  // Rank 1 in a detour when the message arrives at o + L: it is handled from 100 us on.
  NoiseInjection r{&p, {500 * kUs, 0}};
  EXPECT_EQ(run_with(s, &r).finish[1].ps, 100 * kUs + o + 7 * G);
}

SimResult run_with(const Schedule& s, const NoiseInjection* noise, NoiseRule rule) {
  SimOptions options;
  options.noise = noise;
  options.noise_rule = rule;
  return simulate(s, options);
}

// Detours (start, length) in us, repeating every 1000 us.
noise::DetourPattern detours_us(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& list) {
  std::vector<std::uint64_t> starts;
  std::vector<std::uint64_t> lengths;
  for (const auto& [start, length] : list) {
    starts.push_back(start * kUs / 10);
    lengths.push_back(length * kUs / 10);
  }
  return {starts, lengths, 1000 * kUs, "test"};
}

// docs/sim-model.md, "Differences": the gridlock rule counts the detours an extension reaches and
// delays the start by a detour in progress; LogGOPSim's adds the rest of the detour in progress
// and the detours that start within the work, once.
TEST(NoiseRules, CalcCountsReachedDetoursOnlyUnderTheGridlockRule) {
  const Schedule s = parse_goal("num_ranks 1\nrank 0 {\ncalc 20000\n}\n", "x");  // 20 us (ns)
  // Detours [5, 15) and [28, 38) us: the calc [0, 20) us contains the first; extended to 30 us it
  // reaches the second.
  const noise::DetourPattern reached = detours_us({{50, 100}, {280, 100}});
  NoiseInjection n{&reached, {0}};
  EXPECT_EQ(run_with(s, &n, NoiseRule::kGridlock).max_finish.ps, 40 * kUs);
  EXPECT_EQ(run_with(s, &n, NoiseRule::kLogGOPSim).max_finish.ps, 30 * kUs);
  // Detour [0, 10) us in progress at 0, then [25, 30) us: gridlock starts at 10 us and reaches
  // 30 + 5 = 35 us; LogGOPSim adds the 10 us in progress and counts only detours starting in
  // (0, 20) us: 30 us.
  const noise::DetourPattern in_progress = detours_us({{0, 100}, {250, 50}});
  NoiseInjection m{&in_progress, {0}};
  EXPECT_EQ(run_with(s, &m, NoiseRule::kGridlock).max_finish.ps, 35 * kUs);
  EXPECT_EQ(run_with(s, &m, NoiseRule::kLogGOPSim).max_finish.ps, 30 * kUs);
}

TEST(NoiseRules, NoiseInTheSendOverheadDelaysTheMessageOnlyUnderTheGridlockRule) {
  const Schedule s = parse_goal("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", "x");
  const noise::DetourPattern& p = paper_noise();
  // Rank 0 in the detour [0, 100) us at 0; rank 1 quiet (phase 500 us). gridlock: o_s runs from
  // 100 us, rank 1 completes at 100us + 2o + L + 7G. LogGOPSim: the message leaves at o and rank
  // 1 completes at 2o + L + 7G; rank 0's CPU is busy until o + 100 us either way.
  NoiseInjection n{&p, {0, 500 * kUs}};
  const SimResult gridlock = run_with(s, &n, NoiseRule::kGridlock);
  const SimResult loggopsim = run_with(s, &n, NoiseRule::kLogGOPSim);
  EXPECT_EQ(gridlock.finish[1].ps, 100 * kUs + 2 * o + L + 7 * G);
  EXPECT_EQ(loggopsim.finish[1].ps, 2 * o + L + 7 * G);
  EXPECT_EQ(gridlock.finish[0].ps, 100 * kUs + o);
  EXPECT_EQ(loggopsim.finish[0].ps, 100 * kUs + o);
}

// The worked example of docs/sim-model.md, "Differences".
TEST(NoiseRules, DocsWorkedExample) {
  const Schedule s = parse_goal("num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", "x");
  const noise::DetourPattern p = detours_us({{5, 10}, {20, 5}});  // 0.5-1.5 us and 2.0-2.5 us
  const NoiseInjection rank0_only{&p, {0, 500 * kUs}};            // rank 1: no detour before 500 us
  const SimResult gridlock = run_with(s, &rank0_only, NoiseRule::kGridlock);
  const SimResult loggopsim = run_with(s, &rank0_only, NoiseRule::kLogGOPSim);
  EXPECT_EQ(gridlock.finish[0].ps, 3'000'000U);
  EXPECT_EQ(gridlock.finish[1].ps, 7'042'000U);
  EXPECT_EQ(loggopsim.finish[0].ps, 2'500'000U);
  EXPECT_EQ(loggopsim.finish[1].ps, 5'542'000U);
}

TEST(NoiseRules, OnlyTheReceiveOverheadIsNoisyUnderTheLogGOPSimRule) {
  // 1001 bytes: o_r + 1000 G = 1.5 + 6 us of CPU at the receiver from the arrival at o + L = 4 us.
  const Schedule s =
      parse_goal("num_ranks 2\nrank 0 {\nsend 1001b to 1\n}\nrank 1 {\nrecv 1001b from 0\n}\n", "x");
  // Detours [4.5, 5.5) us (inside o_r) and [8, 9) us (inside the per-byte part).
  const noise::DetourPattern p = detours_us({{45, 10}, {80, 10}});
  NoiseInjection n{&p, {0, 0}};
  // gridlock: 4 + 7.5 = 11.5 us, + 1 + 1 = 13.5 us. LogGOPSim: only the first: 12.5 us.
  EXPECT_EQ(run_with(s, &n, NoiseRule::kGridlock).finish[1].ps, 13'500'000U);
  EXPECT_EQ(run_with(s, &n, NoiseRule::kLogGOPSim).finish[1].ps, 12'500'000U);
  EXPECT_EQ(run_with(s, &n, NoiseRule::kLogGOPSim).finish[0].ps, o);
}

TEST(NoiseRules, NamesAndParsing) {
  EXPECT_EQ(parse_noise_rule("gridlock", "--noise-rule"), NoiseRule::kGridlock);
  EXPECT_EQ(parse_noise_rule("loggopsim", "--noise-rule"), NoiseRule::kLogGOPSim);
  EXPECT_STREQ(to_string(NoiseRule::kLogGOPSim), "loggopsim");
  EXPECT_STREQ(to_string(NoiseRule::kGridlock), "gridlock");
  EXPECT_THROW((void)parse_noise_rule("LogGOPSim2", "--noise-rule"), InputError);
  EXPECT_EQ(SimOptions{}.noise_rule, NoiseRule::kGridlock);
}

// Both rules order events the same way host by host (a message still leaves o_s + L after its
// send), so the windowed and the global order agree under the LogGOPSim rule too.
TEST(NoiseRules, WindowedAndGlobalOrdersAgreeUnderTheLogGOPSimRule) {
  const Schedule s = generate("allreduce(algo=dissemination, size=8B)", 300, 1);
  const noise::DetourPattern p = noise::DetourPattern::random(1e5, kUs, true, 7, 10'000 * kUs);
  const NoiseInjection n = make_noise_injection(p, 300, 5, 0, false);
  SimOptions options;
  options.noise = &n;
  options.noise_rule = NoiseRule::kLogGOPSim;
  options.event_order = EventOrder::kGlobal;
  const SimResult global = simulate(s, options);
  options.event_order = EventOrder::kWindowed;
  const SimResult windowed = simulate(s, options);
  EXPECT_EQ(global.finish, windowed.finish);
  options.noise_rule = NoiseRule::kGridlock;
  EXPECT_NE(simulate(s, options).max_finish.ps, global.max_finish.ps);
}

TEST(NoiseEngine, EmptyNoiseIsNoiseless) {
  const Schedule s = generate("allreduce(algo=dissemination, size=8B)", 37, 1);
  const noise::DetourPattern none;
  NoiseInjection n{&none, {0}};
  EXPECT_EQ(run_with(s, &n).finish, run_with(s, nullptr).finish);
}

TEST(NoiseReplicas, AnySplitAndThreadCountGivesTheSameResults) {
  const Schedule s = generate("dissemination(size=8B)", 33, 1);
  ReplicaConfig config;
  config.pattern = &paper_noise();
  config.seed = 9;
  config.threads = 1;
  const auto all = run_replicas(s, SimOptions{}, config, 0, 12);
  config.threads = 3;
  auto first = run_replicas(s, SimOptions{}, config, 0, 5);
  const auto second = run_replicas(s, SimOptions{}, config, 5, 12);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(first, all);
  config.seed = 10;
  EXPECT_NE(run_replicas(s, SimOptions{}, config, 0, 12), all);
}

// A mistyped count fails at once instead of allocating (and zeroing) 8 bytes per replica.
TEST(NoiseReplicas, RejectsMoreReplicasThanTheLimit) {
  const Schedule s = generate("dissemination(size=8B)", 8, 1);
  ReplicaConfig config;
  config.pattern = &paper_noise();
  EXPECT_THROW((void)run_replicas(s, SimOptions{}, config, 0, kMaxReplicas + 1), InputError);
  EXPECT_THROW((void)run_replicas(s, SimOptions{}, config, 5, 4), InputError);
  EXPECT_THROW(check_replica_count(100'000'000'000ULL), InputError);
  EXPECT_THROW(check_replica_count(0), InputError);
  EXPECT_NO_THROW(check_replica_count(kMaxReplicas));
  EXPECT_EQ(run_replicas(s, SimOptions{}, config, 3, 5).size(), 2U);
}

// Regression: --threads 4294967295 was taken as it was (a million replicas would have started a
// million threads); more than kMaxReplicaThreads (1024) threads are refused.
TEST(NoiseReplicas, RejectsMoreThreadsThanTheLimit) {
  const Schedule s = generate("dissemination(size=8B)", 8, 1);
  ReplicaConfig config;
  config.pattern = &paper_noise();
  config.threads = 4294967295U;
  try {
    (void)run_replicas(s, SimOptions{}, config, 0, 3);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--threads 4294967295: give 1 to 1024 threads (each simulates whole replicas, so more threads "
              "than cores only cost memory)");
  }
  config.threads = 1025;
  EXPECT_THROW((void)run_replicas(s, SimOptions{}, config, 0, 3), InputError);
  config.threads = kMaxReplicaThreads;
  EXPECT_EQ(run_replicas(s, SimOptions{}, config, 0, 3).size(), 3U);
}

// Regression: --ranks 4,4 ran the same scale twice and listed it twice.
TEST(NoiseReplicas, DuplicateScalesAreRefused) {
  EXPECT_EQ(parse_scales("8,4,16"), (std::vector<std::uint32_t>{8, 4, 16}));
  try {
    (void)parse_scales("4,8,4");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--ranks '4,8,4': 4 ranks is given twice; give each scale once");
  }
  EXPECT_THROW((void)parse_scales("4,04"), InputError);
}

// --network-scale multiplies L, g and G exactly (rounded to the ps); a product beyond 64-bit
// picoseconds is an error naming the parameter, not a value clamped by llround (L = 2.5 us x 4e12
// was simulated as 9,223,372 s instead of 10,000,000 s).
TEST(NoiseReplicas, NetworkScaleIsExactOrRefused) {
  const LogGOPSParams p;
  const LogGOPSParams half = scale_network(p, 0.5);
  EXPECT_EQ(half.latency.ps, 1'250'000U);
  EXPECT_EQ(half.gap.ps, 500'000U);
  EXPECT_EQ(half.gap_per_byte.ps, 3'000U);
  EXPECT_EQ(half.overhead_send.ps, p.overhead_send.ps);
  const LogGOPSParams big = scale_network(p, 4e12);
  EXPECT_EQ(big.latency.ps, 10'000'000'000'000'000'000U);
  EXPECT_EQ(big.gap.ps, 4'000'000'000'000'000'000U);
  EXPECT_EQ(scale_network(p, 5e12).latency.ps, 12'500'000'000'000'000'000U);
  for (const double factor : {1e13, 1e30}) {
    try {
      (void)scale_network(p, factor);
      ADD_FAILURE() << "factor " << factor << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--network-scale"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("L = "), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)scale_network(p, 0), InputError);
  EXPECT_THROW((void)scale_network(p, std::numeric_limits<double>::infinity()), InputError);
}

TEST(NoiseReplicas, BoxStats) {
  const BoxStats b = box_stats({5, 1, 2, 3, 4, 100});
  EXPECT_EQ(b.count, 6U);
  EXPECT_DOUBLE_EQ(b.min, 1);
  EXPECT_DOUBLE_EQ(b.q1, 2.25);
  EXPECT_DOUBLE_EQ(b.median, 3.5);
  EXPECT_DOUBLE_EQ(b.q3, 4.75);
  EXPECT_DOUBLE_EQ(b.max, 100);
  ASSERT_EQ(b.outliers.size(), 1U);
  EXPECT_EQ(b.outliers[0], 100U);
  // Tukey's whiskers end at the last samples inside the fences, not at min and max.
  EXPECT_DOUBLE_EQ(b.whisker_low, 1);
  EXPECT_DOUBLE_EQ(b.whisker_high, 5);
  const BoxStats flat = box_stats({7, 7, 7});
  EXPECT_DOUBLE_EQ(flat.whisker_low, 7);
  EXPECT_DOUBLE_EQ(flat.whisker_high, 7);
  EXPECT_TRUE(flat.outliers.empty());
}

// The numbers of attribute `name` of every element whose class is `cls`, in document order.
std::vector<double> attribute_values(const std::string& svg, const std::string& cls,
                                     const std::string& name) {
  std::vector<double> values;
  const std::regex element("<[a-z]+ class=\"" + cls + "\"[^>]*>");
  const std::regex attribute(" " + name + "=\"([-0-9.e+]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element); it != std::sregex_iterator(); ++it) {
    std::smatch m;
    const std::string text = it->str();
    if (std::regex_search(text, m, attribute)) {
      values.push_back(std::stod(m[1].str()));
    }
  }
  return values;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

TEST(StudyBoxplot, DrawsOneBoxPerScaleWithTheContextFirst) {
  std::vector<ScaleResult> scales;
  // Scale 64: q1 = 100 us, q3 = 110 us, twenty identical outliers at 1 ms and one at 500 us.
  std::vector<std::uint64_t> times(50, 100'000'000);
  times.insert(times.end(), 50, 110'000'000);
  times.insert(times.end(), 20, 1'000'000'000);
  times.push_back(500'000'000);
  scales.push_back(ScaleResult{64, 50'000'000, times});
  scales.push_back(ScaleResult{256, 60'000'000, std::vector<std::uint64_t>(10, 200'000'000)});
  Json context;
  context["tool"] = "test <&> tool";
  const std::string svg = study_boxplot_svg(scales, context, "a<b & c\nnoise: none");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  // The context comes before anything drawn, escaped.
  const std::size_t metadata = svg.find("<metadata>");
  ASSERT_NE(metadata, std::string::npos);
  EXPECT_LT(metadata, svg.find("<rect"));
  EXPECT_NE(svg.find("test &lt;&amp;&gt; tool"), std::string::npos);
  // Both title lines, escaped.
  EXPECT_NE(svg.find(">a&lt;b &amp; c</text>"), std::string::npos);
  EXPECT_NE(svg.find(">noise: none</text>"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(count_of(svg, "class=\"box\""), 2U);
  EXPECT_EQ(count_of(svg, "class=\"median\""), 2U);
  EXPECT_EQ(count_of(svg, "class=\"noiseless\""), 2U);
  EXPECT_NE(svg.find("data-ranks=\"64\""), std::string::npos);
  EXPECT_NE(svg.find("data-ranks=\"256\""), std::string::npos);
  // Twenty outliers at one time make one circle; the one at 500 us another.
  EXPECT_EQ(count_of(svg, "class=\"outlier\""), 2U);
  // Higher times are higher up: scale 64's box (100-110 us) lies below scale 256's (200 us), and
  // below its own outliers; its noiseless time (50 us) lies below the box.
  const std::vector<double> box_top = attribute_values(svg, "box", "y");
  const std::vector<double> box_height = attribute_values(svg, "box", "height");
  const std::vector<double> noiseless = attribute_values(svg, "noiseless", "y1");
  const std::vector<double> outlier = attribute_values(svg, "outlier", "cy");
  ASSERT_EQ(box_top.size(), 2U);
  ASSERT_EQ(box_height.size(), 2U);
  ASSERT_EQ(noiseless.size(), 2U);
  ASSERT_EQ(outlier.size(), 2U);
  EXPECT_GT(box_height[0], 0);
  EXPECT_DOUBLE_EQ(box_height[1], 0);  // Every replica of scale 256 took the same time.
  EXPECT_GT(box_top[0], box_top[1]);
  EXPECT_LT(outlier[0], box_top[0]);
  EXPECT_GT(noiseless[0], box_top[0] + box_height[0]);
  // The median slowdowns above the boxes: 110 us / 50 us (61st of 121 replicas) and 200 us / 60 us.
  EXPECT_NE(svg.find(">+120.0%</text>"), std::string::npos);
  EXPECT_NE(svg.find(">+233.3%</text>"), std::string::npos);
}

TEST(StudyBoxplot, DegenerateStudiesStillDrawFiniteNumbers) {
  const Json context = Json::object();
  // Every time 0 (a schedule that takes no time); and times near the top of the range 4 ns apart,
  // where the tick step (1 ns) is below what a double can add to 1.8 * 10^13 us: adding it step by step
  // left the value unchanged, and the drawing never ended.
  for (const std::vector<std::uint64_t>& times :
       {std::vector<std::uint64_t>{0, 0, 0},
        std::vector<std::uint64_t>{18'000'000'000'000'000'000ULL, 18'000'000'000'000'004'096ULL}}) {
    const std::string svg = study_boxplot_svg({ScaleResult{8, times.front(), times}}, context, "degenerate");
    EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
    EXPECT_EQ(count_of(svg, "class=\"box\""), 1U);
  }
}

TEST(StudyBoxplot, NeedsScalesWithReplicas) {
  EXPECT_THROW((void)study_boxplot_svg({}, Json::object(), "t"), InputError);
  EXPECT_THROW((void)study_boxplot_svg({ScaleResult{8, 1, {}}}, Json::object(), "t"), InputError);
}

// The context's `noise` object, as both `gridlock sim` and `gridlock-bench sim-replicas` write it.
TEST(NoiseJson, RecordsTheModelSeedsAndPattern) {
  const noise::NoiseSpec spec = noise::parse_random_spec("2kHz:20us:exp");
  const noise::DetourPattern pattern = noise::make_pattern(spec, derive_seed(5, kNoiseSeedStream + 1));
  const Json json = noise_json(spec, pattern, 5, true);
  EXPECT_EQ(json["model"], noise::describe(spec, pattern));
  EXPECT_EQ(json["seed"], 5);
  EXPECT_EQ(json["noise_seed"], derive_seed(5, kNoiseSeedStream));
  EXPECT_EQ(json["cosched"], true);
  EXPECT_EQ(json["period_ps"], pattern.period_ps());
  EXPECT_GT(pattern.size(), 1U);
  EXPECT_EQ(json["detours_per_period"], pattern.size());
  EXPECT_EQ(json["noise_fraction"], pattern.noise_fraction());
  EXPECT_EQ(json["rule"], "gridlock");
  EXPECT_EQ(json.size(), 8U);
  EXPECT_EQ(noise_json(spec, pattern, 5, true, NoiseRule::kLogGOPSim)["rule"], "loggopsim");
}

// Paper Fig. 5: under unsynchronised noise the median slowdown grows with the process count.
TEST(NoisePaper, DisseminationSlowdownGrowsWithScale) {
  const double s16 = median_slowdown("dissemination(size=8B)", 16, 40);
  const double s128 = median_slowdown("dissemination(size=8B)", 128, 40);
  const double s1024 = median_slowdown("dissemination(size=8B)", 1024, 40);
  EXPECT_LT(s16, s128);
  EXPECT_LT(s128, s1024);
}

// Paper §IV-B (and Ferreira et al.): a broadcast absorbs noise better than an allreduce.
TEST(NoisePaper, BinomialBroadcastSuffersLessThanDisseminationAllreduce) {
  const double bcast = median_slowdown("bcast(algo=binomial, size=8B)", 128, 40);
  const double allreduce = median_slowdown("allreduce(algo=dissemination, size=8B)", 128, 40);
  EXPECT_LT(bcast, allreduce);
}

// Paper Fig. 6: large messages hide the detours in longer operations.
TEST(NoisePaper, LargeMessagesSufferSmallerRelativeSlowdown) {
  const double small = median_slowdown("dissemination(size=8B)", 64, 30);
  const double large = median_slowdown("dissemination(size=1MiB)", 64, 30);
  EXPECT_LT(large, small);
}

// Paper §IV-B4: co-scheduled noise keeps the median at the noiseless time.
TEST(NoisePaper, CoScheduledNoiseKeepsMedianNearNoiseless) {
  const double cosched = median_slowdown("dissemination(size=8B)", 128, 40, true);
  const double unsync = median_slowdown("dissemination(size=8B)", 128, 40, false);
  EXPECT_LT(cosched, 0.05);
  EXPECT_GT(unsync, 0.5);
}

// Paper §IV-B, Figs. 5-6: the outliers of small runs become the median of large ones at a
// characteristic scale, the noise bottleneck; co-scheduling the same noise removes it (Fig. 7b).
// Rare long detours (10 Hz x 1 ms) hit a small dissemination seldom and a large one almost always.
TEST(NoisePaper, NoiseBottleneckAppearsAtACharacteristicScaleAndVanishesWhenCoScheduled) {
  const noise::DetourPattern rare = noise::DetourPattern::periodic(100'000 * kUs, 1000 * kUs);
  const auto study = [&](bool cosched) {
    std::vector<ScaleResult> scales;
    for (const std::uint32_t ranks : {8U, 16U, 32U, 64U, 128U, 256U, 512U}) {
      const Schedule s = generate("dissemination(size=8B)", ranks, 1);
      ReplicaConfig config;
      config.pattern = &rare;
      config.seed = 7;
      config.cosched = cosched;
      config.threads = 2;
      scales.push_back(ScaleResult{ranks, run_with(s, nullptr).max_finish.ps,
                                   run_replicas(s, SimOptions{}, config, 0, 61)});
    }
    return scales;
  };
  const std::vector<ScaleResult> unsync_scales = study(false);
  const NoiseBottleneck unsync = find_noise_bottleneck(unsync_scales, 1.0);
  ASSERT_EQ(unsync.status, NoiseBottleneck::Status::kWithin) << describe(unsync);
  EXPECT_GE(unsync.ranks, 32U) << describe(unsync);
  EXPECT_LE(unsync.ranks, 256U) << describe(unsync);
  EXPECT_GE(unsync.slowdown, 1.0) << describe(unsync);
  // At the smallest scale the median run is untouched (noise shows only in the outliers); at the
  // largest, noise makes every run several times slower.
  EXPECT_LT(median_slowdown(unsync_scales.front()), 0.01);
  EXPECT_GT(box_stats(unsync_scales.front().completion_ps).max,
            2.0 * static_cast<double>(unsync_scales.front().noiseless_ps));
  EXPECT_GT(median_slowdown(unsync_scales.back()), 5.0);
  const NoiseBottleneck cosched = find_noise_bottleneck(study(true), 1.0);
  EXPECT_EQ(cosched.status, NoiseBottleneck::Status::kNotReached) << describe(cosched);
  EXPECT_LT(cosched.max_slowdown, 0.1) << describe(cosched);
}

// A scale whose every replica took `slowdown` times longer than the noiseless 1 us (plus one).
ScaleResult scale_with(std::uint32_t ranks, double slowdown) {
  const std::uint64_t noiseless = kUs;
  const auto noisy = static_cast<std::uint64_t>(static_cast<double>(noiseless) * (1.0 + slowdown));
  return ScaleResult{ranks, noiseless, std::vector<std::uint64_t>(5, noisy)};
}

TEST(NoiseBottleneck, FirstScaleFromWhichOnTheThresholdHolds) {
  const NoiseBottleneck b = find_noise_bottleneck(
      {scale_with(16, 0), scale_with(32, 0.5), scale_with(64, 1.5), scale_with(128, 3)}, 1.0);
  EXPECT_EQ(b.status, NoiseBottleneck::Status::kWithin);
  EXPECT_EQ(b.ranks, 64U);
  EXPECT_DOUBLE_EQ(b.slowdown, 1.5);
  EXPECT_EQ(b.below_ranks, 32U);
  EXPECT_DOUBLE_EQ(b.below_slowdown, 0.5);
  EXPECT_EQ(b.max_ranks, 128U);
  EXPECT_DOUBLE_EQ(b.max_slowdown, 3.0);
  EXPECT_EQ(describe(b),
            "noise bottleneck (median slowdown >= 100%): at 64 ranks (32 ranks: +50.00%, 64 ranks: "
            "+150.00%)");
  const Json j = bottleneck_json(b);
  EXPECT_EQ(j["status"], "within");
  EXPECT_EQ(j["ranks"], 64);
  EXPECT_EQ(j["below_ranks"], 32);
  EXPECT_DOUBLE_EQ(j["threshold"].get<double>(), 1.0);
  EXPECT_EQ(j["max_median_slowdown_ranks"], 128);
}

// Expects the noise bottleneck of `scales` (threshold +100%) between `below` and `ranks`.
void expect_within(const std::vector<ScaleResult>& scales, std::uint32_t below, std::uint32_t ranks) {
  const NoiseBottleneck b = find_noise_bottleneck(scales, 1.0);
  EXPECT_EQ(b.status, NoiseBottleneck::Status::kWithin) << describe(b);
  EXPECT_EQ(b.ranks, ranks) << describe(b);
  EXPECT_EQ(b.below_ranks, below) << describe(b);
}

TEST(NoiseBottleneck, ScalesMayComeInAnyOrder) {
  expect_within({scale_with(128, 3), scale_with(32, 0.5), scale_with(16, 0), scale_with(64, 1.5)}, 32, 64);
}

TEST(NoiseBottleneck, ADipBelowTheThresholdMovesItToTheNextScale) {
  // 32 ranks crossed the threshold, but 64 fell below it again: noise dominates only from 128 on.
  expect_within({scale_with(16, 0), scale_with(32, 1.5), scale_with(64, 0.5), scale_with(128, 2)}, 64, 128);
}

TEST(NoiseBottleneck, AtOrBelowTheSmallestScaleAndNotReached) {
  const NoiseBottleneck low = find_noise_bottleneck({scale_with(64, 5.6), scale_with(256, 6.1)}, 1.0);
  EXPECT_EQ(low.status, NoiseBottleneck::Status::kAtOrBelowSmallest);
  EXPECT_EQ(low.ranks, 64U);
  EXPECT_NE(describe(low).find("at or below 64 ranks"), std::string::npos) << describe(low);
  EXPECT_EQ(bottleneck_json(low)["below_ranks"], nullptr);

  const NoiseBottleneck none = find_noise_bottleneck({scale_with(64, 0.2), scale_with(256, 0.4)}, 1.0);
  EXPECT_EQ(none.status, NoiseBottleneck::Status::kNotReached);
  EXPECT_EQ(none.max_ranks, 256U);
  EXPECT_DOUBLE_EQ(none.max_slowdown, 0.4);
  EXPECT_EQ(bottleneck_json(none)["ranks"], nullptr);
  EXPECT_NE(describe(none).find("not reached"), std::string::npos) << describe(none);

  // The threshold is the user's: the same study has its bottleneck at 256 ranks for +30%.
  const NoiseBottleneck lower = find_noise_bottleneck({scale_with(64, 0.2), scale_with(256, 0.4)}, 0.3);
  EXPECT_EQ(lower.status, NoiseBottleneck::Status::kWithin);
  EXPECT_EQ(lower.ranks, 256U);
  EXPECT_NE(describe(lower).find("(median slowdown >= 30%)"), std::string::npos) << describe(lower);
  EXPECT_NE(describe(find_noise_bottleneck({scale_with(64, 0.2)}, 0.125)).find(">= 12.5%"),
            std::string::npos);
  // Reaching it exactly counts.
  EXPECT_EQ(find_noise_bottleneck({scale_with(64, 0.5)}, 0.5).status,
            NoiseBottleneck::Status::kAtOrBelowSmallest);
}

TEST(NoiseBottleneck, RejectsBadThresholdsAndEmptyStudies) {
  const std::vector<ScaleResult> one{scale_with(64, 1)};
  for (const double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW((void)find_noise_bottleneck(one, bad), InputError) << bad;
  }
  EXPECT_THROW((void)find_noise_bottleneck({}, 1.0), InputError);
}

}  // namespace
}  // namespace gridlock::sim
