// Packet model speed (issue 26: at least 5 M packet-hops per second on one core): an all-to-all
// on the 72-node dragonfly `dragonfly:g=9,a=4,p=2,h=2`, the model driven alone (every message
// injected at 0) and through the LogGOPS engine; a packet-hop is one packet crossing one link or
// NIC. Run: build/ci/bench/net_packet_bench --benchmark_repetitions=3
//   --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/topo/spec.hpp"

namespace {

namespace net = gridlock::net;
namespace sim = gridlock::sim;

constexpr std::uint32_t kRanks = 72;

std::shared_ptr<const net::Network> dragonfly() {
  static const std::shared_ptr<const net::Network> network = [] {
    std::shared_ptr<const gridlock::topo::Topology> topology =
        gridlock::topo::make_topology("dragonfly:g=9,a=4,p=2,h=2");
    net::Placement placement = net::identity_placement(*topology, kRanks);
    return std::make_shared<net::Network>(topology, std::move(placement), net::NetworkParams{100'000});
  }();
  return network;
}

net::PacketOptions options_for(std::int64_t routing) {
  net::PacketOptions o;
  o.routing = static_cast<net::Routing>(routing);
  return o;
}

// Every rank sends range(0) bytes to every other at time 0; NICs at 50 GB/s (G = 20 ps) so that
// the network, not the NICs, decides. Arg 1: routing (0 minimal, 1 valiant, 2 ugal).
void BM_PacketAlltoallModel(benchmark::State& state) {
  const auto bytes = static_cast<std::uint64_t>(state.range(0));
  net::PacketModel model(dragonfly(), options_for(state.range(1)));
  sim::LogGOPSParams params;
  params.gap_per_byte = sim::SimTime{20};
  std::vector<sim::NetDelivery> out;
  std::uint64_t hops = 0;
  std::uint64_t last = 0;
  for (auto _ : state) {
    model.begin(kRanks, params);
    std::uint64_t token = 0;
    for (std::uint32_t s = 0; s < kRanks; ++s) {
      for (std::uint32_t k = 1; k < kRanks; ++k) {
        model.inject(0, s, (s + k) % kRanks, bytes, token++);
      }
    }
    for (std::uint64_t t = model.next_time(); t != sim::kNetIdle; t = model.next_time()) {
      out.clear();
      model.advance(t, out);
    }
    hops += model.packet_hops();
    last = model.stats().last_delivery_ps;
  }
  state.counters["packet_hops_per_s"] =
      benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
  state.counters["packet_hops"] = static_cast<double>(model.packet_hops());
  state.counters["simulated_us"] = static_cast<double>(last) * 1e-6;
}
BENCHMARK(BM_PacketAlltoallModel)
    ->Args({65536, 0})
    ->Args({65536, 1})
    ->Args({65536, 2})
    ->Args({8192, 0})
    ->Unit(benchmark::kMillisecond);

// The same through the engine: the pairwise all-to-all schedule of 64 KiB messages, LogGOPS CPU
// side included (engine events are not counted as packet-hops).
void BM_PacketAlltoallEngine(benchmark::State& state) {
  static const sim::Schedule schedule = sim::generate("alltoall(algo=pairwise, size=64KiB)", kRanks, 1);
  net::PacketModel model(dragonfly(), options_for(state.range(0)));
  sim::SimOptions options;
  options.params.gap_per_byte = sim::SimTime{20};
  options.network = &model;
  std::uint64_t hops = 0;
  for (auto _ : state) {
    const sim::SimResult r = sim::simulate(schedule, options);
    hops += model.packet_hops();
    benchmark::DoNotOptimize(r.max_finish);
  }
  state.counters["packet_hops_per_s"] =
      benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PacketAlltoallEngine)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
