#include "gridlock/trace/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "gridlock/core/error.hpp"

namespace gridlock::trace {
namespace {

TEST(TraceConfig, DefaultsWhenNothingIsSet) {
  const TraceConfig c = config_from_values(nullptr, nullptr, nullptr);
  EXPECT_EQ(c.dir, "gridlock-trace");
  EXPECT_TRUE(c.filter.empty());
  EXPECT_EQ(c.max_bytes, 0U);
}

TEST(TraceConfig, ReadsEveryVariable) {
  const TraceConfig c = config_from_values("/tmp/t", " MPI_Test ,MPI_Iprobe,,MPI_Test", "64MiB");
  EXPECT_EQ(c.dir, "/tmp/t");
  EXPECT_EQ(c.filter, (std::vector<std::string>{"MPI_Iprobe", "MPI_Test"}));
  EXPECT_EQ(c.max_bytes, 64U * 1024 * 1024);
}

TEST(TraceConfig, ByteCountsTakeDecimalAndBinaryUnits) {
  EXPECT_EQ(parse_byte_count("4096", "x"), 4096U);
  EXPECT_EQ(parse_byte_count("1KiB", "x"), 1024U);
  EXPECT_EQ(parse_byte_count("1k", "x"), 1024U);
  EXPECT_EQ(parse_byte_count("2 MB", "x"), 2000000U);
  EXPECT_EQ(parse_byte_count("1.5GiB", "x"), 1610612736U);
}

TEST(TraceConfig, BadValuesSayWhatAndHowToFix) {
  try {
    (void)parse_byte_count("lots", "GRIDLOCK_TRACE_MAX_BYTES");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("GRIDLOCK_TRACE_MAX_BYTES: 'lots' is not a byte count"),
              std::string::npos);
  }
  EXPECT_THROW((void)parse_byte_count("-1", "x"), InputError);
  EXPECT_THROW((void)parse_byte_count("1QB", "x"), InputError);
  EXPECT_THROW((void)parse_byte_count("1e30", "x"), InputError);
  EXPECT_THROW((void)parse_filter("MPI_Send,MPI_Nosuch"), InputError);
  EXPECT_THROW((void)config_from_values("", nullptr, nullptr), InputError);
}

TEST(TraceConfig, EveryTracedFunctionIsAnMpiNameAndUnique) {
  auto names = std::vector<std::string_view>(traced_functions().begin(), traced_functions().end());
  for (const auto name : names) EXPECT_EQ(name.substr(0, 4), "MPI_");
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

}  // namespace
}  // namespace gridlock::trace
