#include "gridlock/core/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace gridlock {

Progress::Progress(bool enabled, bool terminal, std::chrono::steady_clock::duration interval)
    : enabled_(enabled), terminal_(terminal), interval_(interval) {}

Progress::~Progress() { clear(); }

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

void Progress::print(std::string_view text) {
  if (terminal_) {
    fmt::print(stderr, "\r{}\033[K", text);
    line_open_ = true;
  } else {
    fmt::print(stderr, "{}\n", text);
  }
  std::fflush(stderr);
  last_ = std::chrono::steady_clock::now();
}

void Progress::phase(std::string_view text) {
  if (enabled_) {
    print(text);
  }
}

void Progress::update(std::string_view text) {
  if (!enabled_) {
    return;
  }
  if (terminal_ || std::chrono::steady_clock::now() - last_ >= interval_) {
    print(text);
  }
}

void Progress::clear() {
  if (enabled_ && terminal_ && line_open_) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    line_open_ = false;
  }
}

}  // namespace gridlock
