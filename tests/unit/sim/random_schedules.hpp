#pragma once
// Schedules and parameter sets shared by the engine's equivalence tests (folded retries,
// windowed event order): every branch of the engine's decisions is taken on them. And the
// comparison of two runs' outcomes.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::sim::simtest {

// `a` and `b`, two runs of one schedule, end the same way: finish times, counts and stuck reports.
inline void expect_same_outcome(const SimResult& a, const SimResult& b, const std::string& what) {
  ASSERT_EQ(a.complete, b.complete) << what;
  EXPECT_EQ(a.max_finish, b.max_finish) << what;
  EXPECT_EQ(a.max_finish_rank, b.max_finish_rank) << what;
  EXPECT_EQ(a.finish, b.finish) << what;
  EXPECT_EQ(a.messages, b.messages) << what;
  EXPECT_EQ(a.ops_completed, b.ops_completed) << what;
  EXPECT_EQ(a.unexpected_left, b.unexpected_left) << what;
  EXPECT_EQ(a.stuck_ranks, b.stuck_ranks) << what;
  ASSERT_EQ(a.stuck.size(), b.stuck.size()) << what;
  for (std::size_t i = 0; i < a.stuck.size(); ++i) {
    EXPECT_EQ(a.stuck[i].description, b.stuck[i].description) << what;
    EXPECT_EQ(a.stuck[i].state, b.stuck[i].state) << what;
  }
}

// LogGOPS parameters from picosecond values (L, o_send, o_recv, g, G, O, S).
inline LogGOPSParams params(std::uint64_t l, std::uint64_t os, std::uint64_t orecv, std::uint64_t g,
                            std::uint64_t big_g, std::uint64_t big_o, std::uint64_t s) {
  return LogGOPSParams{SimTime{l}, SimTime{os}, SimTime{orecv}, SimTime{g}, SimTime{big_g}, SimTime{big_o},
                       s};
}

inline LogGOPSParams with_handshake(LogGOPSParams p) {
  p.rendezvous_handshake = true;
  return p;
}

// Parameter sets where the CPU, the send NIC or the receive NIC is the bottleneck, with and
// without rendezvous, so every branch of the folding decision is taken.
inline std::vector<std::pair<std::string, LogGOPSParams>> parameter_sets() {
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

// Generated collectives: pipelines that pile up, many-to-one and all-to-all traffic, rendezvous
// sizes, compositions and neighbour exchanges.
inline std::vector<const char*> collective_specs() {
  return {
      "bcast(algo=chain, size=600B, segment=1B)",
      "bcast(algo=chain, size=64KiB, segment=1KiB)",
      "alltoall(algo=linear, size=100B)",
      "alltoall(algo=pairwise, size=2KiB)",
      "gather(size=300B)",
      "scatter(size=300B)",
      "2x[allreduce(algo=ring, size=10KiB, compute=1ns); randomring(size=8B)]",
      "dissemination(size=8B); allgather(algo=bruck, size=100B)",
      "allreduce(algo=recdoub, size=70KiB); reduce(size=100B)",
      "halo3d(size=1KiB)",
  };
}

// Random schedules: point-to-point messages in random order per rank, calcs, any-source and
// any-tag receives, requires and irequires edges; some deadlock, and then the reports must agree.
// Calcs last 0..8 `calc_ps`; in whole microseconds they meet the "lattice" parameters' events.
inline std::string random_goal(std::uint64_t seed, std::uint64_t calc_ps) {
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

}  // namespace gridlock::sim::simtest
