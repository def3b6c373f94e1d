// The runs `gridlock sim` assembles, without the CLI: the schedule from a file or a program
// (load_or_generate, load_for_run), a single run with noise and its RunInfo (run_single), the
// study's threads and memory, the progress line, and the table that stops at a closed pipe.
#include "gridlock/sim/runs.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/replica_report.hpp"

namespace gridlock::sim {
namespace {

constexpr std::uint64_t kPlenty = std::uint64_t{1} << 32U;  // 4 GiB: no test run comes near it

TEST(LoadOrGenerate, GeneratesAProgramOnItsRanks) {
  MemoryBudget budget(kPlenty);
  const Schedule schedule = load_or_generate({"", "allreduce(size=8B)", 4, 1}, budget);
  EXPECT_EQ(schedule.num_ranks(), 4U);
  EXPECT_GT(schedule.total_ops(), 0U);
  EXPECT_GT(budget.reserved_bytes(), 0U);
}

TEST(LoadOrGenerate, RefusesBothNeitherAndMissingOrExtraRanks) {
  MemoryBudget budget(kPlenty);
  EXPECT_THROW((void)load_or_generate({"", "", 0, 1}, budget), InputError);
  EXPECT_THROW((void)load_or_generate({"a.goal", "barrier", 4, 1}, budget), InputError);
  try {
    (void)load_or_generate({"", "barrier", 0, 1}, budget);
    FAIL() << "a program without ranks was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--program needs --ranks N"), std::string::npos) << e.what();
  }
  try {
    (void)load_or_generate({"x.goal", "", 4, 1}, budget);
    FAIL() << "a schedule file with --ranks was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--ranks is for --program"), std::string::npos) << e.what();
  }
}

TEST(LoadOrGenerate, RefusesAProgramOverTheBudget) {
  MemoryBudget budget(1024);
  EXPECT_THROW((void)load_or_generate({"", "barrier", 100000, 1}, budget), InputError);
}

TEST(LoadForRun, ReservesTheSimulation) {
  MemoryBudget generated(kPlenty);
  (void)load_or_generate({"", "allreduce(size=8B)", 8, 1}, generated);
  MemoryBudget for_run(kPlenty);
  (void)load_for_run({"", "allreduce(size=8B)", 8, 1}, for_run);
  EXPECT_GT(for_run.reserved_bytes(), generated.reserved_bytes());
}

TEST(RunSingle, RecordsTheRunAndItsNoise) {
  MemoryBudget budget(kPlenty);
  const Schedule schedule = load_for_run({"", "10x[allreduce(size=8B); calc(time=5us)]", 4, 7}, budget);
  SimOptions options;
  SingleRunSpec quiet{"", "10x[allreduce(size=8B); calc(time=5us)]", 7, 1.0, {}, false, false, {}};
  const SingleRun plain = run_single(schedule, options, quiet);
  ASSERT_TRUE(plain.result.complete);
  EXPECT_EQ(plain.info.ranks, 4U);
  EXPECT_EQ(plain.info.seed, 7U);
  EXPECT_FALSE(plain.info.noise.has_value());
  EXPECT_EQ(plain.pattern, nullptr);

  SingleRunSpec noisy = quiet;
  noisy.noise = noise::parse_periodic_spec("1000Hz:100us");
  bool called = false;
  noisy.before_simulate = [&called](SimOptions& o) {
    called = true;
    EXPECT_NE(o.noise, nullptr);
  };
  const SingleRun with_noise = run_single(schedule, options, noisy);
  EXPECT_TRUE(called);
  ASSERT_TRUE(with_noise.info.noise.has_value());
  EXPECT_EQ(with_noise.info.noise->pattern, with_noise.pattern.get());
  EXPECT_GE(with_noise.result.max_finish.ps, plain.result.max_finish.ps);
}

