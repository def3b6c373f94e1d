// gridlock-bench network|load's options completed after parsing, without the CLI: --quick's
// profile with the counts given on the command line winning, sizes and times, the bounds.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {
namespace {

std::string message_of(Options& o, const OptionsText& t, const std::set<std::string>& given) {
  try {
    finish_options(o, t, given);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(FinishOptions, ConvertsSizesAndTimes) {
  Options o;
  OptionsText t;
  t.bandwidth_size = "64KiB";
  t.test_timeout = "500ms";
  t.seed = 42;
  finish_options(o, t, {"--seed"});
  EXPECT_EQ(o.bandwidth_bytes, 64U * 1024U);
  EXPECT_DOUBLE_EQ(o.test_timeout_s, 0.5);
  ASSERT_TRUE(o.seed.has_value());
  EXPECT_EQ(*o.seed, 42U);
  EXPECT_EQ(o.congestors.size(), 4U);
}

TEST(FinishOptions, SeedOnlyWhenGiven) {
  Options o;
  finish_options(o, OptionsText{}, {});
  EXPECT_FALSE(o.seed.has_value());
}

TEST(FinishOptions, QuickProfileKeepsTheCountsGiven) {
  Options profile;
  apply_quick_profile(profile);
  Options o;
  o.quick = true;
  o.latency.measurements = 7;  // as the command line set it
  o.latency.iterations = 9;    // a default the profile replaces: not given
  o.congestor_check = 11;
  finish_options(o, OptionsText{}, {"--quick", "--latency-measurements", "--congestor-check"});
  EXPECT_EQ(o.latency.measurements, 7U);
  EXPECT_EQ(o.latency.iterations, profile.latency.iterations);
  EXPECT_EQ(o.bandwidth.measurements, profile.bandwidth.measurements);
  EXPECT_EQ(o.congestor_check, 11U);
  EXPECT_EQ(o.congestor_warmup, profile.congestor_warmup);
  EXPECT_DOUBLE_EQ(o.test_timeout_s, profile.test_timeout_s);  // the profile's shorter limit
}

TEST(FinishOptions, QuickKeepsAGivenTestTimeout) {
  Options o;
  o.quick = true;
  OptionsText t;
  t.test_timeout = "30s";
  finish_options(o, t, {"--quick", "--test-timeout"});
  EXPECT_DOUBLE_EQ(o.test_timeout_s, 30.0);
}

TEST(FinishOptions, BoundsNameTheOption) {
  Options o;
  o.bandwidth.rings = kMaxLoopRings + 1;
  EXPECT_NE(message_of(o, OptionsText{}, {}).find("--bandwidth-rings 1000001: give at most 1000000"),
            std::string::npos);
  Options late;
  OptionsText t;
  t.deadline = "200h";
  EXPECT_NE(message_of(late, t, {}).find("give at most a week (168h) each"), std::string::npos);
  Options sized;
  OptionsText bad;
  bad.latency_size = "lots";
  EXPECT_NE(message_of(sized, bad, {}).find("--latency-size"), std::string::npos);
}

TEST(CheckAtMost, NamesOptionValueAndBound) {
  EXPECT_NO_THROW(check_at_most(5, 5, "--x"));
  try {
    check_at_most(6, 5, "--x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--x 6: give at most 5");
  }
}

}  // namespace
}  // namespace gridlock::gpcnet
