#pragma once
/// @file
/// `gridlock predict mapping` (docs/predict.md, "Mapping under congestion"): what a task mapping
/// recovers of the time congestion costs, on a simulated network where messages share links.
/// The experiment of Brandt, Devine, Gentile and Pedretti (the mapping paper, Table II): an
/// application's iterations of its task graph's messages (SpMV's halo exchange by default) run
/// on an allocation once alone and once beside the paper's competing traffic, for each mapping
/// (identity, geometric, Scotch with the HOPS, BW and STALLS weights of gridlock::mapping); the
/// share of the congestion time a mapping recovers is the paper's Fig. 6 measure.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/net/model.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/schedule.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::predict {

/// The paper's 16 application nodes on its 2x2x8 Gemini torus (Fig. 3).
[[nodiscard]] std::vector<std::string> paper_mapping_nodes();

/// The paper's competing traffic: node pairs that exchange large messages both ways
/// (nid00016<->nid00040, nid00048<->nid00042, nid00012<->nid00038).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> paper_congestor_pairs();

/// The paper's Table II, percent of the congestion time recovered, for a mapping method name
/// (`scotch:hops` 14.2, `scotch:bw` 43.2, `scotch:stalls` 48.9, `geometric` 25.5 for MJ); NaN
/// for methods the table has no figure for.
[[nodiscard]] double paper_recovered_pct(std::string_view method) noexcept;

/// Percent of the congestion time a mapping recovers (the paper's Fig. 6):
/// 100 x (T_cong(identity) - T_cong(mapping)) / (T_cong(identity) - T_alone(identity)). NaN when
/// congestion did not slow the identity placement (denominator <= 0) or a time is NaN. Negative:
/// the mapping is slower than identity under congestion; above 100: faster than identity alone.
[[nodiscard]] double recovered_pct(double identity_alone, double identity_congested,
                                   double mapping_congested) noexcept;

/// Most computation per task and iteration (--compute): 1 s, so that iterations x compute stays
/// far inside the simulator's 64-bit picoseconds.
inline constexpr std::uint64_t kMaxMappingComputePs = 1'000'000'000'000;
/// Largest message of the competing traffic (--congestor-size): 1 GiB.
inline constexpr std::uint64_t kMaxCongestorBytes = std::uint64_t{1} << 30;
/// Most ranks (cores) per allocated node (--cores-per-node).
inline constexpr std::uint32_t kMaxMappingCoresPerNode = 4096;

/// What `gridlock predict mapping` is asked for; the defaults are the paper's setup.
struct MappingPredictOptions {
  std::string network_spec = "torus:2x2x8";                ///< Topology spec.
  std::vector<std::string> nodes = paper_mapping_nodes();  ///< Allocated node names, in order.
  std::uint32_t cores_per_node = 4;                        ///< Ranks (cores) per allocated node.
  std::string tasks = "stencil3d:4x4x4";                   ///< Task graph spec (mapping::parse_task_graph).
  /// Mapping methods (mapping::parse_method names), identity first or added; empty: identity,
  /// cyclic, random, geometric and Scotch with none, hops, bw, stalls and hops+stalls.
  std::vector<std::string> methods;
  /// Link metrics for the machine weights (mapping::fetch_node_metrics; `sim:paper`: the
  /// oracle's simulated load of the same competing traffic at line rate).
  std::string source = "sim:paper";
  net::ModelKind model = net::ModelKind::kFlow;  ///< Network model.
  net::PacketOptions packet;                     ///< Packet model parameters (seeded with `seed`).
  std::uint64_t seed = 1;                        ///< Random baseline, Scotch and the packet model.
  /// Scotch and random placements with seeds seed .. seed + seeds - 1; a row's figures are means
  /// over them (placements that repeat, such as the deterministic baselines, are simulated once).
  std::uint32_t seeds = 1;
  std::uint32_t iterations = 20;             ///< Iterations of the application (the paper ran 10,000).
  std::uint64_t compute_ps = 0;              ///< Computation of each task after each halo exchange.
  std::uint64_t hop_latency_ps = 100'000;    ///< Router-to-router hop latency (Gemini: about 100 ns).
  sim::LogGOPSParams params;                 ///< Host and NIC parameters (default_predict_params()).
  std::uint64_t congestor_bytes = 1U << 20;  ///< Message size of the competing traffic (1 MiB).
  /// Competing traffic: node-name pairs exchanging congestor_bytes messages both ways, back to back.
  std::vector<std::pair<std::string, std::string>> congestor_pairs = paper_congestor_pairs();
  /// Called with one line per simulation (empty: quiet).
  std::function<void(std::string_view)> progress;
  /// Memory budget of one simulation run in bytes (0: default_max_memory_bytes()); a run whose
  /// estimate is larger is refused before it is built (`--max-memory`).
  std::uint64_t max_memory_bytes = 0;

