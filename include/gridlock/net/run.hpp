#pragma once
/// @file
/// A simulator run on a network model, assembled from plain options (`gridlock sim --network`;
/// docs/network-models.md, "Using the models"): the topology (whole, or the part a placement
/// uses), the placement of the ranks, the model, and the run's report on stdout and in its files.
/// Rankfile placements are resolved by a RankfileReader the caller gives (gridlock::mapping's in
/// the CLI), so that the models do not depend on mapping.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/memory.hpp"
#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/net/system.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/run_report.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::net {

/// Resolves a rankfile's hosts to nodes (mapping::rankfile_hosts and mapping::read_rankfile_nodes).
struct RankfileReader {
  /// The host names the rankfile text names (malformed lines skipped).
  std::function<std::vector<std::string>(std::string_view text)> hosts;
  /// Each rank's node of `topology` as the text says; `where` names the file in messages,
  /// `first_node` and `last_node` the whole topology's nodes where `topology` is a part of it.
  std::function<std::vector<topo::NodeId>(const topo::Topology& topology, std::uint32_t ranks,
                                          std::string_view text, std::string_view where,
                                          std::string_view first_node, std::string_view last_node)>
      nodes;
};

/// The rankfile of `spec`, read whole (IoError when it cannot be read), after checking that
/// `ranks_per_node` was left at 1 (InputError otherwise): the file says where every rank goes.
[[nodiscard]] std::string read_placement_rankfile(const PlacementSpec& spec, std::uint32_t ranks_per_node);

/// The placement `choice` describes for `ranks` ranks on `topology`: identity and random put
/// `ranks_per_node` ranks on each node (random shuffles the nodes with the seed); a rankfile is read
/// (read_placement_rankfile()) and resolved by `rankfiles`. Throws InputError as the placements do.
[[nodiscard]] Placement place_ranks(const topo::Topology& topology, std::uint32_t ranks,
                                    const PlacementChoice& choice, const RankfileReader& rankfiles);

/// The whole topology the spec `network` describes, its size estimated from the spec's formulas
/// and reserved in `budget` before it is built. Throws InputError as topo::make_topology() and
/// MemoryBudget::reserve() do.
[[nodiscard]] std::shared_ptr<const topo::Topology> make_whole_topology(std::string_view network,
                                                                        MemoryBudget& budget);

/// A placement and the topology it places ranks on.
struct PlacedTopology {
  /// The part of the topology the placement's nodes use, or the whole topology.
  std::shared_ptr<const topo::Topology> topology;
  Placement placement;  ///< Node ids of `topology`.
};

/// place_ranks() on the topology the spec `network` describes, building only the part of it that
/// routes between the placement's nodes use where the topology has parts (topo::make_topology_part():
/// a torus without a coordinates file), otherwise the whole topology: memory and time grow with the
/// nodes used, not with the network. The placement takes the same nodes as place_ranks() on the
/// whole topology, so a model gives the same figures on the part. The topology's estimated size is
/// reserved in `budget` before it is built.
[[nodiscard]] PlacedTopology make_placed_topology(std::string_view network, std::uint32_t ranks,
                                                  const PlacementChoice& choice, MemoryBudget& budget,
                                                  const RankfileReader& rankfiles);

/// The options of a run on a network, as the command line gives them. A packet option left empty
/// takes the preset's value (when there is one), else the model's default.
struct NetworkRunOptions {
  std::string network;                                ///< Topology spec (--network, or the preset's).
  std::string net_model = "flow";                     ///< flow or packet.
  std::string placement = "identity";                 ///< identity, random or rankfile:FILE.
  std::string hop_latency;                            ///< Time text; empty: the preset's, else 0.
  std::optional<SystemPreset> preset;                 ///< --system: its values are defaults.
  std::optional<std::uint32_t> packet_bytes;          ///< --packet-size.
  std::optional<std::uint32_t> buffer_bytes;          ///< --buffer.
  std::optional<std::uint32_t> vcs;                   ///< --vcs.
  std::optional<Routing> routing;                     ///< --routing.
  std::optional<bool> congestion_control;             ///< --congestion-control.
  std::optional<UgalRule> ugal_rule;                  ///< --ugal-rule.
  std::optional<std::uint64_t> ugal_threshold_bytes;  ///< --ugal-threshold.
  std::uint64_t seed = 1;                             ///< Random placement, spread and packet model seed.
  std::uint32_t ranks_per_node = 1;                   ///< Identity and random placements.
  bool spread = false;                                ///< Per-message route spread (flow model).
};

/// A run on a simulated network. Everything but the placement (which needs the schedule's rank
/// count) is checked and, where the spec has no parts, built by prepare_network_run().
struct NetworkRun {
  ModelKind kind = ModelKind::kFlow;  ///< The model.
  NetworkParams params;               ///< Hop latency, spread.
  PlacementChoice placement;          ///< How ranks are placed.
  PacketOptions packet;               ///< The packet model's options (with the preset's).
  std::string spec;                   ///< The topology spec.
  /// The whole topology, built before the schedule is read; or, where the spec has parts, the part
  /// the placement uses, built with it (place_network_run()).
  std::shared_ptr<const topo::Topology> topology;
  std::shared_ptr<const Network> network;  ///< Set by place_network_run().
  std::unique_ptr<Model> model;            ///< Set by place_network_run().
};

/// Checks `options` and builds the whole topology (its size reserved in `budget`) unless the spec
/// has parts. Throws InputError naming the option (--hop-latency above 1 s, packet options
/// without the packet model, the packet model's size checks, the spec's errors).
[[nodiscard]] NetworkRun prepare_network_run(const NetworkRunOptions& options, MemoryBudget& budget);

/// Places `ranks` ranks on the run's topology (building the part they use where the spec has
/// parts), reserves the model's memory in `budget` and makes the network and the model.
void place_network_run(NetworkRun& run, std::uint32_t ranks, MemoryBudget& budget,
                       const RankfileReader& rankfiles);

/// Where a single run's results go and what they show.
struct RunOutputs {
  std::string json;                      ///< --json (empty: none).
  std::string timeline;                  ///< --timeline (empty: none).
  bool per_rank = false;                 ///< Every rank's finish time, printed and in the JSON.
  const SystemPreset* preset = nullptr;  ///< --system: recorded in the context, named on stdout.
};

/// The run's result files (JSON, timeline) and then its text on `out`, with the network's report
/// when `network_run` is given; a run that did not complete ends with its stuck report (InputError)
/// after the JSON is written.
void report_run(std::FILE* out, const RunOutputs& outputs, const sim::RunInfo& info,
                const sim::SimResult& result, const NetworkRun* network_run);

}  // namespace gridlock::net
