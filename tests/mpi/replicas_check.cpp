// Checks that `gridlock-bench sim-replicas` under MPI gave exactly the scales of the serial
// `gridlock sim --replicas` run with the same seed (files from GRIDLOCK_SERIAL / GRIDLOCK_SPREAD).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gridlock/core/output.hpp"

namespace {

// The file whose path is in environment variable `variable` (set by CTest), opened.
std::ifstream open_named_by(const char* variable) {
  const char* path = std::getenv(variable);  // NOLINT(concurrency-mt-unsafe): single-threaded test
  EXPECT_NE(path, nullptr) << variable;
  std::ifstream in(path == nullptr ? "" : path);
  EXPECT_TRUE(in.good()) << variable << " = " << (path == nullptr ? "(unset)" : path);
  return in;
}

gridlock::Json load(const char* variable) {
  std::ifstream in = open_named_by(variable);
  return gridlock::Json::parse(in, nullptr, false);
}

// The lines of a CSV file after its context block (`#` lines).
std::vector<std::string> csv_rows(const char* variable) {
  std::ifstream in = open_named_by(variable);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() != '#') {
      rows.push_back(line);
    }
  }
  return rows;
}

// The text of a file, without its <metadata> element (the context: the tool, the MPI ranks).
std::string svg_without_metadata(const char* variable) {
  std::ifstream in = open_named_by(variable);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t begin = text.find("<metadata>");
  const std::size_t end = text.find("</metadata>");
  EXPECT_NE(begin, std::string::npos) << variable;
  EXPECT_NE(end, std::string::npos) << variable;
  if (begin != std::string::npos && end != std::string::npos && end > begin) {
    text.erase(begin, end - begin);
  }
  return text;
}

}  // namespace

// Both tools draw the same box plot; only the context block differs.
TEST(SimReplicas, SpreadSvgEqualsSerialSvg) {
  const std::string serial = svg_without_metadata("GRIDLOCK_SERIAL_SVG");
  const std::string spread = svg_without_metadata("GRIDLOCK_SPREAD_SVG");
  EXPECT_NE(serial.find("data-ranks=\"64\""), std::string::npos);
  EXPECT_EQ(serial, spread);
}

// Both tools write the same CSV table: a header with every statistic's slowdown, a row per scale.
TEST(SimReplicas, SpreadCsvEqualsSerialCsv) {
  const std::vector<std::string> serial = csv_rows("GRIDLOCK_SERIAL_CSV");
  const std::vector<std::string> spread = csv_rows("GRIDLOCK_SPREAD_CSV");
  ASSERT_EQ(serial.size(), 3U);
  EXPECT_EQ(serial, spread);
  EXPECT_NE(serial[0].find("min_slowdown,q1_slowdown,median_slowdown,q3_slowdown,max_slowdown,mean_slowdown"),
            std::string::npos)
      << serial[0];
}

TEST(SimReplicas, SpreadOverRanksEqualsSerial) {
  const gridlock::Json serial = load("GRIDLOCK_SERIAL");
  const gridlock::Json spread = load("GRIDLOCK_SPREAD");
  ASSERT_TRUE(serial.contains("scales"));
  ASSERT_TRUE(spread.contains("scales"));
  ASSERT_EQ(serial["scales"].size(), 2U);
  EXPECT_EQ(serial["scales"], spread["scales"]);
  // Both find the same noise bottleneck from the same scales, and both finished.
  ASSERT_TRUE(serial.contains("noise_bottleneck"));
  EXPECT_EQ(serial["noise_bottleneck"], spread["noise_bottleneck"]);
  EXPECT_EQ(serial["status"], "complete");
  EXPECT_EQ(spread["status"], "complete");
  EXPECT_EQ(spread["context"]["schema_version"], 3);
  EXPECT_EQ(spread["context"]["mpi_ranks"], 3);
  // Both took every LogGOPS option alike (L = 5us halved by --network-scale 0.5, --o-send/--o-recv,
  // which sim-replicas once lacked, and --noise-rule).
  EXPECT_EQ(spread["context"]["loggops"]["L_ps"], 2'500'000);
  EXPECT_EQ(spread["context"]["loggops"]["o_send_ps"], 1'250'000);
  EXPECT_EQ(spread["context"]["loggops"]["o_recv_ps"], 750'000);
  EXPECT_EQ(spread["context"]["noise"]["rule"], "loggopsim");
  // One function writes both contexts: they differ only in what names the run (tool, date, host)
  // and in the MPI keys. The noise block once differed (gridlock-bench lacked detours_per_period).
  // git_commit is stamped per target when it is built: in a work tree the two may be built apart.
  EXPECT_GT(spread["context"]["noise"].value("detours_per_period", 0), 1)
      << spread["context"]["noise"].dump();
  for (const auto& [key, value] : serial["context"].items()) {
    if (key != "tool" && key != "date" && key != "host" && key != "git_commit") {
      EXPECT_EQ(value, spread["context"][key]) << key;
    }
  }
  EXPECT_EQ(spread["context"].size(), serial["context"].size() + 2) << spread["context"].dump();
}
