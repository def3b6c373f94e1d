#pragma once
// A closed standard output (`gridlock model fit sweep.json --json fit.json | head -3`) must never
// cost a result file. Commands write their files before they print, and SIGPIPE is ignored, so a
// write to a pipe nobody reads fails with EPIPE (fmt throws std::system_error) instead of ending
// the process on the spot. main() turns that failure, once the command is over, into the exit a
// closed pipe gives anyway (SIGPIPE, quiet, status 141 in a shell), and any other failed write to
// standard output (a full disk) into an I/O error.

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::cli {

/// Ignores SIGPIPE for the rest of the process: writes to a closed pipe or socket fail with EPIPE.
inline void ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }

/// True if `e` is a write to a pipe or socket whose reader is gone (EPIPE).
inline bool is_broken_pipe(const std::system_error& e) { return e.code() == std::errc::broken_pipe; }

/// Ends the process as SIGPIPE would have: quietly, with the status a shell shows as 141.
[[noreturn]] inline void exit_as_closed_pipe() {
  std::signal(SIGPIPE, SIG_DFL);
  std::raise(SIGPIPE);
  // Not reached unless SIGPIPE is blocked: 128 + SIGPIPE, what the shell would have shown.
  std::_Exit(128 + SIGPIPE);
}

/// True if standard output is a pipe whose reading end is closed.
inline bool stdout_reader_gone() {
  pollfd fd{STDOUT_FILENO, 0, 0};
  return ::poll(&fd, 1, 0) == 1 && (fd.revents & POLLERR) != 0;
}

/// Flushes standard output at the end of a command that returned `rc`. A closed pipe ends the
/// process as exit_as_closed_pipe() does; another write error is an I/O error (exit 3) with its
/// reason on stderr; otherwise `rc` is returned.
inline int finish_stdout(int rc, const char* tool) {
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  const int error = errno;
  if (!failed) {
    return rc;
  }
  if (error == EPIPE || stdout_reader_gone()) {
    exit_as_closed_pipe();
  }
  fmt::print(stderr, "{}: error: cannot write to standard output: {}\n", tool,
             std::generic_category().message(error));
  return to_int(ExitCode::kIo);
}

}  // namespace gridlock::cli
