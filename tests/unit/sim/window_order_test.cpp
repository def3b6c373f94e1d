// Windowed event order (SimOptions::event_order, detail/window_queue.hpp) must give exactly the
// results of LogGOPSim's global order: the same finish times, event counts and stuck reports, on
// every schedule, with and without noise, and with the ties that made a first version differ.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
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

// 100,000 detours per second of 1 us on average over 0.1 s: dense enough that most activities of
// a collective meet one, sparse enough that ranks no detour has hit still tie.
const noise::DetourPattern& dense_noise() {
  static const noise::DetourPattern p =
      noise::DetourPattern::random(1e5, 1'000'000, true, 7, 100'000'000'000ULL, 1'000'000);
  return p;
}

SimResult run(const Schedule& schedule, const LogGOPSParams& params, EventOrder order,
              const NoiseInjection* noise) {
  SimOptions options;
  options.params = params;
  options.event_order = order;
  options.noise = noise;
  return simulate(schedule, options);
}

// Runs `schedule` in both orders; returns whether the windowed run stayed windowed.
bool expect_same(const Schedule& schedule, const LogGOPSParams& params, const NoiseInjection* noise,
                 const std::string& what) {
  const SimResult global = run(schedule, params, EventOrder::kGlobal, noise);
  const SimResult windowed = run(schedule, params, EventOrder::kWindowed, noise);
  EXPECT_FALSE(global.windowed) << what;
  expect_same_outcome(windowed, global, what);
  EXPECT_EQ(windowed.events, global.events) << what;
  return windowed.windowed;
}

TEST(WindowedOrder, RandomSchedulesMatchGlobalOrder) {
  int runs = 0;
  int stayed_windowed = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    const std::string text = random_goal(seed, seed % 2 == 0 ? 500 : 1'000'000);
    const Schedule schedule = parse_goal(text, "random.goal");
    const NoiseInjection noise = make_noise_injection(dense_noise(), schedule.num_ranks(), seed, 0, false);
    for (const auto& [name, params] : parameter_sets()) {
      for (const NoiseInjection* injected : {static_cast<const NoiseInjection*>(nullptr), &noise}) {
        ++runs;
        stayed_windowed += expect_same(schedule, params, injected,
                                       fmt::format("random schedule {} with {}{}", seed, name,
                                                   injected != nullptr ? ", dense noise" : ""))
                               ? 1
                               : 0;
      }
    }
  }
  // Only zero-lookahead parameters and rendezvous without the handshake fall back; if most runs
  // did, this test would compare the global order with itself.
  EXPECT_GT(stayed_windowed, runs / 2) << stayed_windowed << " of " << runs << " runs stayed windowed";
}

// The same random schedules with every operation on one of two CPUs and NICs (the extension):
// ops then wait for the CPU or NIC they name, and readiness is tracked per op.
TEST(WindowedOrder, RandomSchedulesOnTwoCpusAndNicsMatchGlobalOrder) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const std::string text = random_goal(seed, seed % 2 == 0 ? 500 : 1'000'000);
    Rng rng(seed);
    std::string placed;
    for (std::size_t pos = 0; pos < text.size();) {
      const std::size_t end = text.find('\n', pos);
      std::string line = text.substr(pos, end - pos);
      pos = end + 1;
      if (line.starts_with('l') && line.find(':') != std::string::npos) {
        line += fmt::format(" cpu {}", uniform_below(rng, 2));
        if (line.find("calc") == std::string::npos) {
          line += fmt::format(" nic {}", uniform_below(rng, 2));
        }
      }
      placed += line + "\n";
    }
    const Schedule schedule = parse_goal(placed, "placed.goal");
    ASSERT_EQ(schedule.num_cpus(), 2U);
    const NoiseInjection noise = make_noise_injection(dense_noise(), schedule.num_ranks(), seed, 0, false);
    for (const auto& [name, params] : parameter_sets()) {
      expect_same(schedule, params, nullptr, fmt::format("placed schedule {} with {}", seed, name));
      expect_same(schedule, params, &noise,
                  fmt::format("placed schedule {} with {}, dense noise", seed, name));
    }
  }
}

TEST(WindowedOrder, GeneratedCollectivesMatchGlobalOrder) {
  for (const auto& [name, params] : parameter_sets()) {
    for (const char* spec : collective_specs()) {
      for (const std::uint32_t ranks : {7U, 64U}) {
        const Schedule schedule = generate(spec, ranks, 3);
        const NoiseInjection noise = make_noise_injection(dense_noise(), ranks, 5, 0, false);
        const std::string what = fmt::format("{} on {} ranks, {}", spec, ranks, name);
        expect_same(schedule, params, nullptr, what);
        expect_same(schedule, params, &noise, what + ", dense noise");
      }
    }
  }
}

