// Folded retries (SimOptions::fold_retries) must give exactly LogGOPSim's one-by-one retries: the
// same finish times, the same timeline slices in the same order, the same stuck reports.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/noise.hpp"
#include "random_schedules.hpp"

namespace gridlock::sim {
namespace {

using simtest::collective_specs;
using simtest::expect_same_outcome;
using simtest::parameter_sets;
using simtest::random_goal;

SimResult run(const Schedule& schedule, const LogGOPSParams& params, bool fold,
              const NoiseInjection* noise = nullptr) {
  SimOptions options;
  options.params = params;
  options.record_timeline = true;
  options.fold_retries = fold;
  options.noise = noise;
  return simulate(schedule, options);
}

void expect_same(const Schedule& schedule, const LogGOPSParams& params, const std::string& what,
                 const NoiseInjection* noise = nullptr) {
  const SimResult folded = run(schedule, params, true, noise);
  const SimResult plain = run(schedule, params, false, noise);
  expect_same_outcome(folded, plain, what);
  EXPECT_LE(folded.events, plain.events) << what;
  ASSERT_EQ(folded.timeline.size(), plain.timeline.size()) << what;
  for (std::size_t i = 0; i < folded.timeline.size(); ++i) {
    const TimelineSlice& a = folded.timeline[i];
    const TimelineSlice& b = plain.timeline[i];
    ASSERT_TRUE(a.rank == b.rank && a.track == b.track && a.kind == b.kind && a.peer == b.peer &&
                a.bytes == b.bytes && a.start == b.start && a.end == b.end)
        << what << ": slice " << i << " differs";
  }
}

TEST(FoldRetries, GeneratedCollectivesMatchOneByOneRetries) {
  for (const auto& [name, params] : parameter_sets()) {
    for (const char* spec : collective_specs()) {
      for (const std::uint32_t ranks : {7U, 16U}) {
        expect_same(generate(spec, ranks, 3), params, fmt::format("{} on {} ranks, {}", spec, ranks, name));
      }
    }
  }
}

TEST(FoldRetries, RandomSchedulesMatchOneByOneRetries) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const std::string text = random_goal(seed, seed % 2 == 0 ? 500 : 1'000'000);
    const Schedule schedule = parse_goal(text, "random.goal");
    for (const auto& [name, params] : parameter_sets()) {
      expect_same(schedule, params, fmt::format("random schedule {} with {}", seed, name));
    }
  }
}

// Under noise at a phase per rank most waits are a single event's, which retries alone, while
// piles still form groups; both together must still be LogGOPSim's one-by-one retries.
TEST(FoldRetries, RandomSchedulesUnderNoiseMatchOneByOneRetries) {
  const noise::DetourPattern pattern =
      noise::DetourPattern::random(1e5, 1'000'000, true, 7, 100'000'000'000ULL, 1'000'000);
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    const std::string text = random_goal(seed, seed % 2 == 0 ? 500 : 1'000'000);
    const Schedule schedule = parse_goal(text, "random.goal");
    const NoiseInjection noise = make_noise_injection(pattern, schedule.num_ranks(), seed, 0, false);
    for (const auto& [name, params] : parameter_sets()) {
      expect_same(schedule, params, fmt::format("random schedule {} with {}, dense noise", seed, name),
                  &noise);
    }
  }
  for (const char* spec : collective_specs()) {
    const Schedule schedule = generate(spec, 16, 3);
    const NoiseInjection noise = make_noise_injection(pattern, 16, 5, 0, false);
    expect_same(schedule, LogGOPSParams{}, fmt::format("{} on 16 ranks, dense noise", spec), &noise);
  }
}

TEST(FoldRetries, PiledUpChainBroadcastFoldsMostRetries) {
  // The root injects a segment every 1.5 us, each forwarder needs 3 us: segments pile up at rank
  // 1 and LogGOPSim retries the whole pile every time its CPU frees up.
  const Schedule schedule = generate("bcast(algo=chain, size=2000B, segment=1B)", 8, 1);
  const SimResult folded = run(schedule, LogGOPSParams{}, true);
  const SimResult plain = run(schedule, LogGOPSParams{}, false);
  EXPECT_EQ(folded.finish, plain.finish);
  EXPECT_LT(folded.events * 4, plain.events);
}

}  // namespace
}  // namespace gridlock::sim
