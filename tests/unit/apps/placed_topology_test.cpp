// make_placed_topology() (issue 36 §4): a run on the part of a torus its placement uses gives the
// figures of the run on the whole torus, and costs what the part does.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/net/report.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/topo/spec.hpp"
#include "placement_options.hpp"

namespace gridlock::net {
namespace {

using cli::make_placed_topology;
using cli::make_placement;
using cli::PlacedTopology;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20U;

// What a run leaves that a user sees: finish times, bytes per named link, the report.
struct RunFigures {
  std::vector<std::uint64_t> finish_ps;
  std::map<std::string, double> link_bytes;  // links that carried bytes, by name
  NetReport report;
};

RunFigures run(const std::shared_ptr<const topo::Topology>& topology, Placement placement, ModelKind kind,
               const NetworkParams& params, const sim::Schedule& schedule) {
  auto network = std::make_shared<const Network>(topology, std::move(placement), params);
  PacketOptions packet;
  const std::unique_ptr<Model> model = make_model(kind, network, packet);
  sim::SimOptions options;
  options.network = model.get();
  const sim::SimResult result = sim::simulate(schedule, options);
  EXPECT_TRUE(result.complete);
  RunFigures out;
  for (const sim::SimTime t : result.finish) {
    out.finish_ps.push_back(t.ps);
  }
  const NetStats& stats = model->stats();
  for (topo::LinkId l = 0; l < stats.link_bytes.size(); ++l) {
    if (stats.link_bytes[l] > 0) {
      out.link_bytes[topology->link_name(l)] = stats.link_bytes[l];
    }
  }
  out.report = make_net_report(*network, stats, result.max_finish.ps);
  return out;
}

void expect_same(const RunFigures& whole, const RunFigures& part, const std::string& what) {
  EXPECT_EQ(whole.finish_ps, part.finish_ps) << what;
  EXPECT_EQ(whole.link_bytes, part.link_bytes) << what;
  EXPECT_FALSE(whole.link_bytes.empty()) << what;
  const NetReport& a = whole.report;
  const NetReport& b = part.report;
  EXPECT_EQ(a.links, b.links) << what;
  EXPECT_EQ(a.busy_links, b.busy_links) << what;
  EXPECT_EQ(a.idle_links, b.idle_links) << what;
  EXPECT_EQ(a.utilisation_histogram, b.utilisation_histogram) << what;
  EXPECT_EQ(a.max_utilisation, b.max_utilisation) << what;
  ASSERT_EQ(a.top_links.size(), b.top_links.size()) << what;
  for (std::size_t i = 0; i < a.top_links.size(); ++i) {
    EXPECT_EQ(a.top_links[i].link, b.top_links[i].link) << what << " top link " << i;
    EXPECT_EQ(a.top_links[i].name, b.top_links[i].name) << what << " top link " << i;
    EXPECT_EQ(a.top_links[i].bytes, b.top_links[i].bytes) << what << " top link " << i;
  }
  EXPECT_EQ(a.slowdown.count, b.slowdown.count) << what;
  EXPECT_EQ(a.slowdown.max, b.slowdown.max) << what;
}

std::string fmt_what(const PlacementSpec& placement, std::uint32_t ranks_per_node, ModelKind kind,
                     bool spread) {
  const std::string name = placement.kind == PlacementKind::kIdentity ? "identity"
                           : placement.kind == PlacementKind::kRandom ? "random"
                                                                      : "rankfile";
  return name + ", " + std::to_string(ranks_per_node) + " per node, " + to_string(kind) +
         (spread ? ", spread" : "");
}

std::string write_rankfile(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(PlacedTopology, ThePartGivesTheWholeTorusFigures) {
  const std::string spec = "torus:8x8x8";
  // Contention on shared rings, messages of several packets, ranks on scattered nodes.
  const sim::Schedule schedule =
      sim::generate("allreduce(size=64KiB); alltoall(algo=linear, size=8KiB)", 6, 1);
  const std::shared_ptr<const topo::Topology> whole = topo::make_topology(spec);
  const std::string rankfile =
      write_rankfile("placed_topology_rankfile.txt",
                     "rank 0=nid00700 slot=0\nrank 1=nid00013 slot=0\nrank 2=nid01000 slot=0\n"
                     "rank 3=nid00013 slot=1\nrank 4=nid00450 slot=0\nrank 5=nid00222 slot=0\n");
  struct Case {
    PlacementSpec placement;
    std::uint32_t ranks_per_node;
  };
  const std::vector<Case> cases{{{PlacementKind::kRandom, {}}, 1},
                                {{PlacementKind::kRandom, {}}, 2},
                                {{PlacementKind::kIdentity, {}}, 1},
                                {{PlacementKind::kRankfile, rankfile}, 1}};
  for (const Case& c : cases) {
    for (const ModelKind kind : {ModelKind::kFlow, ModelKind::kPacket}) {
      for (const bool spread : {false, true}) {
        if (spread && kind == ModelKind::kPacket) {
          continue;  // the flow model's option
        }
        const std::string what = fmt_what(c.placement, c.ranks_per_node, kind, spread);
        MemoryBudget budget(std::uint64_t{1} << 40U);
        PlacedTopology placed =
            make_placed_topology(spec, schedule.num_ranks(), c.placement, c.ranks_per_node, 7, budget);
        EXPECT_LT(placed.topology->links().size(), whole->links().size()) << what;
        Placement whole_placement =
            make_placement(*whole, schedule.num_ranks(), c.placement, c.ranks_per_node, 7);
        // The same nodes, by name.
        ASSERT_EQ(placed.placement.node_of_rank.size(), whole_placement.node_of_rank.size());
        for (std::size_t r = 0; r < whole_placement.node_of_rank.size(); ++r) {
          EXPECT_EQ(placed.topology->nodes()[placed.placement.node_of_rank[r]].name,
                    whole->nodes()[whole_placement.node_of_rank[r]].name)
              << what << " rank " << r;
        }
        EXPECT_EQ(placed.placement.description, whole_placement.description);
        NetworkParams params;
        params.hop_latency_ps = 100'000;
        params.spread = spread;
        params.spread_seed = 3;
        expect_same(run(whole, std::move(whole_placement), kind, params, schedule),
                    run(placed.topology, std::move(placed.placement), kind, params, schedule), what);
      }
    }
  }
}

TEST(PlacedTopology, TwoRanksOnAHugeTorusCostWhatTheyUse) {
  // torus:128x128x128 is 2 million routers (several GB built); two ranks use a few hundred.
  MemoryBudget budget(64 * kMiB);
  const sim::Schedule schedule = sim::generate("allreduce(size=1KiB)", 2, 1);
  PlacedTopology placed =
      make_placed_topology("torus:128x128x128", 2, PlacementSpec{PlacementKind::kRandom, {}}, 1, 1, budget);
  EXPECT_EQ(placed.topology->nodes().size(), 2U);
  // Rings through two coordinates in each dimension: 3 x 2 x 2 rings of 128 routers at most.
  EXPECT_LE(placed.topology->routers().size(), 12U * 128U);
  EXPECT_EQ(placed.topology->whole_link_count(), topo::estimate_topology_size("torus:128x128x128").links);
  const RunFigures figures =
      run(placed.topology, std::move(placed.placement), ModelKind::kPacket, NetworkParams{}, schedule);
  EXPECT_EQ(figures.report.links, placed.topology->whole_link_count());
  EXPECT_EQ(figures.report.idle_links, figures.report.links - figures.report.busy_links);
  EXPECT_LT(budget.reserved_bytes(), 64 * kMiB);
}

TEST(PlacedTopology, APartTooLargeForTheBudgetIsRefusedBeforeItIsBuilt) {
  MemoryBudget budget(kMiB);
  try {
    (void)make_placed_topology("torus:64x64x64", 5000, PlacementSpec{PlacementKind::kRandom, {}}, 1, 1,
                               budget);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the part of the network torus:64x64x64 that 5000 ranks use ("),
              std::string::npos)
        << e.what();
  }
  // The whole topology where the spec has no parts, as make_placement() gives it.
  MemoryBudget large(std::uint64_t{1} << 40U);
  const std::string dragonfly = "dragonfly:g=9,a=4,p=2,h=2";
  PlacedTopology placed =
      make_placed_topology(dragonfly, 5, PlacementSpec{PlacementKind::kRandom, {}}, 1, 9, large);
  const auto whole = topo::make_topology(dragonfly);
  EXPECT_EQ(placed.topology->links().size(), whole->links().size());
  EXPECT_EQ(placed.placement.node_of_rank, random_placement(*whole, 5, 1, 9).node_of_rank);
}

TEST(PlacedTopology, RankfileErrorsNameTheFileAndTheWholeTorusNodes) {
  MemoryBudget budget(std::uint64_t{1} << 40U);
  const auto message = [&](const std::string& name, const std::string& text) {
    try {
      (void)make_placed_topology("torus:8x8x8", 2,
                                 PlacementSpec{PlacementKind::kRankfile, write_rankfile(name, text)}, 1, 1,
                                 budget);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string unknown = message("placed_unknown.txt", "rank 0=nid00001 slot=0\nrank 1=zz9 slot=0\n");
  // As on the whole torus: the file, the line, the host and the torus's nodes.
  EXPECT_NE(unknown.find("placed_unknown.txt:2: host 'zz9' is not in the allocation"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("are nid00000 .. nid01023"), std::string::npos) << unknown;
  // An index is a node for the part, not a host name for the rankfile: named as on the whole torus.
  const std::string index = message("placed_index.txt", "rank 0=nid00001 slot=0\nrank 1=5 slot=0\n");
  EXPECT_NE(index.find("host '5' is not in the allocation"), std::string::npos) << index;
  EXPECT_NE(index.find("are nid00000 .. nid01023"), std::string::npos) << index;
  const std::string empty = message("placed_empty.txt", "# nothing\n");
  EXPECT_NE(empty.find("places 0 ranks"), std::string::npos) << empty;
  const std::string malformed = message("placed_malformed.txt", "rank 0=nid00001 slot=0\nrank1 nid00002\n");
  EXPECT_NE(malformed.find("placed_malformed.txt:2: malformed line"), std::string::npos) << malformed;
}

}  // namespace
}  // namespace gridlock::net
