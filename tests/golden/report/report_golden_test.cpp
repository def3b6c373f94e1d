// Golden test of gridlock report: the data each section embeds in the page (its charts, tables'
// data, outlier lists, compare metrics) for the checked-in results in inputs/, against
// expected/<input>.json. After an intended change, regenerate with GRIDLOCK_UPDATE_GOLDEN=1 and
// review the diff (README.md).
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "gridlock/report/sections_json.hpp"

namespace gridlock::report {
namespace {

const std::filesystem::path kDir = std::filesystem::path(GRIDLOCK_GOLDEN_DIR) / "report";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Compares (or, with GRIDLOCK_UPDATE_GOLDEN set, rewrites) expected/<name>.json.
void check(const std::string& name, const Json& data) {
  const std::filesystem::path expected = kDir / "expected" / (name + ".json");
  const std::string actual = data.dump(1) + "\n";
  // NOLINTNEXTLINE(concurrency-mt-unsafe): the test reads its environment once, single-threaded.
  if (std::getenv("GRIDLOCK_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(expected))
      << expected << " is missing; run with GRIDLOCK_UPDATE_GOLDEN=1";
  EXPECT_EQ(read(expected), actual) << "embedded data of " << name << " differs from " << expected;
}

Section section_of(const std::string& input, const SectionOptions& options = {}) {
  const LoadedInput in = load_input(kDir / "inputs" / input);
  EXPECT_TRUE(in.error.empty()) << in.error;
  return in.document ? build_section(input, *in.document, options) : error_section(input, in.error);
}

class ReportGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(ReportGolden, EmbeddedDataMatches) {
  const std::string input = GetParam();
  check(input, section_of(input).data);
}

INSTANTIATE_TEST_SUITE_P(Inputs, ReportGolden,
                         ::testing::Values("load.json", "bench_noise.json", "bench_congest.json",
                                           "noise_measure.json", "noise.trace", "replicas.json",
                                           "sim_run.json", "map.json", "model_fit.json", "model_check.json",
                                           "trend.csv", "sweep.json", "spmv.json", "predict_mapping.json",
                                           "predict_traffic.json", "unknown.json"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             c = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
                           }
                           return name;
                         });

// Files written under a format's old name (core/schema.hpp's aliases) render the section of the
// renamed format, with the same data.
TEST(ReportGoldenAlias, OldSchemaNamesRenderTheRenamedFormatsSection) {
  for (const auto& [old_input, input, kind] :
       {std::tuple{"predict_mapping_v1.json", "predict_mapping.json", "gridlock.predict.mapping"},
        std::tuple{"predict_traffic_v1.json", "predict_traffic.json", "gridlock.predict.traffic"}}) {
    const Section s = section_of(old_input);
    EXPECT_FALSE(s.failed) << old_input;
    EXPECT_EQ(s.kind, kind) << old_input;
    check(input, s.data);
  }
}

TEST(ReportGoldenCsv, BenchHistogramsFromCsvDir) {
  const Section s = section_of("bench_load.json", SectionOptions{kDir / "inputs" / "histograms"});
  EXPECT_TRUE(s.notes.empty()) << s.notes.front();
  check("bench_load.json+histograms", s.data);
}

TEST(ReportGoldenCompare, TwoLoadRuns) {
  const LoadedInput a = load_input(kDir / "inputs" / "load.json");
  const LoadedInput b = load_input(kDir / "inputs" / "load_b.json");
  ASSERT_TRUE(a.document && b.document);
  check("compare_load", compare_section("load.json", *a.document, "load_b.json", *b.document).data);
}

}  // namespace
}  // namespace gridlock::report
