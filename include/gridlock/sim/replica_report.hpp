#pragma once
/// @file
/// The console reporter of a replica study (the table both tools print); the file reporters
/// (JSON, CSV, SVG) are in replica_report_json.hpp.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "gridlock/sim/replica_study.hpp"

namespace gridlock::sim {

/// "complete" or "cut_short": the `status` of a study's outputs.
[[nodiscard]] const char* study_status(const ReplicaStudyResult& result) noexcept;

/// Why the outputs of `result` are not complete: its reason, or, between two scales, that the
/// study stopped after the scales written (a job killed at its wall-time limit leaves this).
[[nodiscard]] std::string study_reason(const ReplicaStudyResult& result);

/// The header line of a study: noise model, period and fraction, synchronisation, noise rule,
/// seed, replicas per scale and where they run.
[[nodiscard]] std::string study_header_line(const ReplicaStudyInfo& info);

/// Prints the header line, the table header, one row per scale as it finishes and the noise
/// bottleneck line at the end (only when complete: a failure is the caller's message).
class ConsoleReplicaReporter final : public ReplicaReporter {
 public:
  /// Prints to `out` (not owned, not null).
  explicit ConsoleReplicaReporter(std::FILE* out) : out_(out) {}
  /// Called before each scale (e.g. a progress display's phase); may be empty.
  std::function<void(std::uint32_t ranks)> on_scale_started;
  /// Called after each scale, before its row is printed (e.g. to clear a progress line); may be empty.
  std::function<void()> on_scale_finished;
  void study_started(const ReplicaStudyInfo& info) override;
  void scale_started(std::uint32_t ranks) override;
  void scale_finished(const ReplicaStudyResult& so_far) override;
  void study_finished(const ReplicaStudyResult& result) override;

 private:
  std::FILE* out_;
};

/// Forwards to another reporter (a table on standard output) until a write fails because the
/// reader of the pipe is gone (std::system_error with EPIPE, `| head`), then stays quiet: the
/// study goes on and its files are written. Other errors propagate.
class ClosedPipeQuietReporter final : public ReplicaReporter {
 public:
  /// Forwards to `inner` (not owned).
  explicit ClosedPipeQuietReporter(ReplicaReporter& inner) : inner_(inner) {}
  void study_started(const ReplicaStudyInfo& info) override;
  void scale_started(std::uint32_t ranks) override;
  void scale_finished(const ReplicaStudyResult& so_far) override;
  void study_finished(const ReplicaStudyResult& result) override;
  /// True once a write found the pipe closed.
  [[nodiscard]] bool closed() const { return closed_; }

 private:
  void guard(const std::function<void()>& call);
  ReplicaReporter& inner_;
  bool closed_ = false;
};

}  // namespace gridlock::sim
