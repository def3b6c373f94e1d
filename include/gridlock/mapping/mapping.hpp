#pragma once
/// @file
/// Placements of tasks on cores: Scotch graph mapping on the machine weights, the baselines the
/// paper compares with, and the costs gridlock computes for any placement.
///
/// A placement gives the core (see Allocation) of each task; no two tasks share a core, so there
/// may be at most as many tasks as cores.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/mapping/machine.hpp"
#include "gridlock/mapping/task_graph.hpp"

namespace gridlock::mapping {

/// The core of each task.
using Placement = std::vector<std::uint32_t>;

/// Throws InputError unless `placement` has one entry per task, each below `num_cores`, all
/// distinct.
void check_placement(const Placement& placement, std::uint32_t num_tasks, std::uint32_t num_cores);

/// Baseline: task t on core t (MPI's default block placement).
[[nodiscard]] Placement identity_placement(std::uint32_t num_tasks, const Allocation& allocation);
/// Baseline: task t on node t mod n, round-robin over the nodes (`--map-by node`).
[[nodiscard]] Placement cyclic_placement(std::uint32_t num_tasks, const Allocation& allocation);
/// Baseline: a uniformly random injective placement from `seed`.
[[nodiscard]] Placement random_placement(std::uint32_t num_tasks, const Allocation& allocation,
                                         std::uint64_t seed);
/// Baseline: geometric mapping by recursive coordinate bisection of task coordinates (the task
/// graph's, or the task index when it has none) and core coordinates (their routers'
/// coordinates), the idea of the MJ mapper the paper compares with.
[[nodiscard]] Placement geometric_placement(const TaskGraph& graph, const Machine& machine);

/// How Scotch maps.
enum class Levels : std::uint8_t {
  kAuto,   ///< One level up to `two_level_above` cores, two levels above.
  kCores,  ///< One level: the complete graph over all cores (the paper's method).
  kNodes,  ///< Two levels: nodes first (core counts as weights), then cores inside each node.
};

/// Parses `--levels`: `auto`, `cores` or `nodes`. Throws InputError listing them.
[[nodiscard]] Levels parse_levels(std::string_view text);

/// Options of the Scotch mapper.
struct ScotchOptions {
  std::uint64_t seed = 1;                ///< Seed of Scotch's random generator.
  Levels levels = Levels::kAuto;         ///< One or two levels.
  std::uint32_t two_level_above = 1024;  ///< kAuto: cores above which to map two levels.
  /// Scotch runs with seeds derived from `seed` (1..1000), keeping the cheapest placement
  /// (gridlock's cost under the metric); 1 is the paper's method.
  std::uint32_t tries = 1;
  /// After Scotch, swap tasks pairwise while gridlock's exact cost drops (gridlock's addition, not
  /// the paper's method; at most 8,192 cores or nodes).
  bool refine = false;
  /// Scotch architecture: `auto` (deco up to 256 terminals, deco2 above), `deco` (archBuild0, exact
  /// distances, cubic time) or `deco2` (archBuild2, multilevel).
  std::string architecture = "auto";
  /// Scotch's speed strategy (SCOTCH_STRATSPEED) instead of its quality strategy (up to 4,096
  /// vertices) or default one: for mappings made while an application waits (reorders).
  bool speed = false;
};

/// What the Scotch mapper did.
struct ScotchReport {
  std::string levels;                ///< `cores` or `nodes`.
  std::string architecture;          ///< `deco` (archBuild0) or `deco2` (archBuild2).
  std::uint32_t terminals = 0;       ///< Vertices of the architecture.
  std::uint32_t repaired_tasks = 0;  ///< Tasks moved because Scotch put two on one core or node.
  std::uint32_t tries = 1;           ///< Scotch runs (seeds) tried.
  std::uint32_t swaps = 0;           ///< Swaps made by the refinement, over all tries.
  double build_seconds = 0;          ///< Building the graphs and the architecture.
  double map_seconds = 0;            ///< SCOTCH_graphMap.
  std::string scotch_version;        ///< e.g. `7.0.3`.
};

/// Maps the task graph onto the machine with Scotch (deco architecture from the complete weighted
/// graph of the cores or nodes, graphMap with a zero-imbalance strategy), then makes the result
/// injective. Deterministic for a given seed. Throws InputError for more tasks than cores or a
/// metric the machine has no data for, and Error for a Scotch failure (with Scotch's message).
[[nodiscard]] Placement scotch_placement(const TaskGraph& graph, const Machine& machine, WeightMetric metric,
                                         const ScotchOptions& options = {}, ScotchReport* report = nullptr);

/// Checks that the Scotch library linked in was built with the integer width of the header
/// gridlock was compiled with (a mismatch links and runs silently wrong). Throws Error otherwise.
void check_scotch_library();

/// A cost of a placement under one weight metric.
struct Cost {
  double total = 0;        ///< Sum over messages of bytes x weight.
  double max_message = 0;  ///< Largest bytes x weight of one message (the paper's Fig. 5).
};

/// The costs of one placement under every metric the machine has data for.
struct CostRow {
  std::string mapping;                               ///< e.g. `identity`, `scotch:stalls`.
  std::vector<std::pair<WeightMetric, Cost>> costs;  ///< Per metric evaluated.
  double hop_bytes = 0;                              ///< Sum over messages of bytes x network hops.
  double map_seconds = 0;                            ///< Time to compute the placement.
  /// The cost under `metric`, if evaluated.
  [[nodiscard]] std::optional<Cost> cost(WeightMetric metric) const;
};

/// Computes the costs of `placement` (gridlock's own arithmetic, never Scotch's).
[[nodiscard]] CostRow evaluate_placement(const TaskGraph& graph, const Machine& machine,
                                         const Placement& placement, std::string mapping_name);

/// Percent change of `value` against `baseline` (negative: better); 0 when both are 0.
[[nodiscard]] double percent_change(double value, double baseline) noexcept;

}  // namespace gridlock::mapping
