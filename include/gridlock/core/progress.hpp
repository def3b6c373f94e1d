#pragma once
/// @file
/// Progress messages on stderr for long runs, readable on a terminal and in a batch job's log.

#include <chrono>
#include <cstdio>
#include <string_view>

namespace gridlock {

/// How a long-running command reports progress on stderr. On a terminal one line is rewritten in
/// place (`\r`, erase to end of line); otherwise (a batch job's log, `2>file`) a full line is
/// printed at most once per interval, so a log shows that the run is alive without growing fast.
/// Not thread-safe: callers that report from several threads hold a lock.
class Progress {
 public:
  /// Reports nothing unless `enabled`. `terminal` picks the in-place style; `interval` is the
  /// least time between two lines in the line style.
  Progress(bool enabled, bool terminal,
           std::chrono::steady_clock::duration interval = std::chrono::seconds(10));
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// Clears an in-place line left on the terminal.
  ~Progress();

  /// Whether stderr is a terminal.
  [[nodiscard]] static bool stderr_is_terminal();

  /// Whether anything is reported: callers skip formatting messages otherwise.
  [[nodiscard]] bool enabled() const noexcept { return enabled_; }

  /// A new state worth a line of its own (a phase starts): always shown.
  void phase(std::string_view text);
  /// A periodic update: shown in place on a terminal, as a line once per interval otherwise.
  void update(std::string_view text);
  /// Removes the in-place line from the terminal (before results are printed).
  void clear();

 private:
  void print(std::string_view text);
  bool enabled_;
  bool terminal_;
  bool line_open_ = false;
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace gridlock
