#pragma once
/// @file
/// JSON serialisation of replica studies and the file reporters (--json, --csv, --svg) shared by
/// `gridlock sim --replicas` and `gridlock-bench sim-replicas` (schema gridlock.sim.replicas,
/// docs/noise.md). Every file is written atomically after each scale (status cut_short) and at the
/// end (complete), so a study that fails or is killed keeps its finished scales.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/sim/replica_study.hpp"

namespace gridlock::sim {

/// The JSON object of one scale (the same in both tools): ranks, noiseless time, box statistics,
/// slowdowns relative to the noiseless time, and every replica's completion time.
[[nodiscard]] Json scale_json(const ScaleResult& scale);

/// The JSON object of a noise bottleneck.
[[nodiscard]] Json bottleneck_json(const NoiseBottleneck& bottleneck);

/// The body of a study's JSON: status, reason (null when complete), scales, noise_bottleneck
/// (null while no scale finished).
[[nodiscard]] Json study_json(const ReplicaStudyResult& result);

/// The context block of a study (schema gridlock.sim.replicas version 3) for `tool`: schedule,
/// program, seed, replicas, network_scale, loggops and noise; callers may add keys (mpi_ranks).
[[nodiscard]] Json study_context(const std::string& tool, const ReplicaStudySpec& spec,
                                 const noise::DetourPattern& pattern);

/// An SVG box plot of a study, one box per scale in the order given, like the paper's Figs. 5-7:
/// the completion time (us) of the replicas, box from q1 to q3, a line at the median, whiskers to
/// the last samples within Tukey's fences, outliers as dots (one per pixel row: a study may have
/// millions), the noiseless time as a marker, and the median slowdown above each box. `title`
/// heads the plot, one line per '\n'-separated part; `context` (the JSON context block of the run)
/// is written first, in the SVG's <metadata>. A standalone SVG 1.1 document. Throws InputError if
/// `scales` is empty or a scale has no replicas.
[[nodiscard]] std::string study_boxplot_svg(const std::vector<ScaleResult>& scales, const Json& context,
                                            const std::string& title);

/// Writes --json (context + study_json) after each scale and at the end.
class JsonReplicaReporter final : public ReplicaReporter {
 public:
  /// Writes to `path` with `context` first.
  JsonReplicaReporter(std::string path, Json context)
      : path_(std::move(path)), context_(std::move(context)) {}
  void scale_finished(const ReplicaStudyResult& so_far) override;
  void study_finished(const ReplicaStudyResult& result) override;

 private:
  std::string path_;
  Json context_;
};

/// Writes --csv (one row per finished scale, scale_csv_columns) after each scale and at the end.
class CsvReplicaReporter final : public ReplicaReporter {
 public:
  /// Writes to `path` with `context` first.
  CsvReplicaReporter(std::string path, Json context) : path_(std::move(path)), context_(std::move(context)) {}
  void scale_finished(const ReplicaStudyResult& so_far) override;
  void study_finished(const ReplicaStudyResult& result) override;

 private:
  std::string path_;
  Json context_;
};

/// Writes --svg (study_boxplot_svg of the finished scales) after each scale and at the end.
class SvgReplicaReporter final : public ReplicaReporter {
 public:
  /// Writes to `path` with `context` in its metadata and `title` on top.
  SvgReplicaReporter(std::string path, Json context, std::string title)
      : path_(std::move(path)), context_(std::move(context)), title_(std::move(title)) {}
  void scale_finished(const ReplicaStudyResult& so_far) override;
  void study_finished(const ReplicaStudyResult& result) override;

 private:
  std::string path_;
  Json context_;
  std::string title_;
};

/// The file reporters a command asked for, in JSON, CSV, SVG order: one for each non-empty path,
/// each with `context`; `title` heads the SVG.
[[nodiscard]] std::vector<std::unique_ptr<ReplicaReporter>> file_reporters(const std::string& json_path,
                                                                           const std::string& csv_path,
                                                                           const std::string& svg_path,
                                                                           const Json& context,
                                                                           const std::string& title);

}  // namespace gridlock::sim
