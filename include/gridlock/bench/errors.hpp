#pragma once
/// @file
/// Errors specific to the MPI benchmark.

#include <string>

#include "gridlock/core/error.hpp"

namespace gridlock::bench {

/// An MPI call returned an error code; the message names the call, the source line and the
/// MPI library's error string.
class MpiError : public Error {
 public:
  using Error::Error;
  /// MPI failures have their own exit code.
  [[nodiscard]] ExitCode exit_code() const noexcept override { return ExitCode::kMpi; }
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
