#pragma once
/// @file
/// `gridlock-bench noise`: every rank runs the selfish-detour measurement at the same time on its
/// own core; rank 0 gathers per-rank summaries into a per-node table and flags outlier nodes.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/noise/measure.hpp"

namespace gridlock::bench {

/// Options of `gridlock-bench noise`.
struct NoiseRunOptions {
  noise::MeasureOptions measure;     ///< Duration, threshold, timer, cap (cpu is chosen per rank).
  bool pin = true;                   ///< Pin rank i of a node to the i-th CPU it may use.
  double outlier_cutoff_ns = 1e9;    ///< Also summarise without detours longer than this (0: off).
  double mad_factor = 3.0;           ///< Flag nodes with noise fraction > median + this x MAD.
  std::uint64_t virtual_nodes = 0;   ///< As in `network`/`load` (testing on one machine).
  std::uint64_t ranks_per_node = 0;  ///< As in `network`/`load`.
  std::string json_path;             ///< --json.
  std::string traces_dir;            ///< --traces DIR: every rank writes DIR/noise-rank<R>.trace.
  bool quiet = false;                ///< No progress on stderr.
};

/// One rank's summary, as gathered to rank 0.
struct NoiseRankRow {
  int rank = 0;                 ///< World rank.
  std::uint64_t node = 0;       ///< Node id.
  int cpu = -1;                 ///< CPU pinned to (-1: not pinned).
  noise::NoiseSummary summary;  ///< Its measurement summary.
};

/// One node's row of the table.
struct NoiseNodeRow {
  std::uint64_t node = 0;         ///< Node id.
  std::string name;               ///< Node name.
  int ranks = 0;                  ///< Ranks measured on it.
  double noise_fraction = 0;      ///< Mean noise fraction over its ranks.
  double max_noise_fraction = 0;  ///< Worst rank.
  double detours_per_s = 0;       ///< Mean detour rate over its ranks.
  double p99_detour_ns = 0;       ///< Largest per-rank 99th percentile detour length.
  double max_detour_ns = 0;       ///< Longest detour on the node.
  bool outlier = false;           ///< noise_fraction > median + mad_factor x MAD over nodes.
};

/// What rank 0 reports.
struct NoiseReport {
  Json context;                         ///< Context block.
  std::vector<NoiseRankRow> ranks;      ///< Per rank (rank order).
  std::vector<NoiseNodeRow> nodes;      ///< Per node (node order).
  double median_noise_fraction = 0;     ///< Median over nodes.
  double mad_noise_fraction = 0;        ///< Median absolute deviation over nodes (unscaled).
  double outlier_threshold = 0;         ///< median + mad_factor x MAD.
  std::vector<int> trace_failed_ranks;  ///< Ranks whose --traces file could not be written.
};

/// Flags outliers among `nodes` (sets `outlier`) and fills the median/MAD fields of `report`.
void flag_noise_outliers(NoiseReport& report, double mad_factor);

/// Runs the measurement collectively; rank 0 gets the report, other ranks an empty one.
[[nodiscard]] NoiseReport run_noise(const NoiseRunOptions& options, MPI_Comm world);

/// Collective over `world`: rank 0 prints the per-node table and writes --json; a failure there
/// (a full disk) ends every rank with CollectiveError carrying its message and exit code.
void write_noise_outputs(const NoiseRunOptions& options, const NoiseReport& report, MPI_Comm world);

}  // namespace gridlock::bench
