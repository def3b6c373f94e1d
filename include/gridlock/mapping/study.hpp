#pragma once
/// @file
/// One mapping run as the `gridlock map` tool and the in-application remapper do it: placements by
/// several methods on one machine, their cost table, and its text and JSON forms.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/mapping/mapping.hpp"

namespace gridlock::mapping {

/// A way to place tasks: a baseline or Scotch with a weight metric.
struct Method {
  enum class Kind : std::uint8_t {
    kIdentity,   ///< Task t on core t.
    kCyclic,     ///< Round-robin over nodes.
    kRandom,     ///< Seeded random.
    kGeometric,  ///< Recursive coordinate bisection.
    kScotch,     ///< Scotch graph mapping.
  };
  Kind kind = Kind::kScotch;                  ///< Which method.
  WeightMetric metric = WeightMetric::kHops;  ///< For kScotch: the machine weights.
  /// `identity`, `cyclic`, `random`, `geometric` or `scotch:<metric>`.
  [[nodiscard]] std::string name() const;
};

/// Parses `identity`, `cyclic`, `random`, `geometric`, `scotch` (with `default_metric`) or
/// `scotch:<metric>`; throws InputError listing them.
[[nodiscard]] Method parse_method(std::string_view text, WeightMetric default_metric);

/// The methods `--compare` runs: the four baselines, then Scotch with every metric the machine has
/// data for.
[[nodiscard]] std::vector<Method> comparison_methods(const Machine& machine);

/// Options of a study.
struct StudyOptions {
  std::uint64_t seed = 1;  ///< Seed of the random baseline and of Scotch.
  ScotchOptions scotch;    ///< Scotch's options (its seed is `seed`).
};

/// One method's result.
struct StudyRow {
  Method method;        ///< How the placement was made.
  Placement placement;  ///< The placement.
  CostRow costs;        ///< Its costs.
  ScotchReport scotch;  ///< For Scotch: what it did.
};

/// Results of a study: one row per method; rows[0] is identity (the baseline of every change).
struct Study {
  std::vector<StudyRow> rows;  ///< Identity first, then the methods in the order asked.
};

/// Places the graph with identity and then every method of `methods` (identity is not repeated).
/// `progress`, when not null, is called with a line before each method (for a long run's stderr).
[[nodiscard]] Study run_study(const TaskGraph& graph, const Machine& machine,
                              const std::vector<Method>& methods, const StudyOptions& options,
                              const std::function<void(const std::string&)>& progress = {});

/// The row of `study` placed by `method` (the last one, as `--compare` may list it twice), or 0
/// (identity) when no row was.
[[nodiscard]] std::size_t row_of(const Study& study, const Method& method);

/// Throws InputError unless the `graph`'s tasks fit on the cores of `allocation` (one task per
/// core), naming --nodes and --cores-per-node as the fix.
void check_tasks_fit(const TaskGraph& graph, const Allocation& allocation);

/// The options of a `gridlock map` run as given on its command line (the `parameters` of its
/// JSON; docs/formats/map-json.md).
struct MapParameters {
  std::string metric = "hops";        ///< --metric.
  std::string sim_rate = "line";      ///< --sim-rate.
  double timeout_s = 5;               ///< --timeout in seconds.
  std::string levels = "auto";        ///< --levels.
  std::uint32_t two_level_above = 1;  ///< --two-level-above.
  std::string architecture = "auto";  ///< --architecture.
  double stall_weight = 0.1;          ///< --stall-weight.
  bool compare = false;               ///< --compare.
  bool refine = false;                ///< --refine.
  std::uint32_t tries = 1;            ///< --tries.
  std::uint64_t seed = 1;             ///< --seed.
};

/// A finished `gridlock map` run: its study, the row written to the launch files and where the
/// link metrics came from.
struct MapResult {
  Study study;               ///< Every method's row.
  std::size_t chosen = 0;    ///< The row of the placement written out (row_of() the --method).
  std::string source;        ///< Where the link metrics came from.
  double fetch_seconds = 0;  ///< Time spent getting them.
};

/// The console report of `gridlock map`: the topology, allocation and task graph, where the
/// metrics came from and how the chosen placement was made, then study_table() and a note when
/// the bw and stalls columns are empty.
[[nodiscard]] std::string map_report_text(const MapResult& result, const Machine& machine,
                                          const TaskGraph& graph, std::uint64_t seed);

/// The cost tables as text: total cost and costliest message under each metric, each with its
/// change against identity in percent, plus hop-bytes, as Markdown-style `| ... |` rows.
[[nodiscard]] std::string study_table(const Study& study);

}  // namespace gridlock::mapping
