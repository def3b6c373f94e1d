#include "gridlock/core/units.hpp"

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock {
namespace {

TEST(Units, ParsesByteSizes) {
  EXPECT_EQ(parse_byte_size("8"), 8U);
  EXPECT_EQ(parse_byte_size("8B"), 8U);
  EXPECT_EQ(parse_byte_size("4KiB"), 4096U);
  EXPECT_EQ(parse_byte_size("128k"), 131072U);
  EXPECT_EQ(parse_byte_size("8MiB"), 8U * 1024 * 1024);
  EXPECT_EQ(parse_byte_size("1.5KiB"), 1536U);
  EXPECT_EQ(parse_byte_size("2KB"), 2000U);
  EXPECT_EQ(parse_byte_size(" 1GiB "), 1024ULL * 1024 * 1024);
}

TEST(Units, RejectsBadByteSizesWithTheValueInTheMessage) {
  for (const char* bad : {"", "abc", "-4", "4XB", "0.5", "1e30GiB", "nan"}) {
    try {
      (void)parse_byte_size(bad, "--msg-size");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--msg-size"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("10"), 10.0);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("10s"), 10.0);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2.5us"), 2.5e-6);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2min"), 120.0);
  EXPECT_THROW((void)parse_duration_seconds("-1s"), InputError);
  EXPECT_THROW((void)parse_duration_seconds("1 fortnight"), InputError);
}

TEST(Units, FormatsBytes) {
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(131072), "128 KiB");
  EXPECT_EQ(format_bytes(8 * kMiB), "8 MiB");
  EXPECT_EQ(format_bytes(1000), "1000 B");
}

}  // namespace
}  // namespace gridlock

namespace gridlock {
namespace {

TEST(Units, ParsesTerabytes) {
  EXPECT_EQ(parse_byte_size("2TB"), 2000000000000U);
  EXPECT_EQ(parse_byte_size("1TiB"), std::uint64_t{1} << 40U);
  EXPECT_EQ(parse_byte_size("1T"), std::uint64_t{1} << 40U);
}

TEST(Units, ParsesRatesInBytesAndBits) {
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("12.5GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("100Gb/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("100Gbit/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("100 Gbit"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("1.6Tb/s"), 2e11);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("1TB/s"), 1e12);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("4.5e9"), 4.5e9);
  EXPECT_DOUBLE_EQ(parse_rate_bytes_per_s("1GiB/s"), 1073741824.0);
  EXPECT_THROW((void)parse_rate_bytes_per_s("0GB/s"), InputError);
  EXPECT_THROW((void)parse_rate_bytes_per_s("5 parsecs"), InputError);
  EXPECT_THROW((void)parse_rate_bytes_per_s("-1Gb/s"), InputError);
}

TEST(Units, FormatsRatesAndDurationsOneWay) {
  EXPECT_EQ(format_rate(12.5e9), "12.5 GB/s");
  EXPECT_EQ(format_bit_rate(12.5e9), "100 Gb/s");
  EXPECT_EQ(format_rate(512), "512 B/s");
  EXPECT_EQ(format_duration_s(1.5e-6), "1.5 us");
  EXPECT_EQ(format_duration_s(2.5e-7), "250 ns");
  EXPECT_EQ(format_duration_s(0.0125), "12.5 ms");
  EXPECT_EQ(format_duration_s(2.0034), "2.003 s");
  // The same value parsed in different notations prints the same way.
  EXPECT_EQ(format_duration_s(parse_duration_seconds("1e-6s")),
            format_duration_s(parse_duration_seconds("1us")));
}

TEST(Units, ParsesScientificDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1e-6s"), 1e-6);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2.5E-3"), 2.5e-3);
  EXPECT_EQ(parse_time_ps("1e-6s"), 1000000U);
  EXPECT_EQ(parse_time_ps("2.5E3ns"), 2500000U);
  EXPECT_EQ(parse_time_ps("1.5e+1us"), 15000000U);
  EXPECT_EQ(parse_time_ps("1e-12s"), 1U);
  EXPECT_EQ(parse_time_ps("0e5s"), 0U);
  EXPECT_EQ(parse_time_ps("100.000000000000000s"), 100000000000000U);
  EXPECT_THROW((void)parse_time_ps("1e-13s"), InputError);  // a tenth of a picosecond
  EXPECT_THROW((void)parse_time_ps("1e30s"), InputError);
  EXPECT_THROW((void)parse_time_ps("1e-s"), InputError);
  EXPECT_THROW((void)parse_time_ps("1e99999s"), InputError);
}

}  // namespace
}  // namespace gridlock
