#pragma once
/// @file
/// Errors specific to the MPI benchmark.

#include <string>
#include <utility>

#include "gridlock/core/error.hpp"

namespace gridlock::bench {

/// An MPI call returned an error code; the message names the call, the source line and the
/// MPI library's error string.
class MpiError : public Error {
 public:
  /// An MPI failure described by `message` alone.
  explicit MpiError(const std::string& message) : Error(message), summary_(message) {}
  /// `message` in full (call, source line, error string) and the `summary` a record keeps
  /// (`MPI_Send: MPI_ERR_COUNT: invalid count argument`).
  MpiError(const std::string& message, std::string summary) : Error(message), summary_(std::move(summary)) {}
  /// MPI failures have their own exit code.
  [[nodiscard]] ExitCode exit_code() const noexcept override { return ExitCode::kMpi; }
  /// The function and MPI's error string, without source location.
  [[nodiscard]] const std::string& summary() const noexcept { return summary_; }

 private:
  std::string summary_;
};

/// An error that every rank detects identically (bad options, too few nodes, uneven ranks per
/// node, an unwritable output path checked on rank 0 and broadcast): rank 0 reports it once and
/// every rank finalises MPI and exits with `exit_code()`, no abort needed.
class CollectiveError : public Error {
 public:
  /// Wraps a message and the exit code all ranks return.
  CollectiveError(const std::string& message, ExitCode code) : Error(message), code_(code) {}
  /// The exit code every rank returns.
  [[nodiscard]] ExitCode exit_code() const noexcept override { return code_; }

 private:
  ExitCode code_;
};

}  // namespace gridlock::bench
