// sim::ReplicaStudy, its runners and reporters, and the shared LogGOPS options (issue 29, part 4).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/loggops_options.hpp"
#include "gridlock/sim/replica_report.hpp"
#include "gridlock/sim/replica_report_json.hpp"
#include "gridlock/sim/replica_study.hpp"

namespace gridlock::sim {
namespace {

ReplicaStudySpec small_study() {
  ReplicaStudySpec spec;
  spec.program = "dissemination(size=8B)";
  spec.scales = {4, 16, 8};
  spec.seed = 7;
  spec.replicas = 9;
  spec.noise = noise::parse_periodic_spec("1000Hz:100us");
  return spec;
}

// Runs replicas in chunks of `chunk`, as MPI ranks would, to show that the split does not matter.
class ChunkedRunner final : public ReplicaRunner {
 public:
  explicit ChunkedRunner(std::uint64_t chunk) : chunk_(chunk) {}
  std::vector<std::uint64_t> run(const Schedule& schedule, const SimOptions& options,
                                 const ReplicaConfig& config, std::uint64_t begin,
                                 std::uint64_t end) override {
    std::vector<std::uint64_t> all;
    for (std::uint64_t b = begin; b < end; b += chunk_) {
      const std::vector<std::uint64_t> part =
          run_replicas(schedule, options, config, b, std::min(end, b + chunk_));
      all.insert(all.end(), part.begin(), part.end());
    }
    if (fail_at_ranks_ == schedule.num_ranks()) {
      throw InputError("runner failed");
    }
    return all;
  }
  [[nodiscard]] std::string where() const override { return "in chunks"; }
  std::uint32_t fail_at_ranks_ = 0;  // NOLINT(misc-non-private-member-variables-in-classes)

