#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/results_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace gridlock::gpcnet {
namespace {
namespace fs = std::filesystem;

CanaryResult make_canary(const std::string& key, Better better, double scale) {
  CanaryResult c;
  c.key = key;
  c.title = key == "lat" ? "RR Two-sided Lat (8 B)" : "RR Two-sided BW+Sync (131072 B)";
  c.units = better == Better::kLower ? "usec" : "MiB/s/rank";
  c.better = better;
  for (int i = 1; i <= 1000; ++i) {
    c.histogram.record(scale * i);
  }
  c.fine = summarize(c.histogram);
  c.bulk_mean = c.fine.mean;
  c.ranks = 4;
  c.blocks_completed = 10;
  c.blocks_planned = 10;
  return c;
}

Report make_report() {
  Report r;
  r.mode = Mode::kLoad;
  r.context = base_context("gridlock-bench", "gridlock.bench", 1);
  r.roles = {{"canary", {"n0", "n1"}}, {"a2a", {"n2", "n3"}}};
  r.canary_ring0 = {"n1", "n0"};
  PhaseResult isolated{
      "isolated", {}, {make_canary("lat", Better::kLower, 1.0), make_canary("bw", Better::kHigher, 10.0)}};
  PhaseResult loaded{"loaded",
                     {CongestorType::kAllToAll},
                     {make_canary("lat", Better::kLower, 3.0), make_canary("bw", Better::kHigher, 5.0)}};
  loaded.canaries[0].timed_out = true;
  loaded.canaries[0].blocks_completed = 4;
  CongestorResult cong;
  cong.type = CongestorType::kAllToAll;
  cong.ranks = 2;
  cong.bytes = 1000;
  cong.mib_per_s_total = 50;
  cong.mib_per_s_per_rank = 25;
  loaded.canaries[0].congestors.push_back(cong);
  r.phases = {isolated, loaded};
  return r;
}

TEST(Results, CongestionImpactUsesMeansAndDirectionalTails) {
  const auto rows = congestion_impacts(make_report());
  ASSERT_EQ(rows.size(), 2U);
  // Latency: every sample x3, so loaded/isolated = 3 for mean and p99.
  EXPECT_NEAR(rows[0].mean, 3.0, 1e-12);
  EXPECT_NEAR(rows[0].tail99, 3.0, 3.0 * 2 * LogHistogram::kMaxRelativeError);
  // Bandwidth: samples halved, isolated/loaded = 2, the tail is the slow side (p1).
  EXPECT_NEAR(rows[1].mean, 2.0, 1e-12);
  EXPECT_NEAR(rows[1].tail99, 2.0, 2.0 * 2 * LogHistogram::kMaxRelativeError);
}

TEST(Results, JsonBodyHoldsEveryStatisticRoleAndTimeout) {
  const Json body = report_body(make_report());
  EXPECT_EQ(body["roles"]["canary"].size(), 2U);
  EXPECT_EQ(body["canary_ring0"][0], "n1");
  const auto& lat = body["phases"]["isolated"]["canaries"][0];
  for (const char* field : {"key", "name", "units", "samples", "mean", "min", "median", "p99", "p99_9", "max",
                            "p1", "tail99", "bulk", "blocks_completed", "timed_out"}) {
    EXPECT_TRUE(lat.contains(field)) << field;
  }
  EXPECT_EQ(body["phases"]["loaded"]["canaries"][0]["congestor_throughput"][0]["type"], "a2a");
  EXPECT_EQ(body["congestion_impact"].size(), 2U);
  ASSERT_EQ(body["timeouts"].size(), 1U);
  EXPECT_EQ(body["timeouts"][0]["reason"], "test_timeout");
  EXPECT_EQ(body["status"], "cut_short");
}

TEST(Results, TablesKeepTheClassicRowLayout) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  ASSERT_NE(out, nullptr);
  print_tables(make_report(), out);
  std::fclose(out);
  const std::string text(buffer, size);
  std::free(buffer);
  // Parsers of congestion-benchmark output read `| name | avg | 99% | units |` rows.
  const std::regex row(R"(^\| +RR Two-sided Lat \(8 B\) \| +[0-9.]+ \| +[0-9.]+ \| +usec \|$)");
  const std::regex impact(R"(^\| +RR Two-sided Lat \(8 B\) \| +3\.0X \| +3\.0X \|$)");
  int rows = 0;
  int impacts = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    rows += std::regex_match(line, row) ? 1 : 0;
    impacts += std::regex_match(line, impact) ? 1 : 0;
    if (line.starts_with("|") || line.starts_with("+")) {
      EXPECT_EQ(line.size(), 80U) << line;
    }
  }
  EXPECT_EQ(rows, 2);  // isolated and loaded
  EXPECT_EQ(impacts, 1);
  EXPECT_NE(text.find("cut short by --test-timeout after 4 of 10"), std::string::npos) << text;
}

