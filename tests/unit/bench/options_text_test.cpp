// gridlock-bench noise|spmv|sweep options completed after parsing, without the CLI or MPI_Init.
#include "gridlock/bench/options_text.hpp"

#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"

namespace gridlock::bench {
namespace {

template <typename F>
std::string message_of(F&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(NoiseRunText, ConvertsAndBounds) {
  NoiseRunOptions o;
  NoiseRunText t;
  t.duration = "500ms";
  t.no_pin = true;
  finish_noise_run_options(o, t);
  EXPECT_DOUBLE_EQ(o.measure.duration_s, 0.5);
  EXPECT_FALSE(o.pin);
  EXPECT_DOUBLE_EQ(o.outlier_cutoff_ns, 1e9);
  NoiseRunOptions many;
  many.measure.max_detours = kMaxDetours + 1;
  EXPECT_NE(message_of([&] { finish_noise_run_options(many, NoiseRunText{}); }).find("--max-detours"),
            std::string::npos);
  NoiseRunOptions low;
  low.measure.threshold = 1;
  EXPECT_EQ(message_of([&] { finish_noise_run_options(low, NoiseRunText{}); }), "--threshold must be > 1");
}

TEST(SpmvText, OracleOptionsNeedTheOracleMapping) {
  SpmvOptions o;
  const std::string text = message_of([&] { finish_spmv_options(o, SpmvText{}, {"--metric"}); });
  EXPECT_EQ(text, "--metric is used with --mapping oracle only");
  SpmvOptions plain;
  finish_spmv_options(plain, SpmvText{}, {});
  EXPECT_EQ(plain.mapping, SpmvMapping::kIdentity);
}

TEST(SweepText, QuickProfileKeepsTheOptionsGiven) {
  SweepOptions profile;
  apply_sweep_quick_profile(profile);
  SweepOptions o;
  o.quick = true;
  o.reps = 7;
  SweepText t;
  t.max_time = "2s";
  finish_sweep_options(o, t, {"--quick", "--reps", "--max-time"});
  EXPECT_EQ(o.reps, 7U);
  EXPECT_DOUBLE_EQ(o.max_time_s, 2.0);
  EXPECT_EQ(o.max_size, profile.max_size);
  EXPECT_EQ(o.min_reps, profile.min_reps);
}

TEST(SweepText, QuickAddsTheSizesGiven) {
  SweepOptions o;
  o.quick = true;
  SweepText t;
  t.sizes = "3KiB";
  finish_sweep_options(o, t, {"--quick", "--sizes"});
  EXPECT_NE(std::find(o.sizes.begin(), o.sizes.end(), 3U * 1024U), o.sizes.end());
  EXPECT_NE(std::find(o.sizes.begin(), o.sizes.end(), 8U), o.sizes.end());
}

TEST(SweepText, GuidelinesAddTheirOpsToThoseGiven) {
  SweepOptions o;
  o.guidelines = true;
  SweepText t;
  t.ops = "pingpong";
  finish_sweep_options(o, t, {"--guidelines", "--ops"});
  EXPECT_TRUE(o.samples);
  EXPECT_NE(std::find(o.ops.begin(), o.ops.end(), "pingpong"), o.ops.end());
  SweepOptions without_ops;
  without_ops.guidelines = true;
  finish_sweep_options(without_ops, SweepText{}, {"--guidelines"});
  EXPECT_EQ(std::find(without_ops.ops.begin(), without_ops.ops.end(), "pingpong"), without_ops.ops.end());
}

TEST(SweepText, BoundsRanksPerStep) {
  SweepOptions o;
  o.ranks_per_step = kMaxRanksPerStep + 1;
  EXPECT_NE(message_of([&] { finish_sweep_options(o, SweepText{}, {}); }).find("--ranks-per-step"),
            std::string::npos);
}

}  // namespace
}  // namespace gridlock::bench
