#include "gridlock/core/threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <system_error>
#include <vector>

namespace gridlock {
namespace {

// Every part runs exactly once, whatever number of threads.
TEST(RunOnThreads, RunsEveryPartOnce) {
  for (const unsigned threads : {1U, 2U, 7U}) {
    std::vector<std::atomic<int>> runs(threads);
    run_on_threads(threads, [&](unsigned t) { runs[t].fetch_add(1); });
    for (unsigned t = 0; t < threads; ++t) {
      EXPECT_EQ(runs[t].load(), 1) << "part " << t << " of " << threads;
    }
  }
}

// Under a thread limit (here every start fails, as `ulimit -u` would make it) the parts run on the
// calling thread instead of the process ending in std::terminate.
TEST(RunOnThreads, RunsPartsHereWhenNoThreadCanBeStarted) {
  std::vector<int> runs(5, 0);
  int refused = 0;
  const auto no_thread = [&](const auto& /*part*/, unsigned /*t*/) -> std::jthread {
    ++refused;
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
  };
  run_on_threads(
      5, [&](unsigned t) { ++runs[t]; }, no_thread);
  EXPECT_EQ(refused, 4);
  EXPECT_EQ(runs, std::vector<int>(5, 1));
}

// Some threads start, some do not: still every part once.
TEST(RunOnThreads, MixesStartedAndRefusedThreads) {
  std::vector<std::atomic<int>> runs(6);
  const auto every_other = [](const auto& part, unsigned t) -> std::jthread {
    if (t % 2 == 0) {
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    }
    return std::jthread(part, t);
  };
  run_on_threads(
      6, [&](unsigned t) { runs[t].fetch_add(1); }, every_other);
  for (unsigned t = 0; t < 6; ++t) {
    EXPECT_EQ(runs[t].load(), 1) << "part " << t;
  }
}

}  // namespace
}  // namespace gridlock