 private:
  std::uint64_t chunk_;
};

// Records what a reporter is told.
class Recorder final : public ReplicaReporter {
 public:
  void study_started(const ReplicaStudyInfo& info) override { where = info.where; }
  void scale_finished(const ReplicaStudyResult& so_far) override { finished.push_back(so_far.scales.size()); }
  void study_finished(const ReplicaStudyResult& result) override { last = result; }
  std::string where;                  // NOLINT(misc-non-private-member-variables-in-classes)
  std::vector<std::size_t> finished;  // NOLINT(misc-non-private-member-variables-in-classes)
  ReplicaStudyResult last;            // NOLINT(misc-non-private-member-variables-in-classes)
};

TEST(ReplicaStudy, ThreadsAndChunksGiveTheSameScales) {
  const ReplicaStudy study(small_study());
  ThreadReplicaRunner threads(3);
  ChunkedRunner chunks(4);
  Recorder a;
  Recorder b;
  const ReplicaStudyResult by_threads = study.run(threads, {&a});
  const ReplicaStudyResult by_chunks = study.run(chunks, {&b});
  ASSERT_EQ(by_threads.scales.size(), 3U);
  EXPECT_TRUE(by_threads.complete);
  EXPECT_EQ(a.where, "3 threads");
  EXPECT_EQ(a.finished, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_TRUE(a.last.complete);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(by_threads.scales[i].ranks, study.scales()[i]);
    EXPECT_EQ(by_threads.scales[i].completion_ps, by_chunks.scales[i].completion_ps);
    EXPECT_EQ(by_threads.scales[i].noiseless_ps, by_chunks.scales[i].noiseless_ps);
    EXPECT_EQ(by_threads.scales[i].completion_ps.size(), 9U);
  }
  ASSERT_TRUE(by_threads.bottleneck.has_value());
  EXPECT_EQ(study_json(by_threads)["status"], "complete");
  EXPECT_EQ(study_json(by_threads)["reason"], nullptr);
}

TEST(ReplicaStudy, AFailedScaleKeepsTheFinishedOnesAndRethrows) {
  const ReplicaStudy study(small_study());
  ChunkedRunner runner(5);
  runner.fail_at_ranks_ = 8;
  Recorder r;
  EXPECT_THROW((void)study.run(runner, {&r}), InputError);
  EXPECT_FALSE(r.last.complete);
  EXPECT_EQ(r.last.reason, "runner failed");
  ASSERT_EQ(r.last.scales.size(), 2U);
  EXPECT_EQ(r.last.scales[1].ranks, 16U);
  const Json body = study_json(r.last);
  EXPECT_EQ(body["status"], "cut_short");
  EXPECT_EQ(body["reason"], "runner failed");
  EXPECT_EQ(body["scales"].size(), 2U);
  EXPECT_TRUE(body["noise_bottleneck"].is_object());
}

TEST(ReplicaStudy, FileReportersWriteAPartialResultAfterEachScale) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gridlock_replica_study_test";
  std::filesystem::create_directories(dir);
  const ReplicaStudy study(small_study());
  ChunkedRunner runner(9);
  JsonReplicaReporter json((dir / "s.json").string(), Json{{"tool", "test"}});
  // The JSON between scales: a study killed there leaves it cut short with the scales so far.
  ReplicaStudyResult one;
  one.scales_planned = 3;
  one.scales.push_back(ScaleResult{4, 10, {11, 12}});
  json.scale_finished(one);
  std::ifstream in(dir / "s.json");
  const Json partial = Json::parse(in);
  EXPECT_EQ(partial["status"], "cut_short");
  EXPECT_NE(partial["reason"].get<std::string>().find("after 1 of 3 scales"), std::string::npos);
  EXPECT_EQ(partial["scales"].size(), 1U);
  (void)study.run(runner, {&json});
  std::ifstream again(dir / "s.json");
  const Json done = Json::parse(again);
  EXPECT_EQ(done["status"], "complete");
  EXPECT_EQ(done["scales"].size(), 3U);
  std::filesystem::remove_all(dir);
}

TEST(ReplicaStudy, RefusesBadStudiesBeforeRunning) {
  ReplicaStudySpec spec = small_study();
  spec.replicas = 0;
  EXPECT_THROW(ReplicaStudy{spec}, InputError);
  spec = small_study();
  spec.noise = {};
  EXPECT_THROW(ReplicaStudy{spec}, InputError);
  spec = small_study();
  spec.program = "bcast(root=6)";
  EXPECT_THROW(ReplicaStudy{spec}, InputError);  // root 6 does not exist at 4 ranks
  spec = small_study();
  spec.bottleneck_threshold = 0;
  EXPECT_THROW(ReplicaStudy{spec}, InputError);
}

TEST(LogGOPSOptions, DefaultsOverridesAndErrors) {
  const LogGOPSChoice d = loggops_from_text({});
  EXPECT_EQ(d.params.latency.ps, 2'500'000U);
  EXPECT_EQ(d.params.overhead_send.ps, 1'500'000U);
  EXPECT_EQ(d.noise_rule, NoiseRule::kGridlock);
  LogGOPSText t;
  t.overhead = "2us";
  t.overhead_recv = "3us";
  t.latency = "4us";
  t.network_scale = 0.5;
  t.noise_rule = "loggopsim";
  const LogGOPSChoice c = loggops_from_text(t);
  EXPECT_EQ(c.params.overhead_send.ps, 2'000'000U);
  EXPECT_EQ(c.params.overhead_recv.ps, 3'000'000U);
  EXPECT_EQ(c.params.latency.ps, 2'000'000U);  // halved by the network scale, o is not
  EXPECT_EQ(c.params.gap.ps, 500'000U);
  EXPECT_EQ(c.noise_rule, NoiseRule::kLogGOPSim);
  EXPECT_DOUBLE_EQ(c.network_scale, 0.5);
  // Options not given keep the base (e.g. a fit file's values).
  LogGOPSParams base = default_loggops();
  base.gap = SimTime{7};
  EXPECT_EQ(loggops_from_text({}, base).params.gap.ps, 7U);
  t = {};
  t.latency = "fast";
  try {
    (void)loggops_from_text(t);
    ADD_FAILURE() << "-L fast was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("-L"), std::string::npos) << e.what();
  }
  t = {};
  t.noise_rule = "paper";
  EXPECT_THROW((void)loggops_from_text(t), InputError);
  t = {};
  t.network_scale = -1;
  EXPECT_THROW((void)loggops_from_text(t), InputError);
}

// The table prints the noiseless time exactly and the replica statistics in the one duration
// style of every table (docs/units.md): 4 significant digits, the largest unit that keeps >= 1.
TEST(ScaleTable, NoiselessExactStatisticsInTheOneDurationStyle) {
  ScaleResult scale;
  scale.ranks = 8;
  scale.noiseless_ps = 16'626'000;
  scale.completion_ps = {16'626'000, 16'626'000, 964'701'000, 1'450'008'000};
  const std::string row = scale_table_row(scale);
  EXPECT_NE(row.find("| 8 | 16.626 us | 16.63 us |"), std::string::npos) << row;
  EXPECT_NE(row.find("| 1.45 ms |"), std::string::npos) << row;
  EXPECT_EQ(row.find(".000 us"), std::string::npos) << row;
}

}  // namespace
}  // namespace gridlock::sim