std::string tables_of(const Report& report) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  EXPECT_NE(out, nullptr);
  print_tables(report, out);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(Results, ImpactBelowOneIsNoiseInTheTableAndRawInJson) {
  Report report = make_report();
  // Loaded latency samples 0.5x the isolated ones: the congestors "sped the canaries up".
  report.phases[1].canaries[0] = make_canary("lat", Better::kLower, 0.5);
  const std::string text = tables_of(report);
  const std::regex noise(R"(^\| +RR Two-sided Lat \(8 B\) \| +within noise \| +within noise \|$)");
  int rows = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    rows += std::regex_match(line, noise) ? 1 : 0;
    EXPECT_EQ(line.find("0.5X"), std::string::npos) << line;
  }
  EXPECT_EQ(rows, 1) << text;
  EXPECT_NE(text.find("no measurable impact (within noise)"), std::string::npos) << text;
  EXPECT_NEAR(report_body(report)["congestion_impact"][0]["mean"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(format_impact(0.96, 5), " 1.0X");  // reads 1.0X: not below 1
  EXPECT_EQ(format_impact(0.94, 12), "within noise");
  EXPECT_EQ(format_impact(std::nan(""), 3), "  -");
}

TEST(Results, OneHostRunsSayWhatTheFiguresMean) {
  Report report = make_report();
  EXPECT_EQ(tables_of(report).find("one host"), std::string::npos);
  report.one_host = true;
  const std::string text = tables_of(report);
  EXPECT_NE(text.find("note: " + std::string(one_host_explanation())), std::string::npos) << text;
  report.mode = Mode::kNetwork;
  report.phases.resize(1);
  EXPECT_EQ(tables_of(report).find("one host"), std::string::npos);
}

TEST(Results, HistogramCsvFilesStartWithContextAndCountEverySample) {
  const fs::path dir = fs::temp_directory_path() / "gridlock_results_csv_test";
  fs::remove_all(dir);
  const auto files = write_histogram_csvs(make_report(), dir);
  ASSERT_EQ(files.size(), 4U);
  std::ifstream in(dir / "loaded_lat.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "# tool: gridlock-bench");
  std::uint64_t total = 0;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      continue;
    }
    if (!header) {
      EXPECT_EQ(line, "lower,upper,count");
      header = true;
      continue;
    }
    total += std::stoull(line.substr(line.rfind(',') + 1));
  }
  EXPECT_EQ(total, 1000U);
  fs::remove_all(dir);
}

// GPCNeT's "avg" is block-based (each ring block's bytes over its time, averaged over ranks and
// blocks); the mean of per-iteration rates reads higher whenever iteration times vary. The table,
// the JSON "avg" and the impact of averages follow --average, blocks by default.
TEST(Results, AverageColumnIsBlockBasedByDefaultAndSamplesOnRequest) {
  Report report = make_report();
  report.phases[0].canaries[1].bulk_mean = 4000.0;  // isolated BW: samples' mean is 5005
  report.phases[1].canaries[1].bulk_mean = 1000.0;  // loaded BW: samples' mean is 2502.5
  const std::regex blocks_row(R"(^\| +RR Two-sided BW\+Sync \(131072 B\) \| +4000\.0 \| .*$)");
  const std::regex samples_row(R"(^\| +RR Two-sided BW\+Sync \(131072 B\) \| +5005\.0 \| .*$)");
  const auto count = [](const std::string& text, const std::regex& re) {
    int n = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      n += std::regex_match(line, re) ? 1 : 0;
    }
    return n;
  };
  const std::string by_blocks = tables_of(report);
  EXPECT_EQ(count(by_blocks, blocks_row), 1) << by_blocks;
  EXPECT_EQ(count(by_blocks, samples_row), 0) << by_blocks;
  Json body = report_body(report);
  EXPECT_EQ(body["average"], "blocks");
  EXPECT_DOUBLE_EQ(body["phases"]["isolated"]["canaries"][1]["avg"].get<double>(), 4000.0);
  EXPECT_NEAR(body["phases"]["isolated"]["canaries"][1]["mean"].get<double>(), 5005.0, 1e-9);
  EXPECT_NEAR(congestion_impacts(report)[1].mean, 4.0, 1e-12);

  report.average = Average::kSamples;
  const std::string by_samples = tables_of(report);
  EXPECT_EQ(count(by_samples, samples_row), 1) << by_samples;
  body = report_body(report);
  EXPECT_EQ(body["average"], "samples");
  EXPECT_NEAR(body["phases"]["isolated"]["canaries"][1]["avg"].get<double>(), 5005.0, 1e-9);
  EXPECT_NEAR(congestion_impacts(report)[1].mean, 2.0, 1e-12);
}

}  // namespace
}  // namespace gridlock::gpcnet
