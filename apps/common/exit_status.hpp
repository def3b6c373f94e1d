#pragma once
// One mapping, for both command-line tools, from the exception that ended a command to the line
// printed on stderr and the exit code: the user's mistakes (InputError: 2, IoError: 3, other
// gridlock errors: their code), memory running out (1, not a bug), and gridlock's own defects
// (InternalError, or any other exception escaping a command: 70, "internal error: ... please
// report"), so that a user can tell their mistake from ours by the code and by the first words.

#include <exception>
#include <string>
#include <string_view>

namespace gridlock::cli {

/// What a command-line tool prints and returns when a command ends with an exception.
struct ExitStatus {
  int code = 0;         ///< The process exit code (gridlock::ExitCode).
  std::string message;  ///< One message for stderr, starting with the program's name; no final newline.
};

/// Maps `error` (std::current_exception() in a catch block; not null) to its exit status.
/// `program` starts the message ("gridlock", "gridlock-bench: rank 3"): "<program>: error: ..."
/// for the user's errors and "<program>: internal error: ... please report ..." for ours.
[[nodiscard]] ExitStatus exit_status_of(const std::exception_ptr& error, std::string_view program);

}  // namespace gridlock::cli