TEST(RunSingle, RecordsATimeline) {
  MemoryBudget budget(kPlenty);
  const Schedule schedule = load_for_run({"", "allreduce(size=8B)", 4, 1}, budget);
  SingleRunSpec spec;
  spec.timeline = true;
  const SingleRun run = run_single(schedule, SimOptions{}, spec);
  EXPECT_FALSE(run.result.timeline.empty());
}

TEST(ReplicaThreads, AtMostOnePerReplicaAndAtLeastOne) {
  EXPECT_EQ(replica_thread_count(8, 3), 3U);
  EXPECT_EQ(replica_thread_count(2, 100), 2U);
  EXPECT_GE(replica_thread_count(0, 100), 1U);
  EXPECT_EQ(replica_thread_count(0, 1), 1U);
}

TEST(ReserveReplicaStudy, NamesTheLargestScaleAndThreads) {
  MemoryBudget budget(1024);
  try {
    reserve_replica_study(budget, "barrier", {4, 64, 16}, 1, 2, 10);
    FAIL() << "a study over the budget was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--replicas on 64 ranks with 2 threads"), std::string::npos)
        << e.what();
  }
  MemoryBudget plenty(kPlenty);
  reserve_replica_study(plenty, "barrier", {4, 64}, 1, 2, 10);
  EXPECT_GT(plenty.reserved_bytes(), 0U);
}

TEST(CheckThreadedStudy, RefusesMpiJobsAndBadCounts) {
  EXPECT_THROW(check_threaded_study(0, 1), InputError);
  EXPECT_NO_THROW(check_threaded_study(4, 1));
  ::setenv("PMI_SIZE", "4", 1);  // NOLINT(concurrency-mt-unsafe): single-threaded test
  EXPECT_TRUE(under_mpi_job());
  EXPECT_THROW(check_threaded_study(4, 1), InputError);
  ::unsetenv("PMI_SIZE");  // NOLINT(concurrency-mt-unsafe): single-threaded test
  EXPECT_FALSE(under_mpi_job());
}

TEST(ProgressLine, SaysShareEventsAndTime) {
  SimProgress p;
  p.ops_completed = 25;
  p.ops_total = 100;
  p.events = 40;
  p.now = SimTime{2'000'000};
  EXPECT_EQ(progress_line(p), "simulating: 25.0% of 100 operations done, 40 events, simulated time " +
                                  format_time_ps(2'000'000));
  p.rerun = true;
  p.ops_total = 0;
  EXPECT_EQ(progress_line(p).rfind("simulating again in global order: 100.0% of 0", 0), 0U);
}

// Counts calls, and throws `error` from scale_started when it is set.
class ThrowingReporter final : public ReplicaReporter {
 public:
  std::errc error{};
  int calls = 0;
  void study_started(const ReplicaStudyInfo& /*info*/) override { ++calls; }
  void scale_started(std::uint32_t /*ranks*/) override {
    ++calls;
    if (error != std::errc{}) {
      throw std::system_error(std::make_error_code(error));
    }
  }
  void scale_finished(const ReplicaStudyResult& /*so_far*/) override { ++calls; }
  void study_finished(const ReplicaStudyResult& /*result*/) override { ++calls; }
};

TEST(ClosedPipeQuietReporter, StopsAtABrokenPipeOnly) {
  ThrowingReporter inner;
  ClosedPipeQuietReporter table(inner);
  table.study_started(ReplicaStudyInfo{});
  inner.error = std::errc::broken_pipe;
  table.scale_started(4);
  EXPECT_TRUE(table.closed());
  table.study_finished(ReplicaStudyResult{});
  EXPECT_EQ(inner.calls, 2);  // nothing after the pipe closed

  ThrowingReporter other;
  other.error = std::errc::no_space_on_device;
  ClosedPipeQuietReporter full(other);
  EXPECT_THROW(full.scale_started(4), std::system_error);
  EXPECT_FALSE(full.closed());
}

}  // namespace
}  // namespace gridlock::sim
