#pragma once
/// @file
/// The error type of a defect in gridlock itself (exit code 70), beside the user's errors of
/// error.hpp (InputError: exit 2, IoError: exit 3).

#include <string>

#include "gridlock/core/error.hpp"

namespace gridlock {

/// A defect in gridlock itself: an internal invariant was broken. `what()` says what broke, that
/// it is gridlock's fault and asks for a report, so that a user can tell their mistake (InputError,
/// exit 2) from ours (exit 70). Throw it where a check that holds for every input fails.
class InternalError : public Error {
 public:
  /// Creates an internal error; `message` says which invariant broke, and where.
  explicit InternalError(const std::string& message)
      : Error("internal error: " + message +
              " (a bug in gridlock, not in your input: please report it, with the command line that caused "
              "it, to the gridlock developers)") {}
  /// Our bugs map to the internal exit code.
  [[nodiscard]] ExitCode exit_code() const noexcept override { return ExitCode::kInternal; }
};

}  // namespace gridlock