  /// The paper's setup with default_predict_params().
  MappingPredictOptions();
};

/// One mapping's simulated times.
struct MappingPrediction {
  std::string method;                     ///< e.g. `identity`, `scotch:stalls`.
  std::vector<std::string> node_of_task;  ///< Node name of each task (its rank's node), first seed.
  double alone_us = 0;                    ///< Application time alone: latest finish over its ranks (mean).
  double congested_us = 0;                ///< The same beside the competing traffic, from its start (mean).
  double slowdown = 0;                    ///< congested_us / alone_us.
  double recovered_pct = 0;               ///< Mean of recovered_pct() against identity (0 for identity).
  double recovered_min_pct = 0;           ///< Smallest recovered_pct() over the seeds.
  double recovered_max_pct = 0;           ///< Largest recovered_pct() over the seeds.
  std::vector<double> recovered_pct_per_seed;  ///< recovered_pct() of each seed, in seed order.
  double paper_pct = 0;                        ///< paper_recovered_pct() (NaN: no figure).
  std::uint64_t congestor_messages = 0;        ///< Messages of each congestor rank (first seed).
  /// When the first congestor rank ended, from the application's start (first seed; at least
  /// congested_us unless starved: the congestors outlast the application).
  double congestors_end_us = 0;
  int attempts = 1;  ///< Congested runs until the congestors outlasted the application (first seed).
  /// With some seed the application ended only after the congestors in every attempt
  /// (congested_us, slowdown and the recovered figures are then NaN).
  bool starved = false;
  std::uint32_t starved_seeds = 0;  ///< Seeds with which it starved.
};

/// A whole prediction: one row per method (identity first) and the context of the run.
struct MappingReport {
  std::vector<MappingPrediction> rows;  ///< Identity first.
  Json context;                         ///< Context block (schema gridlock.predict.mapping).
  std::string congestor_summary;        ///< e.g. `3 pairs, 1048576 B messages both ways`.
  std::vector<std::string> notes;       ///< Caveats of the run (starved mappings).
  std::uint32_t seeds = 1;              ///< Seeds the figures are means over.
};

/// An application schedule plus congestor ranks, and which ranks are which.
struct MappingSchedule {
  sim::Schedule schedule;       ///< Tasks are ranks 0..tasks-1; then one rank per congestor endpoint.
  std::uint32_t app_ranks = 0;  ///< Number of application ranks.
  /// Per congestor rank (rank app_ranks + i): its node name.
  std::vector<std::string> congestor_nodes;
};

/// The application: `iterations` times, each task sends each of its task graph's messages (all at
/// once, as SpMV's halo exchange and the generator's `halo3d` step post them) and receives each
/// incoming one, then computes `compute_ps`; the next iteration starts after all of it.
/// `start_delay_ps` > 0 starts every task with a calc of that length (the congestors' warm-up).
/// With `congestor_messages` > 0, two ranks per pair of `pairs` send each other that many
/// messages of `congestor_bytes` back to back (two outstanding per direction). Throws InputError
/// for an unknown task graph spec or 0 iterations.
[[nodiscard]] MappingSchedule build_mapping_schedule(
    std::string_view tasks, std::uint32_t iterations, std::uint64_t compute_ps, std::uint64_t start_delay_ps,
    const std::vector<std::pair<std::string, std::string>>& pairs, std::uint64_t congestor_bytes,
    std::uint64_t congestor_messages);

/// Runs the prediction. Throws InputError before any simulation for an unknown spec, node,
/// method or source, more tasks than cores, congestor nodes the topology does not have, 0
/// iterations or cores, and packet options the packet model refuses.
[[nodiscard]] MappingReport predict_mapping(const MappingPredictOptions& options);

/// The report as a text table (`| mapping | alone | congested | slowdown | recovered | paper |`;
/// with several seeds a `range` column, the smallest and largest recovered % over them).
[[nodiscard]] std::string mapping_table(const MappingReport& report);

/// The report's JSON body (docs/formats/predict-mapping-json.md); the context is report.context.
[[nodiscard]] Json mapping_report_body(const MappingReport& report);

}  // namespace gridlock::predict
