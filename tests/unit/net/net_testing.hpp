#pragma once
// Test helpers shared by the network model tests: routers in a line, so that closed forms (n flows
// on one link, an incast, a victim sharing one link) are easy to set up, and a driver that runs a
// model alone on a list of messages.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/network.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::net::nettest {

inline constexpr double kGBps = 1e9;

// Routers in a line, R0 -> R1 -> ... with one capacity per forward link (and the same back), and
// `nodes_per_router` nodes on each (`n<router>_<index>`); terminal links at `terminal` (100 GB/s:
// they never limit).
class LineTopology final : public topo::Topology {
 public:
  LineTopology(const std::vector<double>& link_capacity, int nodes_per_router,
               double terminal = 100 * kGBps) {
    const int routers = static_cast<int>(link_capacity.size()) + 1;
    for (int r = 0; r < routers; ++r) {
      (void)add_router("R" + std::to_string(r), {r});
    }
    for (int r = 0; r + 1 < routers; ++r) {
      forward_.push_back(add_link(static_cast<topo::RouterId>(r), static_cast<topo::RouterId>(r + 1), "E",
                                  "W", link_capacity[static_cast<std::size_t>(r)]));
      backward_.push_back(add_link(static_cast<topo::RouterId>(r + 1), static_cast<topo::RouterId>(r), "W",
                                   "E", link_capacity[static_cast<std::size_t>(r)]));
    }
    for (int r = 0; r < routers; ++r) {
      for (int n = 0; n < nodes_per_router; ++n) {
        (void)add_node("n" + std::to_string(r) + "_" + std::to_string(n), static_cast<topo::RouterId>(r));
      }
    }
    finish(terminal);
  }
  [[nodiscard]] std::string_view kind() const noexcept override { return "line"; }
  [[nodiscard]] std::string spec() const override { return "line"; }
  [[nodiscard]] topo::Parameters parameters() const override { return {}; }

 protected:
  void append_router_route(topo::RouterId src, topo::RouterId dst,
                           std::vector<topo::LinkId>& out) const override {
    for (topo::RouterId r = src; r < dst; ++r) {
      out.push_back(forward_[r]);
    }
    for (topo::RouterId r = src; r > dst; --r) {
      out.push_back(backward_[r - 1]);
    }
  }

 private:
  std::vector<topo::LinkId> forward_;
  std::vector<topo::LinkId> backward_;
};

// A LineTopology network with every node's rank in node order (identity placement).
inline std::shared_ptr<const Network> line_network(const std::vector<double>& caps, int nodes_per_router,
                                                   NetworkParams params = {}, double terminal = 100 * kGBps) {
  auto topology = std::make_shared<LineTopology>(caps, nodes_per_router, terminal);
  const auto nodes = static_cast<std::uint32_t>(topology->nodes().size());
  Placement placement = identity_placement(*topology, nodes);
  return std::make_shared<Network>(std::move(topology), std::move(placement), params);
}

// A message given to a model directly: leaves `src` at `time_ps` for `dst`.
struct Message {
  std::uint64_t time_ps;
  std::uint32_t src;
  std::uint32_t dst;
  std::uint64_t bytes;
};

// Drives a model alone: injects every message, runs it dry, returns delivery time per message;
// checks on the way that time never goes back, deliveries are not early, reach their receiver,
// come once each, and that nothing is left in flight.
inline std::vector<std::uint64_t> deliveries(Model& model, const std::vector<Message>& messages,
                                             const sim::LogGOPSParams& params, std::uint32_t ranks) {
  model.begin(ranks, params);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    model.inject(messages[i].time_ps, messages[i].src, messages[i].dst, messages[i].bytes, i);
  }
  std::vector<std::uint64_t> at(messages.size(), 0);
  std::vector<sim::NetDelivery> out;
  std::uint64_t previous = 0;
  for (int steps = 0; steps < 10'000'000; ++steps) {
    const std::uint64_t t = model.next_time();
    if (t == sim::kNetIdle) {
      break;
    }
    EXPECT_GE(t, previous);
    previous = t;
    out.clear();
    model.advance(t, out);
    for (const sim::NetDelivery& d : out) {
      EXPECT_GE(d.time_ps, t);
      EXPECT_EQ(d.dst, messages.at(d.token).dst);
      EXPECT_EQ(at.at(d.token), 0U) << "message " << d.token << " delivered twice";
      at.at(d.token) = d.time_ps;
    }
  }
  EXPECT_EQ(model.in_flight(), 0U);
  return at;
}

// No latency, no NIC bound: the links decide, and delivery times are the transfers' end times.
inline sim::LogGOPSParams bare() {
  sim::LogGOPSParams p;
  p.latency = sim::SimTime{0};
  p.gap_per_byte = sim::SimTime{0};
  return p;
}

}  // namespace gridlock::net::nettest