// At 4,096 ranks, ranks that no detour has hit yet keep the same arithmetic times, so messages
// created at the same instant on different hosts meet at one host at one time. Served in host
// order, 3 to 10 ranks of 4,096 finished differently in 4 of these 5 runs; served in LogGOPSim's
// order (stamps handed out when a window closes), none may.
TEST(WindowedOrder, SameInstantTiesAtScaleMatchGlobalOrder) {
  const Schedule schedule = generate("dissemination(size=8B)", 4096, 1);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const noise::DetourPattern pattern =
        noise::DetourPattern::random(1e5, 1'000'000, true, 7, 10'000'000'000'000ULL, 1'000'000);
    const NoiseInjection noise = make_noise_injection(pattern, 4096, seed, 0, false);
    EXPECT_TRUE(expect_same(schedule, LogGOPSParams{}, &noise, fmt::format("dissemination, seed {}", seed)));
  }
}

TEST(WindowedOrder, AutomaticOrderIsWindowedOnlyForNoiseAtAPhasePerRank) {
  const Schedule schedule = generate("dissemination(size=8B)", 2048, 1);
  const NoiseInjection unsynchronised = make_noise_injection(dense_noise(), 2048, 3, 0, false);
  const NoiseInjection cosched = make_noise_injection(dense_noise(), 2048, 3, 0, true);
  SimOptions options;
  // Smaller runs stay in global order, where it is as fast or faster.
  const Schedule small = generate("dissemination(size=8B)", 2047, 1);
  const NoiseInjection small_noise = make_noise_injection(dense_noise(), 2047, 3, 0, false);
  options.noise = &small_noise;
  EXPECT_FALSE(simulate(small, options).windowed);
  options.noise = nullptr;
  EXPECT_FALSE(simulate(schedule, options).windowed);
  options.noise = &cosched;
  EXPECT_FALSE(simulate(schedule, options).windowed);
  options.noise = &unsynchronised;
  const SimResult windowed = simulate(schedule, options);
  EXPECT_TRUE(windowed.windowed);
  // A timeline's slices come in processing order: recorded in global order, same results.
  options.record_timeline = true;
  const SimResult recorded = simulate(schedule, options);
  EXPECT_FALSE(recorded.windowed);
  EXPECT_FALSE(recorded.timeline.empty());
  EXPECT_EQ(recorded.finish, windowed.finish);
  options.record_timeline = false;
  options.event_order = EventOrder::kGlobal;
  EXPECT_FALSE(simulate(schedule, options).windowed);
}

TEST(WindowedOrder, RendezvousFallsBackToGlobalOrder) {
  // Without the handshake a matched rendezvous completes its sender at once, on another host:
  // no lookahead, so the run is redone in global order.
  const Schedule schedule = generate("alltoall(algo=pairwise, size=100KiB)", 8, 1);
  const NoiseInjection noise = make_noise_injection(dense_noise(), 8, 3, 0, false);
  EXPECT_FALSE(expect_same(schedule, LogGOPSParams{}, &noise, "rendezvous"));
  LogGOPSParams handshake;
  handshake.rendezvous_handshake = true;
  EXPECT_TRUE(expect_same(schedule, handshake, &noise, "rendezvous with handshake"));
}

TEST(WindowedOrder, ProgressSaysWhenARunIsRedoneInGlobalOrder) {
  const Schedule schedule = generate("alltoall(algo=pairwise, size=100KiB)", 8, 1);
  const NoiseInjection noise = make_noise_injection(dense_noise(), 8, 3, 0, false);
  std::vector<SimProgress> reports;
  SimOptions options;
  options.event_order = EventOrder::kWindowed;
  options.noise = &noise;
  options.progress_every_events = 1;
  options.progress = [&reports](const SimProgress& p) { reports.push_back(p); };
  const SimResult result = simulate(schedule, options);
  EXPECT_FALSE(result.windowed);
  ASSERT_FALSE(reports.empty());
  EXPECT_TRUE(reports.back().rerun);
  EXPECT_EQ(reports.back().ops_total, result.ops_total);
}

TEST(WindowedOrder, OverflowIsReportedAsInGlobalOrder) {
  const Schedule schedule = parse_goal(
      "num_ranks 2\nrank 0 {\na: send 8b to 1\nb: calc 10000000000000000\nb requires a\n}\n"
      "rank 1 {\nc: recv 8b from 0\nd: calc 10000000000000000\ne: calc 10000000000000000\n"
      "d requires c\ne requires d\n}\n",
      "overflow.goal");
  std::string global_message;
  std::string windowed_message;
  try {
    (void)run(schedule, LogGOPSParams{}, EventOrder::kGlobal, nullptr);
  } catch (const InputError& e) {
    global_message = e.what();
  }
  try {
    (void)run(schedule, LogGOPSParams{}, EventOrder::kWindowed, nullptr);
  } catch (const InputError& e) {
    windowed_message = e.what();
  }
  EXPECT_NE(global_message.find("overflows"), std::string::npos) << global_message;
  EXPECT_EQ(windowed_message, global_message);
}

}  // namespace
}  // namespace gridlock::sim
