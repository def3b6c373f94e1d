#include "gridlock/core/memory.hpp"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock {
namespace {

TEST(Memory, SaturatingArithmeticNeverWraps) {
  EXPECT_EQ(saturating_mul(UINT64_MAX / 2, 3), UINT64_MAX);
  EXPECT_EQ(saturating_mul(0, UINT64_MAX), 0U);
  EXPECT_EQ(saturating_mul(1U << 20U, 1U << 20U), std::uint64_t{1} << 40U);
  EXPECT_EQ(saturating_add(UINT64_MAX - 1, 2), UINT64_MAX);
  EXPECT_EQ(saturating_add(40, 2), 42U);
}

TEST(Memory, DefaultIsEightyPercentOfPhysical) {
  const std::uint64_t physical = physical_memory_bytes();
  ASSERT_GT(physical, 0U);
  EXPECT_EQ(default_max_memory_bytes(), physical / 5 * 4);
}

TEST(Memory, ParsesSizesAndPercentages) {
  EXPECT_EQ(parse_max_memory("8GiB"), 8 * kGiB);
  EXPECT_EQ(parse_max_memory("500MB"), 500'000'000U);
  EXPECT_NEAR(static_cast<double>(parse_max_memory("50%")), static_cast<double>(physical_memory_bytes()) / 2,
              4096.0);
  for (const char* bad : {"0", "0%", "101%", "-5%", "abc", "", "2PiB", "%"}) {
    EXPECT_THROW((void)parse_max_memory(bad), InputError) << bad;
  }
}

TEST(Memory, BudgetRefusesWithTheEstimateAndTheOption) {
  MemoryBudget budget(kGiB, "--max-memory");
  budget.reserve(512 * kMiB, "the schedule");
  EXPECT_EQ(budget.reserved_bytes(), 512 * kMiB);
  try {
    budget.reserve(1024 * kMiB, "the network model's buffers", "try fewer ranks");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the network model's buffers"), std::string::npos) << what;
    EXPECT_NE(what.find("1.5 GiB"), std::string::npos) << what;
    EXPECT_NE(what.find("limit of 1 GiB"), std::string::npos) << what;
    EXPECT_NE(what.find("try fewer ranks"), std::string::npos) << what;
    EXPECT_NE(what.find("--max-memory"), std::string::npos) << what;
  }
  MemoryBudget huge(kGiB);
  EXPECT_THROW(huge.reserve(saturating_mul(UINT64_MAX, 2), "everything"), InputError);
}

// Between 1000 and 1023 of a unit, "{:.3g}" printed "1e+03 MiB".
TEST(Memory, EstimatesNearAThousandOfAUnitReadPlainly) {
  MemoryBudget budget(kMiB, "--max-memory");
  try {
    budget.reserve(1010 * kMiB, "the topology");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("e+"), std::string::npos) << what;
    EXPECT_NE(what.find("0.986 GiB"), std::string::npos) << what;
  }
}

TEST(InternalErrorType, ExitsSeventyAndAsksForAReport) {
  const InternalError error("packet model: credit count below zero at router 3");
  EXPECT_EQ(error.exit_code(), ExitCode::kInternal);
  const std::string what = error.what();
  EXPECT_EQ(what.rfind("internal error: packet model", 0), 0U) << what;
  EXPECT_NE(what.find("please report"), std::string::npos) << what;
}

}  // namespace
}  // namespace gridlock
