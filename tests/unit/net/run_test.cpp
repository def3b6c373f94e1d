// A run on a network model assembled from plain options, without the CLI: the preset's defaults
// and the options that win over them, the checks before the schedule is read, the placement
// (a rankfile through the caller's reader), the part of a torus, and the run's report.
#include "gridlock/net/run.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {
namespace {

constexpr std::uint64_t kPlenty = std::uint64_t{1} << 32U;  // 4 GiB

// A reader that puts rank r on node r + 1 and names the nodes "1", "2", ... as hosts.
RankfileReader shifted_reader(int* calls) {
  RankfileReader reader;
  reader.hosts = [](std::string_view /*text*/) { return std::vector<std::string>{"1", "2"}; };
  reader.nodes = [calls](const topo::Topology& /*topology*/, std::uint32_t ranks, std::string_view text,
                         std::string_view /*where*/, std::string_view /*first*/, std::string_view /*last*/) {
    ++*calls;
    EXPECT_EQ(text, "rank 0=a\n");
    std::vector<topo::NodeId> nodes;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      nodes.push_back(r + 1);
    }
    return nodes;
  };
  return reader;
}

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(PrepareNetworkRun, BuildsTheWholeTopologyWithDefaults) {
  NetworkRunOptions options;
  options.network = "dragonfly:g=5,a=2,p=2,h=2";  // no parts: built whole before the schedule
  MemoryBudget budget(kPlenty);
  const NetworkRun run = prepare_network_run(options, budget);
  EXPECT_EQ(run.kind, ModelKind::kFlow);
  ASSERT_NE(run.topology, nullptr);
  EXPECT_EQ(run.params.hop_latency_ps, 0U);
  EXPECT_EQ(run.packet.packet_bytes, PacketOptions{}.packet_bytes);
  EXPECT_GT(budget.reserved_bytes(), 0U);
}

TEST(PrepareNetworkRun, PresetValuesAreDefaultsOnly) {
  SystemPreset preset;
  preset.network_spec = "torus:4x4x1";
  preset.hop_latency_ps = 100'000;
  preset.packet.packet_bytes = 4096;
  preset.packet.buffer_bytes = 65536;
  preset.packet.vcs = 4;
  NetworkRunOptions options;
  options.network = preset.network_spec;
  options.preset = preset;
  options.net_model = "packet";
  options.buffer_bytes = 16384;
  MemoryBudget budget(kPlenty);
  const NetworkRun run = prepare_network_run(options, budget);
  EXPECT_EQ(run.params.hop_latency_ps, 100'000U);
  EXPECT_EQ(run.packet.packet_bytes, 4096U);
  EXPECT_EQ(run.packet.buffer_bytes, 16384U);
  EXPECT_EQ(run.packet.vcs, 4U);
  options.hop_latency = "50ns";
  EXPECT_EQ(prepare_network_run(options, budget).params.hop_latency_ps, 50'000U);
}

TEST(PrepareNetworkRun, RefusesPacketOptionsOfTheFlowModelAndLongHops) {
  NetworkRunOptions options;
  options.network = "torus:4x4x1";
  options.vcs = 2;
  MemoryBudget budget(kPlenty);
  EXPECT_NE(message_of([&] { (void)prepare_network_run(options, budget); }).find("add --net-model packet"),
            std::string::npos);
  options.vcs.reset();
  options.hop_latency = "2s";
  EXPECT_NE(
      message_of([&] { (void)prepare_network_run(options, budget); }).find("--hop-latency 2s: at most 1 s"),
      std::string::npos);
  options.hop_latency.clear();
  options.net_model = "packet";
  options.packet_bytes = 2U << 20U;
  options.buffer_bytes = 4U << 20U;
  const std::string too_large = message_of([&] { (void)prepare_network_run(options, budget); });
  EXPECT_NE(too_large.find("a packet size of 2097152 bytes"), std::string::npos) << too_large;
}

TEST(PrepareNetworkRun, LeavesATorusPartForThePlacement) {
  NetworkRunOptions options;
  options.network = "torus:64x64x64";
  options.placement = "random";
  MemoryBudget budget(kPlenty);
  NetworkRun run = prepare_network_run(options, budget);
  EXPECT_EQ(run.topology, nullptr);
  int calls = 0;
  place_network_run(run, 8, budget, shifted_reader(&calls));
  ASSERT_NE(run.topology, nullptr);
  EXPECT_LT(run.topology->nodes().size(), 1000U);  // a part, not 262,144 nodes
  ASSERT_NE(run.model, nullptr);
  EXPECT_EQ(calls, 0);
}

TEST(PlaceRanks, ReadsARankfileThroughTheReader) {
  const std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / "net_run_test.rankfile";
  std::ofstream(file) << "rank 0=a\n";
  const std::shared_ptr<const topo::Topology> topology = topo::make_topology("torus:4x1x1");
  int calls = 0;
  const PlacementChoice choice{parse_placement_spec("rankfile:" + file.string()), 1, 0};
  const Placement placement = place_ranks(*topology, 2, choice, shifted_reader(&calls));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(placement.node_of_rank, (std::vector<topo::NodeId>{1, 2}));
  const PlacementChoice crowded{choice.spec, 2, 0};
  EXPECT_NE(message_of([&] {
              (void)place_ranks(*topology, 2, crowded, shifted_reader(&calls));
            }).find("leave out --ranks-per-node"),
            std::string::npos);
  std::filesystem::remove(file);
}

TEST(ReportRun, PrintsTheRunAndTheNetwork) {
  NetworkRunOptions options;
  options.network = "torus:4x1x1";
  MemoryBudget budget(kPlenty);
  NetworkRun run = prepare_network_run(options, budget);
  int calls = 0;
  place_network_run(run, 4, budget, shifted_reader(&calls));
  sim::SimOptions sim_options;
  sim_options.network = run.model.get();
  const sim::SimResult result = sim::simulate(sim::generate("allreduce(size=1KiB)", 4, 1), sim_options);
  sim::RunInfo info;
  info.ranks = 4;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  report_run(out, RunOutputs{}, info, result, &run);
  std::rewind(out);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  (void)std::fclose(out);
  EXPECT_NE(text.find("flow"), std::string::npos) << text;
  EXPECT_NE(text.find("hop latency"), std::string::npos) << text;
}

}  // namespace
}  // namespace gridlock::net
