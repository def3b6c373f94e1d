#pragma once
/// @file
/// Error types shared by every gridlock library, and the process exit codes they map to.

#include <stdexcept>
#include <string>

namespace gridlock {

/// Process exit codes used by every gridlock executable.
enum class ExitCode : int {
  kOk = 0,              ///< Success.
  kRuntimeFailure = 1,  ///< A measurement or computation failed at run time.
  kUsage = 2,           ///< Bad command line or bad input file: the user can fix it.
  kIo = 3,              ///< A file could not be read or written.
  kMpi = 4,             ///< The MPI library reported an error.
  /// The run finished and wrote everything, but some measurements failed (gridlock-bench sweep).
  kMeasurementsFailed = 5,
  kInternal = 70,  ///< A bug in gridlock (an invariant was violated).
};

/// Every exit code, in order (the man pages list them).
inline constexpr ExitCode kAllExitCodes[] = {
    ExitCode::kOk,  ExitCode::kRuntimeFailure,     ExitCode::kUsage,   ExitCode::kIo,
    ExitCode::kMpi, ExitCode::kMeasurementsFailed, ExitCode::kInternal};

/// What an exit code means, one sentence for users (man pages, docs).
[[nodiscard]] constexpr const char* describe(ExitCode code) noexcept {
  switch (code) {
    case ExitCode::kOk:
      return "Success.";
    case ExitCode::kRuntimeFailure:
      return "A measurement or computation failed at run time.";
    case ExitCode::kUsage:
      return "Bad command line or bad input file: the message says what to fix.";
    case ExitCode::kIo:
      return "A file could not be read or written.";
    case ExitCode::kMpi:
      return "The MPI library reported an error.";
    case ExitCode::kMeasurementsFailed:
      return "The run finished and wrote everything, but some measurements failed (gridlock-bench sweep).";
    case ExitCode::kInternal:
      return "A bug in gridlock (an internal invariant was violated); please report it.";
  }
  return "Unknown exit code.";
}

/// What the command-line tools say when memory runs out (std::bad_alloc): not a bug, so exit code
/// kRuntimeFailure rather than kInternal.
inline constexpr const char* kOutOfMemoryMessage =
    "out of memory: this run needs more memory than the process may use (RAM, `ulimit -v` or the job's "
    "memory limit); try fewer ranks, operations or replicas";

/// Base class of all gridlock errors; `what()` says what happened, where, and how to fix it.
class Error : public std::runtime_error {
 public:
  /// Creates an error with a complete, user-facing message.
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  /// The exit code a command-line tool should return for this error.
  [[nodiscard]] virtual ExitCode exit_code() const noexcept { return ExitCode::kRuntimeFailure; }
};

/// Invalid user input: a command-line value, a spec string, a malformed input file.
class InputError : public Error {
 public:
  using Error::Error;
  /// Bad input maps to the usage exit code.
  [[nodiscard]] ExitCode exit_code() const noexcept override { return ExitCode::kUsage; }
};

/// A file or directory could not be opened, read, written or renamed.
class IoError : public Error {
 public:
  using Error::Error;
  /// I/O failures map to their own exit code so scripts can tell them apart.
  [[nodiscard]] ExitCode exit_code() const noexcept override { return ExitCode::kIo; }
};

/// Converts an exit code to the integer returned from `main()`.
[[nodiscard]] constexpr int to_int(ExitCode code) noexcept { return static_cast<int>(code); }

}  // namespace gridlock
