#pragma once
/// @file
/// The Monte-Carlo noise study (paper §IV, Figs. 5-7), written once for both tools: scales, seeds,
/// the noiseless run, the replicas (through a pluggable ReplicaRunner: threads here, MPI ranks in
/// gridlock::bench), the statistics and the noise bottleneck. Results are plain structs handed to
/// ReplicaReporter objects (replica_report.hpp, replica_report_json.hpp), the pattern of Google
/// Benchmark's reporters.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/replicas.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {

/// What a study simulates.
struct ReplicaStudySpec {
  std::string program;                ///< Generator spec (one of program and schedule_path).
  std::string schedule_path;          ///< A schedule file: its own single scale.
  std::vector<std::uint32_t> scales;  ///< Rank counts for `program`, in this order (parse_scales).
  std::uint64_t seed = 1;             ///< Seed of the generator, the noise pattern and the phases.
  std::uint64_t replicas = 0;         ///< Replicas per scale (check_replica_count).
  SimOptions options;                 ///< Parameters and noise rule (noise and timeline are set per run).
  double network_scale = 1.0;         ///< The --network-scale already in options.params (recorded).
  noise::NoiseSpec noise;             ///< The noise model (not none).
  bool cosched = false;               ///< Every rank the same phase.
  double bottleneck_threshold = 1.0;  ///< Median slowdown that makes noise the bottleneck.
};

/// A study's outcome so far: complete, or cut short with the scales finished before.
struct ReplicaStudyResult {
  std::vector<ScaleResult> scales;            ///< Finished scales, in the order studied.
  std::size_t scales_planned = 0;             ///< Scales the study was to run.
  std::optional<NoiseBottleneck> bottleneck;  ///< Of the finished scales (none while there are none).
  bool complete = false;                      ///< Every scale finished.
  std::string reason;                         ///< Why the study is not complete (empty when it is).
};

/// What reporters know before the first scale.
struct ReplicaStudyInfo {
  const ReplicaStudySpec* spec = nullptr;         ///< The study.
  const noise::DetourPattern* pattern = nullptr;  ///< The noise pattern built from spec->noise.
  std::vector<std::uint32_t> scales;              ///< The scales, in order.
  std::string where;                              ///< Where replicas run, e.g. "4 threads".
};

/// Runs the replicas of one scale, and the steps around them, on threads or on MPI ranks.
class ReplicaRunner {
 public:
  ReplicaRunner() = default;
  ReplicaRunner(const ReplicaRunner&) = delete;
  ReplicaRunner& operator=(const ReplicaRunner&) = delete;
  ReplicaRunner(ReplicaRunner&&) = delete;
  ReplicaRunner& operator=(ReplicaRunner&&) = delete;
  virtual ~ReplicaRunner() = default;
  /// Completion times of replicas [begin, end) of `schedule` (entry i is replica begin + i) on the
  /// reporting process; other processes may return anything. Deterministic (run_replicas).
  [[nodiscard]] virtual std::vector<std::uint64_t> run(const Schedule& schedule, const SimOptions& options,
                                                       const ReplicaConfig& config, std::uint64_t begin,
                                                       std::uint64_t end) = 0;
  /// Runs a step every process runs and that may fail on some only (MPI: agree on the outcome).
  virtual void every_process(const std::function<void()>& step) { step(); }
  /// Runs a step of the reporting process only (the noiseless run, the reporters) and shares its
  /// outcome: a failure there ends every process alike.
  virtual void reporting_process(const std::function<void()>& step) { step(); }
  /// Whether this process reports (prints and writes the outputs).
  [[nodiscard]] virtual bool reports() const { return true; }
  /// "N threads", "over N ranks": for the header line.
  [[nodiscard]] virtual std::string where() const = 0;
};

/// Runs replicas on threads of this process (run_replicas).
class ThreadReplicaRunner final : public ReplicaRunner {
 public:
  /// `threads` workers (at most kMaxReplicaThreads); `note` is appended to where() (e.g. why fewer
  /// threads than asked for run).
  explicit ThreadReplicaRunner(unsigned threads, std::string note = {});
  /// Called from worker threads with the scale's rank count, the finished replicas and the total.
  std::function<void(std::uint32_t ranks, std::uint64_t done, std::uint64_t total)> progress;
  [[nodiscard]] std::vector<std::uint64_t> run(const Schedule& schedule, const SimOptions& options,
                                               const ReplicaConfig& config, std::uint64_t begin,
                                               std::uint64_t end) override;
  [[nodiscard]] std::string where() const override;

 private:
  unsigned threads_;
  std::string note_;
};

/// Receives a study's results as they come (Google Benchmark's reporter pattern). Called on the
/// reporting process only; an exception from a reporter ends the study (cut short).
class ReplicaReporter {
 public:
  ReplicaReporter() = default;
  ReplicaReporter(const ReplicaReporter&) = delete;
  ReplicaReporter& operator=(const ReplicaReporter&) = delete;
  ReplicaReporter(ReplicaReporter&&) = delete;
  ReplicaReporter& operator=(ReplicaReporter&&) = delete;
  virtual ~ReplicaReporter() = default;
  /// Before the first scale.
  virtual void study_started(const ReplicaStudyInfo& /*info*/) {}
  /// Before a scale's schedule is built.
  virtual void scale_started(std::uint32_t /*ranks*/) {}
  /// After each scale: `so_far` holds the finished scales (not yet complete).
  virtual void scale_finished(const ReplicaStudyResult& /*so_far*/) {}
  /// At the end: complete, or cut short with the reason (then the study rethrows the error).
  virtual void study_finished(const ReplicaStudyResult& /*result*/) {}
};

/// GRIDLOCK_REPLICAS_FAIL=RANKS makes the scale of RANKS ranks fail (for tests of partial results).
inline constexpr const char* kReplicasFailEnv = "GRIDLOCK_REPLICAS_FAIL";

/// One study. The constructor validates everything that can be validated before the first scale
/// (replica count, threshold, the program at every scale, the schedule file) and builds the noise
/// pattern; it throws InputError / IoError otherwise.
class ReplicaStudy {
 public:
  /// Validates `spec` and builds the noise pattern (reads a noise trace).
  explicit ReplicaStudy(ReplicaStudySpec spec);
  /// The study's parameters.
  [[nodiscard]] const ReplicaStudySpec& spec() const noexcept { return spec_; }
  /// The scales in the order studied (a schedule file's rank count for a file).
  [[nodiscard]] const std::vector<std::uint32_t>& scales() const noexcept { return spec_.scales; }
  /// The noise pattern.
  [[nodiscard]] const noise::DetourPattern& pattern() const noexcept { return pattern_; }
  /// Runs every scale with `runner`, telling `reporters` (on the reporting process). If a scale
  /// fails, the reporters get the result cut short (the finished scales and the reason) and the
  /// error is rethrown.
  ReplicaStudyResult run(ReplicaRunner& runner, const std::vector<ReplicaReporter*>& reporters) const;

 private:
  ReplicaStudySpec spec_;
  noise::DetourPattern pattern_;
  std::optional<Schedule> from_file_;
};

}  // namespace gridlock::sim
