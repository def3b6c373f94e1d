#pragma once
/// @file
/// One mapping run as the `gridlock map` tool and the in-application remapper do it: placements by
/// several methods on one machine, their cost table, and its text and JSON forms.
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

/// The cost tables as text: total cost and costliest message under each metric, each with its
/// change against identity in percent, plus hop-bytes, as Markdown-style `| ... |` rows.
[[nodiscard]] std::string study_table(const Study& study);

}  // namespace gridlock::mapping
