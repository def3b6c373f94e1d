#include "gridlock/bench/sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gridlock/core/error.hpp"

namespace gridlock::bench {
namespace {

// The message of the InputError `f` throws ("" if it throws none).
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Sweep, OpsComeInRunOrderWithGroups) {
  const std::vector<std::string> ops = parse_sweep_ops("barrier, pingpong,allreduce,barrier");
  EXPECT_EQ(ops, (std::vector<std::string>{"pingpong", "allreduce", "barrier"}));
  EXPECT_EQ(parse_sweep_ops("rma"),
            (std::vector<std::string>{"put_fence", "get_fence", "put_passive", "get_passive"}));
  EXPECT_EQ(parse_sweep_ops("all").size(), sweep_op_names().size());
  // The paper's call-frequency order first.
  const std::vector<std::string> coll = parse_sweep_ops("collectives");
  ASSERT_GE(coll.size(), 7U);
  EXPECT_EQ(std::vector<std::string>(coll.begin(), coll.begin() + 7),
            (std::vector<std::string>{"allreduce", "bcast", "barrier", "alltoall", "alltoallv", "reduce",
                                      "allgatherv"}));
  EXPECT_NE(input_error([] { (void)parse_sweep_ops("allreduce,nosuch"); }).find("unknown op 'nosuch'"),
            std::string::npos);
  EXPECT_NE(input_error([] { (void)parse_sweep_ops(""); }), "");
  EXPECT_EQ(sweep_op_kind("get_passive"), SweepKind::kRma);
  EXPECT_TRUE(sweep_op_has_bandwidth("bw_bi"));
  EXPECT_FALSE(sweep_op_has_bandwidth("pingpong"));
  EXPECT_FALSE(sweep_op_has_bandwidth("allreduce"));
}

TEST(Sweep, SizesArePowersOfTwoPlusExtras) {
  EXPECT_EQ(sweep_sizes(16, {}, false), (std::vector<std::uint64_t>{0, 1, 2, 4, 8, 16}));
  EXPECT_EQ(sweep_sizes(8, {3, 6, 8}, false), (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 6, 8}));
  EXPECT_EQ(sweep_sizes(8, {6, 3}, true), (std::vector<std::uint64_t>{3, 6}));
  EXPECT_NE(input_error([] { (void)sweep_sizes(8, {9}, false); }).find("above --max-size"),
            std::string::npos);
  EXPECT_NE(input_error([] { (void)sweep_sizes(kMaxSweepSize * 2, {}, false); }).find("--max-size"),
            std::string::npos);
  EXPECT_NE(input_error([] { (void)sweep_sizes(8, {}, true); }), "");
  EXPECT_EQ(parse_size_list("1KiB, 3KiB", "--sizes"), (std::vector<std::uint64_t>{1024, 3072}));
  EXPECT_NE(input_error([] { (void)parse_size_list("1KiB,-3", "--sizes"); }), "");
}

TEST(Sweep, ValidateRefusesBadCounts) {
  SweepOptions o;
  o.ops = {"pingpong"};
  o.sizes = {0, 1};
  EXPECT_EQ(input_error([&] { validate(o); }), "");
  SweepOptions zero = o;
  zero.reps = 0;
  EXPECT_NE(input_error([&] { validate(zero); }).find("--reps"), std::string::npos);
  SweepOptions min_above = o;
  min_above.min_reps = o.reps + 1;
  EXPECT_NE(input_error([&] { validate(min_above); }).find("--min-reps"), std::string::npos);
  SweepOptions no_window = o;
  no_window.window = 0;
  EXPECT_NE(input_error([&] { validate(no_window); }).find("--window"), std::string::npos);
  SweepOptions no_repeat = o;
  no_repeat.repeat = 0;
  EXPECT_NE(input_error([&] { validate(no_repeat); }).find("--repeat"), std::string::npos);
  EXPECT_NE(input_error([] { (void)parse_sweep_sync("clock"); }).find("barrier or window"),
            std::string::npos);
}

TEST(Sweep, SummaryQuartilesOutliersAndMedianInterval) {
  // 1..100 and one far outlier.
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) {
    v.push_back(i);
  }
  v.push_back(1000);
  const SweepStats s = summarize_sweep_samples(v);
  EXPECT_EQ(s.n, 101U);
  EXPECT_DOUBLE_EQ(s.median, 51);
  EXPECT_DOUBLE_EQ(s.q1, 26);
  EXPECT_DOUBLE_EQ(s.q3, 76);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 1000);
  EXPECT_DOUBLE_EQ(s.p99, 100);  // nearest rank: ceil(0.99 * 101) = 100th value
  EXPECT_EQ(s.outliers, 1U);     // 1000 > 76 + 3 * 50
  // n = 101: P(B <= 40) = 0.0230 <= 0.025 < P(B <= 41) = 0.0364, so the 41st and 61st values.
  EXPECT_DOUBLE_EQ(s.ci_low, 41);
  EXPECT_DOUBLE_EQ(s.ci_high, 61);
  EXPECT_GE(s.ci_level, 0.95);
  EXPECT_LT(s.ci_level, 0.97);
}

