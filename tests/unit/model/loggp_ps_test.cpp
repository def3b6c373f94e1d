// --loggops-from's conversion without the CLI: a fit file's LogGP in picoseconds, bad fits refused.
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/model/loggp.hpp"

namespace gridlock::model {
namespace {

const std::string kInputs = GRIDLOCK_CLI_INPUTS_DIR;

TEST(LogGpPsFromFitFile, ConvertsTheFitToPicoseconds) {
  const LogGpPs p = loggp_ps_from_fit_file(kInputs + "/fit.json");
  EXPECT_EQ(p.latency_ps, 600'000U);   // alpha 1.2 us / 2
  EXPECT_EQ(p.overhead_ps, 300'000U);  // alpha / 4
  EXPECT_EQ(p.gap_ps, 300'000U);       // g = o without a bw_uni series
  EXPECT_EQ(p.gap_per_byte_ps, 800U);  // beta 0.0008 us/B
  ASSERT_TRUE(p.eager_threshold_bytes.has_value());
  EXPECT_EQ(*p.eager_threshold_bytes, 4096U);
  EXPECT_NE(p.basis.find("pingpong"), std::string::npos);
}

TEST(LogGpPsFromFitFile, RefusesAbsurdFits) {
  EXPECT_THROW((void)loggp_ps_from_fit_file(kInputs + "/fit_negative_alpha.json"), InputError);
  EXPECT_THROW((void)loggp_ps_from_fit_file(kInputs + "/fit_alpha_-1e300.json"), InputError);
}

}  // namespace
}  // namespace gridlock::model
