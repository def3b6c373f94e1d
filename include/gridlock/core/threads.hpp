#pragma once
// Running parts of a job on threads, and carrying on when the system will not give a thread.

#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace gridlock {

/// Starts a thread running `part(t)`; throws std::system_error when no thread can be had (process
/// or system limit, e.g. `ulimit -u`). The default way run_on_threads starts its threads.
struct StartThread {
  /// Starts `part(t)` on a new thread that joins on destruction.
  template <class F>
  std::jthread operator()(const F& part, unsigned t) const {
    return std::jthread(part, t);
  }
};

/// Runs `part(0)` .. `part(threads - 1)`, each on its own thread (`part(0)` on the calling one),
/// and returns when all have finished. A thread that cannot be started (std::system_error from
/// `start`) is not an error: its part runs on the calling thread instead, so a job under a
/// thread limit is slower, never lost. `part` must not throw (catch inside and report after).
/// `start` is for tests, which make thread creation fail.
template <class F, class Start = StartThread>
void run_on_threads(unsigned threads, const F& part, Start start = {}) {
  std::vector<std::jthread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      workers.push_back(start(part, t));
    } catch (const std::system_error&) {
      part(t);
    }
  }
  part(0);
}

}  // namespace gridlock