TEST(Sweep, SmallSamplesGetTheRangeWithItsCoverage) {
  const SweepStats five = summarize_sweep_samples({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(five.median, 3);
  EXPECT_DOUBLE_EQ(five.ci_low, 1);
  EXPECT_DOUBLE_EQ(five.ci_high, 5);
  EXPECT_DOUBLE_EQ(five.ci_level, 1 - 2 * std::pow(0.5, 5));
  // n = 6: P(B <= 0) = 1/64 <= 0.025, so the 1st and 6th values at 1 - 2/64.
  const SweepStats six = summarize_sweep_samples({6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(six.ci_level, 1 - 2.0 / 64);
  const SweepStats none = summarize_sweep_samples({});
  EXPECT_EQ(none.n, 0U);
  EXPECT_TRUE(std::isnan(none.median));
}

TEST(Sweep, LargeSamplesDoNotUnderflow) {
  std::vector<double> v(100000);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<double>(i);
  }
  const SweepStats s = summarize_sweep_samples(v);
  EXPECT_LT(s.ci_low, s.median);
  EXPECT_GT(s.ci_high, s.median);
  // Half-width about 1.96 * sqrt(n) / 2 = 310 order statistics.
  EXPECT_NEAR(s.ci_high - s.ci_low, 620, 10);
  EXPECT_GE(s.ci_level, 0.95);
}

TEST(Sweep, VariabilityOfPassMedians) {
  const SweepVariability v = sweep_variability({10, 12, 14});
  EXPECT_DOUBLE_EQ(v.median_us, 12);
  EXPECT_DOUBLE_EQ(v.iqr_us, 2);  // q1 11, q3 13
  EXPECT_NEAR(v.cv, 2.0 / 12.0, 1e-12);
  EXPECT_TRUE(std::isnan(sweep_variability({10}).cv));
}

// A report with one measured, one failed and one skipped record of allreduce on 4 ranks.
SweepReport report_with_failure() {
  SweepReport report;
  SweepRecord ok;
  ok.kind = SweepKind::kCollective;
  ok.op = "allreduce";
  ok.size_bytes = 512;
  ok.ranks = 4;
  ok.stats = summarize_sweep_samples({1.0, 2.0, 3.0});
  report.records.push_back(ok);
  SweepRecord failed = ok;
  failed.size_bytes = 1024;
  failed.stats = summarize_sweep_samples({});
  failed.status = SweepStatus::kFailed;
  failed.error = "rank 2: MPI_Allreduce: MPI_ERR_COUNT: invalid count argument";
  report.records.push_back(failed);
  SweepRecord skipped = failed;
  skipped.size_bytes = 2048;
  skipped.status = SweepStatus::kSkipped;
  skipped.error = "not measured: allreduce failed at 1 KiB on this communicator of 4 ranks";
  report.records.push_back(skipped);
  report.failed = 1;
  return report;
}

TEST(Sweep, FailedAndSkippedRecordsCarryTheirCauseAndNoStatistics) {
  SweepOptions options;
  options.repeat = 2;  // variability: only the measured record
  const Json body = sweep_json_body(options, report_with_failure());
  EXPECT_EQ(body["status"], "complete");
  EXPECT_FALSE(body.contains("reason"));
  EXPECT_EQ(body["failed"], 1);
  const Json& records = body["records"];
  ASSERT_EQ(records.size(), 3U);
  EXPECT_EQ(records[0]["status"], "ok");
  EXPECT_DOUBLE_EQ(records[0]["time_us"]["median"].get<double>(), 2.0);
  EXPECT_EQ(records[1]["status"], "failed");
  EXPECT_EQ(records[1]["error"], "rank 2: MPI_Allreduce: MPI_ERR_COUNT: invalid count argument");
  EXPECT_EQ(records[2]["status"], "skipped");
  EXPECT_EQ(records[2]["reason"], "not measured: allreduce failed at 1 KiB on this communicator of 4 ranks");
  for (std::size_t i = 1; i < 3; ++i) {
    for (const char* key : {"n", "outliers", "invalid", "time_us", "bandwidth_mib_s", "samples_us"}) {
      EXPECT_FALSE(records[i].contains(key)) << "record " << i << " has " << key;
    }
    EXPECT_EQ(records[i]["size_bytes"], i == 1 ? 1024 : 2048);
  }
  ASSERT_EQ(body["variability"].size(), 1U);
  EXPECT_EQ(body["variability"][0]["size_bytes"], 512);
}

TEST(Sweep, PartialReportIsCutShortWithItsReason) {
  SweepReport report = report_with_failure();
  report.complete = false;
  report.reason = "in progress: 3 of 20 ops done";
  const Json body = sweep_json_body(SweepOptions{}, report);
  EXPECT_EQ(body["status"], "cut_short");
  EXPECT_EQ(body["reason"], "in progress: 3 of 20 ops done");
}

TEST(Sweep, StatusNames) {
  EXPECT_EQ(to_string(SweepStatus::kOk), "ok");
  EXPECT_EQ(to_string(SweepStatus::kFailed), "failed");
  EXPECT_EQ(to_string(SweepStatus::kSkipped), "skipped");
}

TEST(Sweep, FaultSpecFromTheEnvironment) {
  EXPECT_FALSE(parse_sweep_fault("").has_value());
  const std::optional<SweepFault> f = parse_sweep_fault("allreduce:1024");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->op, "allreduce");
  EXPECT_EQ(f->size_bytes, 1024U);
  EXPECT_EQ(parse_sweep_fault("put_fence:4KiB")->size_bytes, 4096U);
  EXPECT_NE(input_error([] { (void)parse_sweep_fault("nosuch:8"); }).find("GRIDLOCK_SWEEP_FAIL='nosuch:8'"),
            std::string::npos);
  EXPECT_NE(input_error([] { (void)parse_sweep_fault("allreduce"); }).find("OP:BYTES"), std::string::npos);
  EXPECT_NE(input_error([] { (void)parse_sweep_fault("allreduce:lots"); }), "");
}

}  // namespace
}  // namespace gridlock::bench
