// The flow model beside SimGrid's max-min solver on the same platform and the same flows
// (issue 26: completion times within 5%, the flow model at least 10x faster).
//
// Both sides get the topology's links with their capacities and no latency (SimGrid's platform
// written by topo::write_simgrid_platform with zero latencies; the flow model with L = 0, no
// hop latency and no NIC bound, G = 0), and the same random flows (source node, destination node,
// bytes, start time; deterministic for --seed). SimGrid runs with its plain max-min model
// (network/model:CM02, no cross-traffic, no TCP window bound), the model the flow model
// implements. Prints per-flow agreement and both CPU times (process CPU time: the machines
// are shared, and both sides run on one thread); SimGrid's engine exists once per
// process, so repetitions are separate runs (bench/net_flow_vs_simgrid.sh takes the medians).
//
// Usage: bench_net_flow_vs_simgrid [--spec SPEC] [--flows N] [--seed S] [--window-us W]
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/net/flow_model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/topo/simgrid_platform.hpp"
#include "gridlock/topo/spec.hpp"

namespace sg4 = simgrid::s4u;

namespace {

struct Flow {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  std::uint64_t start_ps = 0;
};

std::vector<Flow> random_flows(std::uint32_t nodes, std::uint32_t count, std::uint64_t seed,
                               std::uint64_t window_ps) {
  gridlock::Rng rng(seed);
  std::vector<Flow> flows(count);
  for (Flow& f : flows) {
    f.src = static_cast<std::uint32_t>(gridlock::uniform_below(rng, nodes));
    f.dst = static_cast<std::uint32_t>(gridlock::uniform_below(rng, nodes - 1));
    if (f.dst >= f.src) {
      ++f.dst;
    }
    // 64 KiB to 16 MiB, log-uniform: from latency-free small transfers to long bulk ones.
    f.bytes = std::uint64_t{1} << (16 + gridlock::uniform_below(rng, 9));
    f.start_ps = gridlock::uniform_below(rng, window_ps + 1);
  }
  return flows;
}

// Completion times (ps after the start) from the flow model, driven directly.
std::vector<double> flow_model_times(const std::shared_ptr<const gridlock::topo::Topology>& topology,
                                     const std::vector<Flow>& flows, double& cpu_s) {
  const auto nodes = static_cast<std::uint32_t>(topology->nodes().size());
  auto network = std::make_shared<gridlock::net::Network>(
      topology, gridlock::net::identity_placement(*topology, nodes), gridlock::net::NetworkParams{});
  gridlock::net::FlowModel model(network);
  gridlock::sim::LogGOPSParams params;
  params.latency = gridlock::sim::SimTime{0};
  params.gap_per_byte = gridlock::sim::SimTime{0};
  std::vector<double> done(flows.size(), 0);
  const std::clock_t t0 = std::clock();
  model.begin(nodes, params);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    // The model carries s - 1 bytes (the first travels with L): one more to carry `bytes`.
    model.inject(flows[i].start_ps, flows[i].src, flows[i].dst, flows[i].bytes + 1, i);
  }
  std::vector<gridlock::sim::NetDelivery> out;
  for (std::uint64_t t = model.next_time(); t != gridlock::sim::kNetIdle; t = model.next_time()) {
    out.clear();
    model.advance(t, out);
    for (const auto& d : out) {
      done[d.token] = static_cast<double>(d.time_ps - flows[d.token].start_ps);
    }
  }
  cpu_s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  return done;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "dragonfly:g=9,a=4,p=2,h=2";
  std::uint32_t count = 2000;
  std::uint64_t seed = 1;
  double window_us = 2000;
  bool only_ours = false;  // --only-ours 1: no SimGrid run (for profiling the flow model)
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--spec") {
      spec = value;
    } else if (key == "--flows") {
      count = static_cast<std::uint32_t>(std::stoul(value));
    } else if (key == "--seed") {
      seed = std::stoull(value);
    } else if (key == "--only-ours") {
      only_ours = value == "1";
    } else if (key == "--window-us") {
      window_us = std::stod(value);
    } else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  try {
    std::shared_ptr<const gridlock::topo::Topology> topology = gridlock::topo::make_topology(spec);
    const auto nodes = static_cast<std::uint32_t>(topology->nodes().size());
    const std::vector<Flow> flows =
        random_flows(nodes, count, seed, static_cast<std::uint64_t>(window_us * 1e6));

    double ours_s = 0;
    const std::vector<double> ours = flow_model_times(topology, flows, ours_s);
    if (only_ours) {
      std::printf("flow model: %u flows on %s in %.4f s\n", count, spec.c_str(), ours_s);
      return 0;
    }

    const std::filesystem::path platform =
        std::filesystem::temp_directory_path() /
        ("gridlock-flow-vs-simgrid-" + std::to_string(::getpid()) + ".xml");
    gridlock::topo::SimgridPlatformOptions options;
    options.network_latency_ps = 0;
    options.terminal_latency_ps = 0;
    gridlock::topo::write_simgrid_platform(*topology, options, platform);

    std::vector<std::string> args = {"bench_net_flow_vs_simgrid", "--cfg=network/model:CM02",
                                     "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:0",
                                     "--log=root.threshold:critical"};
    std::vector<char*> cargs;
    for (std::string& a : args) {
      cargs.push_back(a.data());
    }
    int sg_argc = static_cast<int>(cargs.size());
    sg4::Engine engine(&sg_argc, cargs.data());
    engine.load_platform(platform.string());
    std::filesystem::remove(platform);
    std::vector<sg4::Host*> hosts;
    for (const auto& node : topology->nodes()) {
      hosts.push_back(engine.host_by_name(node.name));
    }
    std::vector<double> theirs(flows.size(), 0);
    const std::clock_t t0 = std::clock();
    // One actor per flow: it sleeps until the flow's start, sends, and notes the time it ended.
    for (std::size_t i = 0; i < flows.size(); ++i) {
      sg4::Actor::create("flow" + std::to_string(i), hosts[flows[i].src], [&flows, &hosts, &theirs, i] {
        const double start = static_cast<double>(flows[i].start_ps) * 1e-12;
        sg4::this_actor::sleep_until(start);
        sg4::Comm::sendto(hosts[flows[i].src], hosts[flows[i].dst], flows[i].bytes);
        theirs[i] = (sg4::Engine::get_clock() - start) * 1e12;
      });
    }
    engine.run();
    const double theirs_s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
    double max_rel = 0;
    double sum_rel = 0;
    std::size_t within5 = 0;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const double rel = std::abs(ours[i] - theirs[i]) / theirs[i];
      max_rel = std::max(max_rel, rel);
      sum_rel += rel;
      within5 += rel <= 0.05 ? 1 : 0;
    }
    std::printf(
        "| flows | spec | within 5%% | mean rel. diff | max rel. diff | flow model CPU s | SimGrid CPU s | "
        "speed-up |\n");
    std::printf("| %u | %s | %zu | %.5f | %.5f | %.4f | %.4f | %.1f |\n", count, spec.c_str(), within5,
                sum_rel / static_cast<double>(flows.size()), max_rel, ours_s, theirs_s, theirs_s / ours_s);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_net_flow_vs_simgrid: %s\n", e.what());
    return 1;
  }
}
