// Folded retries (SimOptions::fold_retries) must give exactly LogGOPSim's one-by-one retries: the
// same finish times, the same timeline slices in the same order, the same stuck reports.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {
namespace {

SimResult run(const Schedule& schedule, const LogGOPSParams& params, bool fold) {
  SimOptions options;
  options.params = params;
  options.record_timeline = true;
  options.fold_retries = fold;
  return simulate(schedule, options);
}

void expect_same(const Schedule& schedule, const LogGOPSParams& params, const std::string& what) {
  const SimResult folded = run(schedule, params, true);
  const SimResult plain = run(schedule, params, false);
  ASSERT_EQ(folded.complete, plain.complete) << what;
  EXPECT_EQ(folded.max_finish, plain.max_finish) << what;
  EXPECT_EQ(folded.finish, plain.finish) << what;
  EXPECT_EQ(folded.ops_completed, plain.ops_completed) << what;
  EXPECT_EQ(folded.unexpected_left, plain.unexpected_left) << what;
  EXPECT_LE(folded.events, plain.events) << what;
  ASSERT_EQ(folded.timeline.size(), plain.timeline.size()) << what;
  for (std::size_t i = 0; i < folded.timeline.size(); ++i) {
    const TimelineSlice& a = folded.timeline[i];
    const TimelineSlice& b = plain.timeline[i];
    ASSERT_TRUE(a.rank == b.rank && a.track == b.track && a.kind == b.kind && a.peer == b.peer &&
                a.bytes == b.bytes && a.start == b.start && a.end == b.end)
        << what << ": slice " << i << " differs";
  }
  ASSERT_EQ(folded.stuck.size(), plain.stuck.size()) << what;
  for (std::size_t i = 0; i < folded.stuck.size(); ++i) {
    EXPECT_EQ(folded.stuck[i].description, plain.stuck[i].description) << what;
  }
}

// LogGOPS parameters from picosecond values (L, o_send, o_recv, g, G, O, S).
LogGOPSParams params(std::uint64_t l, std::uint64_t os, std::uint64_t orecv, std::uint64_t g,
                     std::uint64_t big_g, std::uint64_t big_o, std::uint64_t s) {
  return LogGOPSParams{SimTime{l}, SimTime{os}, SimTime{orecv}, SimTime{g}, SimTime{big_g}, SimTime{big_o},
                       s};
}

LogGOPSParams with_handshake(LogGOPSParams p) {
  p.rendezvous_handshake = true;
  return p;
}

// Parameter sets where the CPU, the send NIC or the receive NIC is the bottleneck, with and
// without rendezvous, so every branch of the folding decision is taken.
std::vector<std::pair<std::string, LogGOPSParams>> parameter_sets() {
  return {
      {"defaults", LogGOPSParams{}},
      {"nic-bound", params(2'500'000, 1'500'000, 1'500'000, 4'000'000, 50'000, 0, 65535)},
      {"rendezvous", params(2'500'000, 1'500'000, 1'500'000, 1'000'000, 6'000, 2'000, 64)},
      {"zero-costs", params(2'500'000, 0, 0, 0, 0, 0, 65535)},
      {"asymmetric-o", params(2'500'000, 300'000, 2'700'000, 1'000'000, 6'000, 0, 65535)},
      // No per-message CPU overhead: hosts block on a NIC alone while calcs still occupy the CPU.
      {"nic-only", params(2'500'000, 0, 0, 3'000'000, 10'000, 0, 65535)},
      // Whole microseconds everywhere, so events of different kinds often meet at the same time.
      {"lattice", params(0, 0, 0, 2'000'000, 1'000'000, 0, 1'000'000)},
      {"handshake", with_handshake(params(2'500'000, 1'500'000, 1'500'000, 1'000'000, 6'000, 2'000, 64))},
  };
}

TEST(FoldRetries, GeneratedCollectivesMatchOneByOneRetries) {
  const char* specs[] = {
      "bcast(algo=chain, size=600B, segment=1B)",
      "bcast(algo=chain, size=64KiB, segment=1KiB)",
      "alltoall(algo=linear, size=100B)",
      "alltoall(algo=pairwise, size=2KiB)",
      "gather(size=300B)",
      "scatter(size=300B)",
      "2x[allreduce(algo=ring, size=10KiB, compute=1ns); randomring(size=8B)]",
      "dissemination(size=8B); allgather(algo=bruck, size=100B)",
      "allreduce(algo=recdoub, size=70KiB); reduce(size=100B)",
  };
  for (const auto& [name, params] : parameter_sets()) {
    for (const char* spec : specs) {
      for (const std::uint32_t ranks : {7U, 16U}) {
        expect_same(generate(spec, ranks, 3), params, fmt::format("{} on {} ranks, {}", spec, ranks, name));
      }
    }
  }
}

// Random schedules: point-to-point messages in random order per rank, calcs, any-source and
// any-tag receives, requires and irequires edges; some deadlock, and then the reports must agree.
// Calcs last 0..8 `calc_ps`; in whole microseconds they meet the "lattice" parameters' events.
std::string random_goal(std::uint64_t seed, std::uint64_t calc_ps) {
  Rng rng(seed);
  const std::uint32_t ranks = 2 + static_cast<std::uint32_t>(uniform_below(rng, 6));
  std::vector<std::vector<std::string>> ops(ranks);
  const std::uint64_t messages = 5 + uniform_below(rng, 60);
  for (std::uint64_t m = 0; m < messages; ++m) {
    const auto from = static_cast<std::uint32_t>(uniform_below(rng, ranks));
    const auto to = static_cast<std::uint32_t>(uniform_below(rng, ranks));
    const std::uint64_t bytes = 1 + uniform_below(rng, 3) * uniform_below(rng, seed % 2 == 0 ? 2000 : 4);
    const std::uint64_t tag = uniform_below(rng, 3);
    ops[from].push_back(fmt::format("send {}b to {} tag {}", bytes, to, tag));
    const bool any_source = uniform_below(rng, 4) == 0;
    const bool any_tag = uniform_below(rng, 4) == 0;
    ops[to].push_back(fmt::format("recv {}b from {} tag {}", bytes,
                                  any_source ? std::string("-1") : std::to_string(from),
                                  any_tag ? std::string("-1") : std::to_string(tag)));
    if (uniform_below(rng, 2) == 0) {
      ops[uniform_below(rng, 2) == 0 ? from : to].push_back(
          fmt::format("calc {}ps", uniform_below(rng, 9) * calc_ps));
    }
  }
  std::string text = fmt::format("num_ranks {}\n", ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    std::vector<std::string>& list = ops[r];
    shuffle(std::span(list), rng);
    text += fmt::format("rank {} {{\n", r);
    for (std::size_t i = 0; i < list.size(); ++i) {
      text += fmt::format("l{}: {}\n", i, list[i]);
    }
    for (std::size_t i = 1; i < list.size(); ++i) {
      // Sparse dependencies on earlier ops only, so the graph stays acyclic.
      if (uniform_below(rng, 2) == 0) {
        const std::uint64_t earlier = uniform_below(rng, i);
        text +=
            fmt::format("l{} {} l{}\n", i, uniform_below(rng, 3) == 0 ? "irequires" : "requires", earlier);
      }
    }
    text += "}\n";
  }
  return text;
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
