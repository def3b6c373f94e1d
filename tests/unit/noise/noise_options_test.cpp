// The noise model of the noise options as text (noise_spec_of_options), as both tools take them.
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/noise/pattern.hpp"

namespace gridlock::noise {
namespace {

TEST(NoiseSpecOfOptions, NoneWhenNoneIsGiven) {
  EXPECT_EQ(noise_spec_of_options("", "auto", "", "").kind, NoiseSpec::Kind::kNone);
  // The format alone is not noise, and is not read.
  EXPECT_EQ(noise_spec_of_options("", "nosuch", "", "").kind, NoiseSpec::Kind::kNone);
}

TEST(NoiseSpecOfOptions, OneOfTraceOrPeriodicOrRandom) {
  const NoiseSpec trace = noise_spec_of_options("n.trace", "netgauge", "", "");
  EXPECT_EQ(trace.kind, NoiseSpec::Kind::kTrace);
  EXPECT_EQ(trace.trace_path, "n.trace");
  EXPECT_EQ(noise_spec_of_options("", "auto", "1000Hz:100us", "").kind, NoiseSpec::Kind::kPeriodic);
  EXPECT_EQ(noise_spec_of_options("", "auto", "", "1000Hz:100us").kind, NoiseSpec::Kind::kRandom);
}

TEST(NoiseSpecOfOptions, MoreThanOneNamesThem) {
  try {
    (void)noise_spec_of_options("n.trace", "auto", "", "1000Hz:100us");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "give at most one of --noise, --noise-periodic and --noise-random (got --noise and "
                 "--noise-random)");
  }
  EXPECT_THROW((void)noise_spec_of_options("n.trace", "nosuch", "", ""), InputError);
}

}  // namespace
}  // namespace gridlock::noise
