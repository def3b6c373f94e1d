#include "gridlock/gpcnet/congest.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "gridlock/core/error.hpp"
#include "gridlock/gpcnet/roles.hpp"

namespace gridlock::gpcnet {
namespace {

CongestOptions finished(const std::string& duration, const std::string& interval,
                        const std::string& stop_file = "") {
  CongestOptions o;
  o.stop_file = stop_file;
  const OptionsText base;
  CongestText t;
  t.duration = duration;
  t.interval = interval;
  finish_congest_options(o, base, t, {});
  return o;
}

std::string message_of(const std::string& duration, const std::string& interval,
                       const std::string& stop_file = "") {
  try {
    (void)finished(duration, interval, stop_file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CongestOptions, TakeADurationAStopFileOrBoth) {
  const CongestOptions o = finished("2min", "500ms");
  EXPECT_EQ(o.base.mode, Mode::kCongest);
  EXPECT_DOUBLE_EQ(o.duration_s, 120);
  EXPECT_DOUBLE_EQ(o.interval_s, 0.5);
  EXPECT_DOUBLE_EQ(finished("0", "1s", "/tmp/stop").duration_s, 0);
  // Only a signal would end it: refused, as a batch job would never end.
  EXPECT_NE(message_of("0", "1s").find("needs --duration T, --stop-file F or both"), std::string::npos);
}

TEST(CongestOptions, BoundTheIntervals) {
  EXPECT_NE(message_of("10s", "1ms").find("--interval 1ms: give at least"), std::string::npos);
  EXPECT_NE(message_of("168h", "100ms").find("more than 100000 intervals"), std::string::npos);
  EXPECT_NE(message_of("2000h", "1s").find("--duration 2000h"), std::string::npos);
  // Without a duration rank 0 stops at the last interval it can record.
  EXPECT_DOUBLE_EQ(congest_time_limit_s(finished("0", "100ms", "/tmp/stop")), 10000.0);
  EXPECT_DOUBLE_EQ(congest_time_limit_s(finished("30s", "100ms")), 30.0);
}

TEST(CongestOptions, RefuseOneFileForJsonAndCsv) {
  CongestOptions o;
  o.base.json_path = "out.json";
  o.csv_path = "out.json";
  CongestText t;
  t.duration = "1s";
  EXPECT_THROW(finish_congest_options(o, OptionsText{}, t, {}), InputError);
}

TEST(RoleLayout, AllCongestorsLeavesNoCanaryAndSplitsEvenly) {
  const RoleLayout roles = RoleLayout::all_congestors(
      7, 3, {CongestorType::kAllToAll, CongestorType::kRmaIncast, CongestorType::kRmaBcast});
  ASSERT_EQ(roles.group_count(), 4);
  EXPECT_EQ(roles.group_size(0), 0U);
  EXPECT_EQ(roles.group_size(1), 3U);
  EXPECT_EQ(roles.group_size(2), 2U);
  EXPECT_EQ(roles.group_size(3), 2U);
  std::set<std::uint64_t> seen;
  for (std::uint64_t node = 0; node < 7; ++node) {
    const NodeRole role = roles.role_of(node);
    EXPECT_GE(role.group, 1) << "node " << node << " has no congestor";
    EXPECT_LT(role.position, roles.group_size(role.group));
    EXPECT_TRUE(seen.insert(static_cast<std::uint64_t>(role.group) * 100 + role.position).second);
  }
  EXPECT_THROW((void)RoleLayout::all_congestors(
                   5, 1, {CongestorType::kAllToAll, CongestorType::kP2pIncast, CongestorType::kRmaIncast}),
               InputError);
  EXPECT_THROW((void)RoleLayout::all_congestors(4, 1, {}), InputError);
}

CongestReport two_and_a_half_intervals() {
  CongestReport r;
  r.context = base_context("gridlock-bench congest", schemas::kBenchCongest);
  r.stop = CongestStop::kStopFile;
  r.seconds = 2.5;
  r.interval_s = 1;
  CongestSeries s;
  s.totals.type = CongestorType::kAllToAll;
  s.nodes = 2;
  s.totals.ranks = 4;
  s.totals.iterations = 100;
  s.totals.bytes = std::uint64_t{5} * 1024 * 1024;
  s.totals.mib_per_s_total = 2;
  s.totals.mib_per_s_per_rank = 0.5;
  s.interval_bytes = {2.0 * 1024 * 1024, 2.0 * 1024 * 1024, 1.0 * 1024 * 1024};
  r.congestors.push_back(s);
  return r;
}

TEST(CongestReport, IntervalsEndWithTheRun) {
  const CongestReport r = two_and_a_half_intervals();
  EXPECT_DOUBLE_EQ(congest_interval_length(r, 0), 1.0);
  EXPECT_DOUBLE_EQ(congest_interval_length(r, 2), 0.5);
  EXPECT_DOUBLE_EQ(congest_interval_length(r, 3), 0.0);
}

TEST(CongestReport, JsonAndCsvGiveTheRateOfEveryInterval) {
  const CongestReport r = two_and_a_half_intervals();
  const Json body = congest_body(r);
  EXPECT_EQ(body["stop"], "stop-file");
  ASSERT_EQ(body["congestors"][0]["intervals"].size(), 3U);
  EXPECT_DOUBLE_EQ(body["congestors"][0]["intervals"][1]["mib_per_s_total"].get<double>(), 2.0);
  // The last half interval: 1 MiB in 0.5 s.
  EXPECT_DOUBLE_EQ(body["congestors"][0]["intervals"][2]["mib_per_s_total"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(body["congestors"][0]["mib_per_s_per_rank"].get<double>(), 0.5);
  const std::string csv = congest_csv(r);
  EXPECT_NE(csv.find("# schema: gridlock.bench.congest\n"), std::string::npos);
  EXPECT_NE(csv.find("congestor,interval,start_s,end_s,ranks,mib_per_s_total,mib_per_s_per_rank\n"),
            std::string::npos);
  EXPECT_NE(csv.find("a2a,2,2.000000,2.500000,4,2.000,0.500\n"), std::string::npos) << csv;
}

TEST(CongestReport, TableAveragesTheFullIntervalsPerRank) {
  CongestReport r = two_and_a_half_intervals();
  r.congestors[0].interval_bytes = {4.0 * 1024 * 1024, 2.0 * 1024 * 1024, 0.0};
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  print_congest_tables(r, out);
  std::rewind(out);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  // Full intervals 4 and 2 MiB/s over 4 ranks: 0.75 average, 0.5 the slow tail.
  EXPECT_NE(text.find("|            All-to-all (2 nodes) |          0.8 |          0.5 |   MiB/s/rank |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stopped by stop-file"), std::string::npos) << text;
}

}  // namespace
}  // namespace gridlock::gpcnet
