// The run history: metric names, the database's round trip, migration, refusal of foreign and
// corrupt files, duplicates, lock timeouts and concurrent writers.
#include "gridlock/model/history.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gridlock/core/error.hpp"

namespace gridlock::model {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gridlock_history_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = dir_ / "runs.db";
  }
  void TearDown() override { fs::remove_all(dir_); }
  [[nodiscard]] History open() const {
    return History(db_, HistoryOptions{std::chrono::milliseconds(10000), true});
  }
  fs::path dir_;
  fs::path db_;
};

// A small hand-written sweep (docs/formats/sweep-json.md): allreduce on the whole world (4 ranks)
// and on 2, a ping-pong in two hop classes, and one record with two repeats.
json sweep(double allreduce_us, std::uint64_t seed, const std::string& host = "nid001") {
  const auto record = [](const char* kind, const char* op, std::uint64_t size, int ranks, json pair,
                         double median, int repeat, json bandwidth) {
    return json{{"kind", kind},
                {"op", op},
                {"size_bytes", size},
                {"ranks", ranks},
                {"pair_class", std::move(pair)},
                {"repeat", repeat},
                {"n", 100},
                {"outliers", 0},
                {"time_us",
                 {{"mean", median * 1.1},
                  {"min", median * 0.9},
                  {"median", median},
                  {"q1", median * 0.95},
                  {"q3", median * 1.05},
                  {"p99", median * 2},
                  {"max", median * 3},
                  {"ci_low", median},
                  {"ci_high", median},
                  {"ci_level", 0.95}}},
                {"bandwidth_mib_s", std::move(bandwidth)}};
  };
  json records = json::array();
  records.push_back(record("collective", "allreduce", 1048576, 4, nullptr, allreduce_us, 0, nullptr));
  records.push_back(record("collective", "allreduce", 1048576, 2, nullptr, allreduce_us / 2, 0, nullptr));
  records.push_back(record("p2p", "pingpong", 1024, 2, "node", 1.0, 0, nullptr));
  records.push_back(record("p2p", "pingpong", 1024, 2, "far", 2.0, 0, nullptr));
  records.push_back(record("p2p", "bw_uni", 8192, 2, "far", 10.0, 0, 781.25));
  records.push_back(record("p2p", "bw_uni", 8192, 2, "far", 30.0, 1, 260.0));
  records.push_back(record("collective", "barrier", 0, 4, nullptr, 3.0, 0, nullptr));
  return json{{"context",
               {{"tool", "gridlock-bench sweep"},
                {"gridlock_version", "0.1.0"},
                {"git_commit", "abc123"},
                {"schema", "gridlock.sweep"},
                {"schema_version", 1},
                {"date", "2026-11-25T20:00:00Z"},
                {"host", host},
                {"mpi_library", "Open MPI v4.1.4, package: Debian"},
                {"ranks", 4},
                {"seed", seed}}},
              {"records", std::move(records)}};
}

ParsedResult parsed(const json& doc, const std::string& source = "sweep.json") {
  return parse_result(doc.dump(), source);
}

double metric_value(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& m : metrics) {
    if (m.name == name) {
      return m.value;
    }
  }
  ADD_FAILURE() << "no metric " << name;
  return std::numeric_limits<double>::quiet_NaN();
}

template <typename E, typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error of the expected type";
  return "";
}

void raw_sql(const fs::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  const std::string text = message != nullptr ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << text;
}

TEST(HistoryNames, SizeLabelsAndCanonicalNames) {
  EXPECT_EQ(size_label(0), "0B");
  EXPECT_EQ(size_label(8), "8B");
  EXPECT_EQ(size_label(1536), "1536B");
  EXPECT_EQ(size_label(8192), "8KiB");
  EXPECT_EQ(size_label(1048576), "1MiB");
  EXPECT_EQ(size_label(std::uint64_t{3} * 1048576), "3MiB");
  EXPECT_EQ(size_label(1073741824), "1GiB");
  EXPECT_EQ(canonical_metric_name("sweep.allreduce.1M.median"), "sweep.allreduce.1MiB.median");
  EXPECT_EQ(canonical_metric_name("sweep.allreduce.p64.1048576.median"), "sweep.allreduce.p64.1MiB.median");
  EXPECT_EQ(canonical_metric_name("sweep.pingpong.far.1024KiB.p99"), "sweep.pingpong.far.1MiB.p99");
  EXPECT_EQ(canonical_metric_name("load.loaded.rr_two_sided_lat.p99"), "load.loaded.rr_two_sided_lat.p99");
  EXPECT_THROW((void)canonical_metric_name("sweep..median"), InputError);
  EXPECT_THROW((void)canonical_metric_name("sweep.allreduce.1XB.median"), InputError);
  EXPECT_THROW((void)canonical_metric_name(""), InputError);
}

TEST(HistoryNames, SweepMetrics) {
  const ParsedResult r = parsed(sweep(250, 1));
  EXPECT_EQ(r.context.schema, "gridlock.sweep");
  EXPECT_EQ(r.context.host, "nid001");
  EXPECT_EQ(r.context.seed, 1U);
  EXPECT_EQ(r.context.ranks, 4U);
  EXPECT_TRUE(r.notes.empty());
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.allreduce.1MiB.median"), 250);
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.allreduce.p2.1MiB.median"), 125);
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.pingpong.far.1KiB.p99"), 4);
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.pingpong.node.1KiB.median"), 1);
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.barrier.0B.median"), 3);
  // Two repeats pool by their median (of two: the midpoint).
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.bw_uni.far.8KiB.median"), 20);
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.bw_uni.far.8KiB.bw_mib_s"), (781.25 + 260) / 2);
  for (const Metric& m : r.metrics) {
    EXPECT_EQ(m.better, m.name.ends_with("bw_mib_s") ? Direction::kHigher : Direction::kLower) << m.name;
  }
}

TEST(HistoryNames, FailedAndSkippedSweepRecordsAreLeftOutWithANote) {
  json doc = sweep(250, 1);
  doc["context"]["schema_version"] = 2;
  doc["records"].push_back({{"kind", "collective"},
                            {"op", "allreduce"},
                            {"size_bytes", 2097152},
                            {"ranks", 4},
                            {"pair_class", nullptr},
                            {"repeat", 0},
                            {"status", "failed"},
                            {"error", "rank 0: MPI_Allreduce: MPI_ERR_COUNT: invalid count argument"}});
  doc["records"].push_back({{"kind", "collective"},
                            {"op", "allreduce"},
                            {"size_bytes", 4194304},
                            {"ranks", 4},
                            {"pair_class", nullptr},
                            {"repeat", 0},
                            {"status", "skipped"},
                            {"reason", "not measured"}});
  const ParsedResult r = parsed(doc);
  ASSERT_EQ(r.notes.size(), 1U);
  EXPECT_EQ(r.notes[0], "2 failed or skipped sweep records left out");
  EXPECT_DOUBLE_EQ(metric_value(r.metrics, "sweep.allreduce.1MiB.median"), 250);
  for (const Metric& m : r.metrics) {
    EXPECT_EQ(m.name.find("2MiB"), std::string::npos) << m.name;
  }
  json failed_only = doc;
  failed_only["records"] = json::array({doc["records"].back()});
  EXPECT_THROW((void)parsed(failed_only), InputError);
}

TEST(HistoryNames, BenchMetricsAndOtherKinds) {
  const json bench{
      {"context", {{"tool", "gridlock-bench"}, {"schema", "gridlock.bench"}, {"mode", "load"}, {"seed", 7}}},
      {"phases",
       {{"isolated", {{"canaries", {{{"key", "rr_two_sided_lat"}, {"better", "lower"}, {"p99", 5.0}}}}}},
        {"loaded",
         {{"canaries",
           {{{"key", "rr_two_sided_lat"}, {"better", "lower"}, {"p99", 9.0}, {"median", nullptr}},
            {{"key", "rr_two_sided_bw"}, {"better", "higher"}, {"mean", 900.0}, {"avg", 850.0}}}}}}}},
      {"congestion_impact",
       {{{"phase", "loaded"}, {"key", "rr_two_sided_lat"}, {"mean", 1.5}, {"tail99", 1.8}}}}};
  const ParsedResult b = parsed(bench, "load.json");
  EXPECT_DOUBLE_EQ(metric_value(b.metrics, "load.loaded.rr_two_sided_lat.p99"), 9);
  EXPECT_DOUBLE_EQ(metric_value(b.metrics, "load.isolated.rr_two_sided_lat.p99"), 5);
  EXPECT_DOUBLE_EQ(metric_value(b.metrics, "load.impact.loaded.rr_two_sided_lat.tail99"), 1.8);
  EXPECT_DOUBLE_EQ(metric_value(b.metrics, "load.loaded.rr_two_sided_bw.avg"), 850);
  EXPECT_EQ(b.metrics.size(), 6U);  // the null median is left out
  for (const Metric& m : b.metrics) {
    EXPECT_EQ(m.better, m.name.find("_bw.") != std::string::npos ? Direction::kHigher : Direction::kLower);
  }

  // gridlock-bench congest: each congestor's throughput, higher is better; intervals are not metrics.
  const json congest{{"context", {{"schema", "gridlock.bench.congest"}}},
                     {"stop", "duration"},
                     {"congestors",
                      {{{"key", "a2a"},
                        {"mib_per_s_total", 400.0},
                        {"mib_per_s_per_rank", 100.0},
                        {"intervals", {{{"start_s", 0}, {"mib_per_s_total", 390.0}}}}},
                       {{"key", "rma-incast"}, {"mib_per_s_total", 80.0}}}}};
  const ParsedResult c = parsed(congest, "congest.json");
  EXPECT_EQ(c.metrics.size(), 3U);
  EXPECT_DOUBLE_EQ(metric_value(c.metrics, "bench.congest.a2a.mib_per_s_per_rank"), 100);
  EXPECT_DOUBLE_EQ(metric_value(c.metrics, "bench.congest.rma-incast.mib_per_s_total"), 80);
  for (const Metric& m : c.metrics) {
    EXPECT_EQ(m.better, Direction::kHigher) << m.name;
  }

  const json sim{{"context", {{"schema", "gridlock.sim.result"}}},
                 {"complete", true},
                 {"max_finish_ps", 123456},
                 {"events", 10},
                 {"finish_ps", {1, 2}}};
  const ParsedResult s = parsed(sim, "sim.json");
  EXPECT_EQ(s.metrics.size(), 2U);
  EXPECT_DOUBLE_EQ(metric_value(s.metrics, "sim.result.max_finish_ps"), 123456);

  const ParsedResult u = parsed(json{{"context", {{"schema", "someone.else"}}}, {"x", 1}}, "u.json");
  EXPECT_TRUE(u.metrics.empty());
  ASSERT_EQ(u.notes.size(), 1U);
  EXPECT_NE(u.notes[0].find("unknown schema 'someone.else'"), std::string::npos);
}

TEST(HistoryNames, OldSchemaNamesAreStoredAsTheRenamedFormat) {
  // core/schema.hpp's aliases: the schema column holds the current name, the version the file's.
  const ParsedResult old =
      parsed(json{{"context", {{"schema", "gridlock.predict_mapping"}, {"schema_version", 1}}},
                  {"rows", json::array()}},
             "old.json");
  const ParsedResult now =
      parsed(json{{"context", {{"schema", "gridlock.predict.mapping"}, {"schema_version", 2}}},
                  {"rows", json::array()}},
             "new.json");
  EXPECT_EQ(old.context.schema, "gridlock.predict.mapping");
  EXPECT_EQ(old.context.schema_version, 1);
  EXPECT_EQ(old.metrics.size(), now.metrics.size());
  EXPECT_EQ(old.notes, now.notes);
  ASSERT_EQ(now.notes.size(), 1U);
  EXPECT_EQ(now.notes[0], "gridlock.predict.mapping results have no history metrics: stored without metrics");
  EXPECT_NE(old.json.find("gridlock.predict_mapping"), std::string::npos) << "the file's text is kept as is";
}

TEST(HistoryNames, BadResultsAreRefused) {
  EXPECT_NE(error_of<InputError>([] {
              (void)parse_result("{\"records\": []}", "a.json");
            }).find("a.json: not a gridlock result: it has no 'context' block"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([] {
              (void)parse_result("{\"context\": ", "b.json");
            }).find("b.json: not a gridlock result: not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([] { (void)parse_result("[1]", "c.json"); }).find("not an object"),
            std::string::npos);
  // Found by model_fuzz: a number beyond a double is out_of_range in nlohmann, not a parse_error.
  EXPECT_NE(error_of<InputError>([] {
              (void)parse_result("{\"context\": {\"seed\": 1E999}}", "d.json");
            }).find("d.json: not a gridlock result: not valid JSON"),
            std::string::npos);
  json bad = sweep(1, 1);
  bad["records"][2]["size_bytes"] = -4;
  EXPECT_NE(error_of<InputError>([&] {
              (void)parsed(bad, "d.json");
            }).find("d.json: record 2: 'size_bytes' must be a whole number of bytes >= 0"),
            std::string::npos);
  json twice = sweep(1, 1);
  twice["records"].push_back(twice["records"][0]);
  twice["records"].back()["repeat"] = 0;
  twice["variability"] = json::array({{{"kind", "p2p"},
                                       {"op", "pingpong"},
                                       {"size_bytes", 1024},
                                       {"ranks", 2},
                                       {"pair_class", "far"},
                                       {"cv", 0.1}},
                                      {{"kind", "p2p"},
                                       {"op", "pingpong"},
                                       {"size_bytes", 1024},
                                       {"ranks", 2},
                                       {"pair_class", "far"},
                                       {"cv", 0.2}}});
  EXPECT_NE(error_of<InputError>([&] { (void)parsed(twice, "e.json"); }).find("appears twice"),
            std::string::npos);
}

TEST_F(HistoryTest, RoundTripAddListShowTrendRegress) {
  History h = open();
  EXPECT_EQ(h.schema_version(), kHistorySchemaVersion);
  const std::vector<double> medians{250, 252, 248, 251, 249, 250, 253, 400};
  for (std::size_t i = 0; i < medians.size(); ++i) {
    const AddReport report = h.add({parsed(sweep(medians[i], i + 1), "run" + std::to_string(i) + ".json")});
    ASSERT_EQ(report.runs.size(), 1U);
    EXPECT_FALSE(report.runs[0].duplicate);
    EXPECT_EQ(report.runs[0].id, static_cast<std::int64_t>(i + 1));
  }
  const std::vector<RunSummary> runs = h.list();
  ASSERT_EQ(runs.size(), medians.size());
  EXPECT_EQ(runs.front().id, 1);
  EXPECT_EQ(runs.back().context.seed, medians.size());
  EXPECT_EQ(runs.back().context.mpi_library, "Open MPI v4.1.4, package: Debian");
  EXPECT_EQ(h.list(3).front().id, 6);
  EXPECT_NE(list_table(runs).find("| 8 | 2026-11-25T20:00:00Z | gridlock.sweep |"), std::string::npos);

  const std::optional<StoredRun> run = h.get(2);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(json::parse(run->json), sweep(252, 2));
  EXPECT_EQ(run->summary.metrics, run->metrics.size());
  EXPECT_NE(run_summary_text(*run).find("| sweep.allreduce.1MiB.median | 252 | lower |"), std::string::npos);
  EXPECT_FALSE(h.get(99).has_value());

  const std::vector<TrendPoint> trend = h.trend("sweep.allreduce.1MiB.median");
  ASSERT_EQ(trend.size(), medians.size());
  for (std::size_t i = 0; i < medians.size(); ++i) {
    EXPECT_EQ(trend[i].run_id, static_cast<std::int64_t>(i + 1));
    EXPECT_DOUBLE_EQ(trend[i].value, medians[i]);
  }
  EXPECT_EQ(h.trend("sweep.allreduce.1MiB.median", 2).front().run_id, 7);
  EXPECT_TRUE(h.trend("sweep.nosuch.1MiB.median").empty());
  EXPECT_EQ(h.direction("sweep.bw_uni.far.8KiB.bw_mib_s"), Direction::kHigher);

  // The last run's allreduce (400 us against ~250) is flagged worse; its other metrics, equal in
  // every run (MAD 0), are not.
  RegressOptions options;
  options.baseline = parse_baseline("last:5");
  const RegressReport report = h.regress(options);
  EXPECT_EQ(report.run, 8);
  std::size_t flagged = 0;
  for (const RegressRow& row : report.rows) {
    if (row.metric.starts_with("sweep.allreduce.1MiB.") ||
        row.metric.starts_with("sweep.allreduce.p2.1MiB.")) {
      EXPECT_TRUE(row.flagged) << row.metric;
      EXPECT_EQ(row.verdict(), "worse") << row.metric;
      EXPECT_EQ(row.baseline_runs, 5U);
    } else {
      EXPECT_FALSE(row.flagged) << row.metric;
    }
    flagged += row.flagged ? 1 : 0;
  }
  EXPECT_EQ(flagged, 14U);  // 7 statistics of two allreduce records
  EXPECT_EQ(report.regressions(), 14U);
  EXPECT_NE(regress_table(report).find("| sweep.allreduce.1MiB.median | 250 | 1 | 5 | 400 | +60.0% |"),
            std::string::npos);

  // Checked against the runs before it, run 7 (253 us) is within the baseline's spread.
  options.run = 7;
  options.metrics = {"sweep.allreduce.1MiB.median"};
  const RegressReport seven = h.regress(options);
  ASSERT_EQ(seven.rows.size(), 1U);
  EXPECT_FALSE(seven.rows[0].flagged);
  EXPECT_EQ(seven.rows[0].verdict(), "ok");
  // A faster run is flagged better, not a regression.
  (void)h.add({parsed(sweep(150, 100), "fast.json")});
  options.run.reset();
  const RegressReport fast = h.regress(options);
  EXPECT_EQ(fast.rows[0].verdict(), "better");
  EXPECT_EQ(fast.regressions(), 0U);
  // Too short a baseline: skipped.
  options.run = 2;
  EXPECT_TRUE(h.regress(options).rows[0].skipped);
  options.metrics = {"sweep.nosuch.1MiB.median"};
  EXPECT_THROW((void)h.regress(options), InputError);
  EXPECT_THROW((void)parse_baseline("last:2"), InputError);
  EXPECT_THROW((void)parse_baseline("first:10"), InputError);
}

TEST_F(HistoryTest, ZeroSpreadBaselineNeedsTheMinimalChange) {
  History h = open();
  for (int i = 0; i < 5; ++i) {
    (void)h.add({parsed(sweep(100, static_cast<std::uint64_t>(i)))});
  }
  (void)h.add({parsed(sweep(101, 99))});  // 1% off a baseline with MAD 0: noise, not a regression
  RegressOptions options;
  options.metrics = {"sweep.allreduce.1MiB.median"};
  const RegressReport report = h.regress(options);
  EXPECT_TRUE(std::isinf(report.rows[0].robust_z));
  EXPECT_FALSE(report.rows[0].flagged);
  options.min_change = 0.005;
  EXPECT_TRUE(h.regress(options).rows[0].flagged);
}

TEST_F(HistoryTest, DuplicatesAreSkippedAndBatchesAreAllOrNothing) {
  History h = open();
  const ParsedResult a = parsed(sweep(1, 1), "a.json");
  const AddReport first = h.add({a, parsed(sweep(2, 2), "b.json")});
  ASSERT_EQ(first.runs.size(), 2U);
  const AddReport again = h.add({a});
  ASSERT_EQ(again.runs.size(), 1U);
  EXPECT_TRUE(again.runs[0].duplicate);
  EXPECT_EQ(again.runs[0].id, first.runs[0].id);
  EXPECT_EQ(h.count(), 2U);
  // The same content under another name is still a duplicate; a different byte is not.
  EXPECT_TRUE(h.add({parsed(sweep(1, 1), "copy.json")}).runs[0].duplicate);
  EXPECT_FALSE(h.add({parse_result(sweep(1, 1).dump() + "\n", "spaced.json")}).runs[0].duplicate);
  EXPECT_EQ(h.count(), 3U);
  // A batch that fails half-way (here a result with one metric twice) adds none of its runs.
  ParsedResult broken = parsed(sweep(3, 3), "broken.json");
  broken.metrics.push_back(broken.metrics.front());
  EXPECT_THROW((void)h.add({parsed(sweep(4, 4), "fine.json"), broken}), Error);
  EXPECT_EQ(h.count(), 3U);
  EXPECT_EQ(h.add({parsed(sweep(4, 4), "fine.json")}).runs[0].id, 4);
  // add() stores metric rows in blocks of 64: a run of more than 64 (a block and a remainder) round-trips,
  // and a name twice inside a block fails the same way.
  ParsedResult many = parsed(sweep(5, 5), "many.json");
  for (int k = 0; k < 70; ++k) {
    many.metrics.push_back(Metric{"sweep.extra" + std::to_string(k) + ".1KiB.median", static_cast<double>(k),
                                  Direction::kLower});
  }
  std::sort(many.metrics.begin(), many.metrics.end(),
            [](const Metric& x, const Metric& y) { return x.name < y.name; });
  ParsedResult twice = many;
  twice.json += " ";
  twice.metrics[2].name = twice.metrics[1].name;
  EXPECT_THROW((void)h.add({twice}), Error);
  EXPECT_EQ(h.count(), 4U);
  const std::int64_t id = h.add({many}).runs[0].id;
  const std::optional<StoredRun> stored = h.get(id);
  ASSERT_TRUE(stored.has_value());
  ASSERT_EQ(stored->metrics.size(), many.metrics.size());
  EXPECT_EQ(stored->metrics[1].name, many.metrics[1].name);
  EXPECT_DOUBLE_EQ(stored->metrics.back().value, many.metrics.back().value);
}

TEST_F(HistoryTest, MigratesVersion1) {
  // Version 1 as gridlock wrote it, by hand: no content hashes, no metric directions.
  raw_sql(db_, R"sql(
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta(key, value) VALUES ('application', 'gridlock history'), ('schema_version', '1');
    CREATE TABLE runs(id INTEGER PRIMARY KEY AUTOINCREMENT, added TEXT NOT NULL, source TEXT NOT NULL,
      schema TEXT NOT NULL, schema_version INTEGER NOT NULL, tool TEXT NOT NULL, mode TEXT NOT NULL,
      host TEXT NOT NULL, date TEXT NOT NULL, mpi_library TEXT NOT NULL, gridlock_version TEXT NOT NULL,
      git_commit TEXT NOT NULL, seed TEXT, ranks INTEGER, notes TEXT NOT NULL, json TEXT NOT NULL);
    CREATE TABLE metrics(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL,
      value REAL NOT NULL, PRIMARY KEY (run_id, name)) WITHOUT ROWID;
    CREATE INDEX metrics_by_name ON metrics(name, run_id, value);
    INSERT INTO runs VALUES (1, '2026-01-01T00:00:00Z', '/old/sweep.json', 'gridlock.sweep', 1,
      'gridlock-bench sweep', '', 'old-host', '2026-01-01T00:00:00Z', 'MPICH 4.0', '0.0.9', 'deadbeef', '5', 4, '',
      '{"context": {"schema": "gridlock.sweep"}, "records": []}');
    INSERT INTO metrics VALUES (1, 'sweep.allreduce.1MiB.median', 240.0), (1, 'sweep.bw_uni.far.8KiB.bw_mib_s', 700);
    PRAGMA application_id = 1196181587;
    PRAGMA user_version = 1;
  )sql");
  {
    History h = open();
    EXPECT_EQ(h.opened_schema_version(), 1);
    EXPECT_EQ(h.schema_version(), kHistorySchemaVersion);
    EXPECT_EQ(h.direction("sweep.bw_uni.far.8KiB.bw_mib_s"), Direction::kHigher);
    const auto old = h.get(1);
    ASSERT_TRUE(old.has_value());
    EXPECT_EQ(old->summary.context.host, "old-host");
    EXPECT_EQ(old->summary.context.seed, 5U);
    // The migrated run's hash is known: adding its text again is a duplicate.
    EXPECT_TRUE(h.add({parse_result(old->json, "again.json")}).runs[0].duplicate);
    (void)h.add({parsed(sweep(260, 2))});
    const auto trend = h.trend("sweep.allreduce.1MiB.median");
    ASSERT_EQ(trend.size(), 2U);
    EXPECT_DOUBLE_EQ(trend[0].value, 240);
    EXPECT_DOUBLE_EQ(trend[1].value, 260);
  }
  EXPECT_EQ(History(db_).opened_schema_version(), kHistorySchemaVersion);
}

// Version 2's layout as gridlock 2 wrote it (version 1, then 1 -> 2).
constexpr const char* kLayoutV2 = R"sql(
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta(key, value) VALUES ('application', 'gridlock history'), ('schema_version', '2');
    CREATE TABLE runs(id INTEGER PRIMARY KEY AUTOINCREMENT, added TEXT NOT NULL, source TEXT NOT NULL,
      schema TEXT NOT NULL, schema_version INTEGER NOT NULL, tool TEXT NOT NULL, mode TEXT NOT NULL,
      host TEXT NOT NULL, date TEXT NOT NULL, mpi_library TEXT NOT NULL, gridlock_version TEXT NOT NULL,
      git_commit TEXT NOT NULL, seed TEXT, ranks INTEGER, notes TEXT NOT NULL, json TEXT NOT NULL);
    CREATE TABLE metrics(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL,
      value REAL NOT NULL, PRIMARY KEY (run_id, name)) WITHOUT ROWID;
    CREATE INDEX metrics_by_name ON metrics(name, run_id, value);
    ALTER TABLE runs ADD COLUMN content_hash INTEGER;
    CREATE INDEX runs_by_hash ON runs(content_hash);
    CREATE TABLE metric_info(name TEXT PRIMARY KEY, better TEXT NOT NULL) WITHOUT ROWID;
    PRAGMA application_id = 1196181587;
    PRAGMA user_version = 2;
  )sql";

// Version 3's additions to version 2 (2 -> 3), as gridlock 3 wrote them.
constexpr const char* kLayoutV3 = R"sql(
    CREATE TABLE metric_names(name TEXT PRIMARY KEY, runs INTEGER NOT NULL) WITHOUT ROWID;
    DROP INDEX metrics_by_name;
    CREATE INDEX runs_by_schema ON runs(schema);
    UPDATE meta SET value = '3' WHERE key = 'schema_version';
    PRAGMA user_version = 3;
  )sql";

// The runs of `reference` copied into the older layout at `db` (runs without the name_set column).
void copy_runs(const fs::path& db, const fs::path& reference) {
  raw_sql(db,
          ("ATTACH DATABASE '" + reference.string() +
           "' AS ref; INSERT INTO runs SELECT id, added, source, schema, schema_version, tool, mode, host, "
           "date, mpi_library, gridlock_version, git_commit, seed, ranks, notes, json, content_hash FROM "
           "ref.runs; INSERT INTO metrics SELECT * FROM ref.metrics; "
           "INSERT INTO metric_info SELECT * FROM ref.metric_info;")
              .c_str());
}

// Runs of several kinds: 8 sweeps (the last slow) of two record sets, noise runs between them,
// and a result of a schema without metrics.
void fill_reference(History& h) {
  const std::vector<double> medians{250, 252, 248, 251, 249, 250, 253, 400};
  for (std::size_t i = 0; i < medians.size(); ++i) {
    json doc = sweep(medians[i], i + 1);
    if (i % 3 == 1) {
      doc["records"].erase(6);  // no barrier: another set of names
    }
    (void)h.add({parsed(doc, "run" + std::to_string(i) + ".json")});
    // Runs of another schema in between, which the sweeps' baselines pass over.
    const json noise{{"context", {{"schema", "gridlock.bench.noise"}, {"date", "2026-11-25T21:00:00Z"}}},
                     {"summary", {{"noise_fraction", 0.01 * static_cast<double>(i + 1)}}}};
    (void)h.add({parsed(noise, "noise" + std::to_string(i) + ".json")});
  }
  (void)h.add({parsed(json{{"context", {{"schema", "gridlock.unknown"}}}}, "unknown.json")});
}

// list, show, trend, metrics and regress of `got` (migrated) against `want` (the reference).
void expect_same_answers(const History& got, const History& want) {
  EXPECT_EQ(got.schema_version(), kHistorySchemaVersion);
  EXPECT_EQ(list_table(got.list()), list_table(want.list()));
  ASSERT_EQ(got.count(), 17U);
  for (std::int64_t id = 1; id <= 17; ++id) {
    EXPECT_EQ(run_summary_text(*got.get(id)), run_summary_text(*want.get(id))) << id;
  }
  for (const char* metric : {"sweep.allreduce.1MiB.median", "bench.noise.summary.noise_fraction"}) {
    EXPECT_EQ(trend_table(metric, got.trend(metric)), trend_table(metric, want.trend(metric))) << metric;
    EXPECT_EQ(got.trend(metric).size(), 8U);
  }
  const auto names = got.metric_names("");
  EXPECT_EQ(names, want.metric_names(""));
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front().second, 8U);
  const auto barrier = got.metric_names("sweep.barrier.0B.");
  ASSERT_FALSE(barrier.empty());
  EXPECT_EQ(barrier.front().second, 5U);  // runs 0, 2, 3, 5, 6 have it
  EXPECT_EQ(barrier, want.metric_names("sweep.barrier.0B."));
  RegressOptions options;
  options.baseline = parse_baseline("last:5");
  options.run = 15;  // the last sweep: its baseline is the five sweeps before, not the noise runs
  const RegressReport report = got.regress(options);
  EXPECT_EQ(regress_table(report, true), regress_table(want.regress(options), true));
  EXPECT_EQ(report.regressions(), 14U);
  for (const RegressRow& row : report.rows) {
    EXPECT_EQ(row.baseline_runs, row.metric.starts_with("sweep.barrier.") ? 4U : 5U) << row.metric;
  }
  options.run.reset();
  options.baseline = parse_baseline("all");
  EXPECT_EQ(regress_table(got.regress(options), true), regress_table(want.regress(options), true));
}

TEST_F(HistoryTest, MigratesVersion2WithTheSameAnswers) {
  // The same runs stored by this gridlock (reference) and copied into a version 2 layout.
  const fs::path reference = dir_ / "reference.db";
  {
    History h(reference, HistoryOptions{std::chrono::milliseconds(10000), true});
    fill_reference(h);
  }
  raw_sql(db_, kLayoutV2);
  copy_runs(db_, reference);
  History want(reference);
  History got(db_);
  EXPECT_EQ(got.opened_schema_version(), 2);
  expect_same_answers(got, want);
}

TEST_F(HistoryTest, MigratesVersion3WithTheSameAnswers) {
  // The same runs in a version 3 layout, with the run counts per name gridlock 3 kept.
  const fs::path reference = dir_ / "reference.db";
  {
    History h(reference, HistoryOptions{std::chrono::milliseconds(10000), true});
    fill_reference(h);
  }
  raw_sql(db_, (std::string(kLayoutV2) + kLayoutV3).c_str());
  copy_runs(db_, reference);
  raw_sql(db_, "INSERT INTO metric_names(name, runs) SELECT name, count(*) FROM metrics GROUP BY name;");
  History want(reference);
  {
    History got(db_);
    EXPECT_EQ(got.opened_schema_version(), 3);
    expect_same_answers(got, want);
  }
  // The sweeps' two sets of names, the noise runs' and the empty one, each stored once; a name's
  // count goes on with the next add of its kind.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw,
                               "SELECT count(*), sum(runs), (SELECT count(*) FROM sqlite_master WHERE name = "
                               "'metric_names') FROM name_sets",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 4);
  EXPECT_EQ(sqlite3_column_int(s, 1), 17);
  EXPECT_EQ(sqlite3_column_int(s, 2), 0);
  sqlite3_finalize(s);
  sqlite3_close(raw);
  History got(db_);
  (void)got.add({parsed(sweep(250, 99), "more.json")});
  EXPECT_EQ(got.metric_names("sweep.barrier.0B.").front().second, 6U);
  EXPECT_EQ(got.metric_names("sweep.allreduce.1MiB.median").front().second, 9U);
}

// Counts across several kinds of runs, checked against counting every run's metrics; duplicates
// and failed batches count nothing; a caller's metrics out of name order count the same.
TEST_F(HistoryTest, MetricNamesCountRunsOfEveryKind) {
  History h = open();
  std::vector<ParsedResult> results;
  for (std::uint64_t i = 0; i < 9; ++i) {
    json doc = sweep(100, i);
    if (i % 3 == 0) {
      doc["records"].erase(0);  // no whole-world allreduce
    } else if (i % 3 == 1) {
      doc["records"].erase(6);  // no barrier
    }
    results.push_back(parsed(doc, "s" + std::to_string(i) + ".json"));
    const json noise{{"context", {{"schema", "gridlock.bench.noise"}}},
                     {"summary", {{"noise_fraction", 0.1}, {"runs", static_cast<double>(i)}}}};
    results.push_back(parsed(noise, "n" + std::to_string(i) + ".json"));
  }
  (void)h.add({results[0], results[1], results[2]});  // one batch: the set made by the first counts the third
  for (std::size_t i = 3; i < results.size(); ++i) {
    (void)h.add({results[i]});
  }
  EXPECT_TRUE(h.add({results[4]}).runs[0].duplicate);
  ParsedResult broken = parsed(sweep(3, 1000), "broken.json");
  broken.metrics.push_back(broken.metrics.front());
  EXPECT_THROW((void)h.add({broken}), Error);
  ParsedResult shuffled = parsed(sweep(7, 2000), "shuffled.json");
  std::reverse(shuffled.metrics.begin(), shuffled.metrics.end());
  (void)h.add({shuffled});

  std::map<std::string, std::size_t> want;
  for (const RunSummary& run : h.list()) {
    const std::optional<StoredRun> stored = h.get(run.id);
    ASSERT_TRUE(stored.has_value());
    for (const Metric& m : stored->metrics) {
      ++want[m.name];
    }
  }
  EXPECT_EQ(h.metric_names(""), (std::vector<std::pair<std::string, std::size_t>>(want.begin(), want.end())));
  EXPECT_EQ(want.at("sweep.allreduce.1MiB.median"), 7U);  // 6 of the 9 sweeps, and shuffled
  EXPECT_EQ(want.at("sweep.barrier.0B.median"), 7U);
  EXPECT_EQ(want.at("sweep.pingpong.node.1KiB.median"), 10U);
  EXPECT_EQ(want.at("bench.noise.summary.noise_fraction"), 9U);
  const auto noise = h.metric_names("bench.noise.");
  ASSERT_EQ(noise.size(), 2U);
  EXPECT_EQ(noise[0], (std::pair<std::string, std::size_t>{"bench.noise.summary.noise_fraction", 9}));
  EXPECT_TRUE(h.metric_names("sweep.nosuch").empty());
  // A prefix is a byte range, not a LIKE pattern: '_' matches only itself.
  EXPECT_TRUE(h.metric_names("sweep_").empty());
}

TEST_F(HistoryTest, RefusesForeignCorruptAndNewerDatabases) {
  const fs::path text = dir_ / "notes.txt";
  std::ofstream(text) << "this is not a database, but it is long enough to have a header of sorts...\n";
  EXPECT_NE(error_of<InputError>([&] { History h(text); })
                .find("notes.txt' is not a gridlock history database: "
                      "it is not an SQLite database"),
            std::string::npos);

  const fs::path other = dir_ / "other.db";
  raw_sql(other, "CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('x');");
  EXPECT_NE(error_of<InputError>([&] {
              History h(other);
            }).find("other.db' is an SQLite database but not a gridlock history"),
            std::string::npos);

  const fs::path app = dir_ / "app.db";
  raw_sql(app, "CREATE TABLE meta(key TEXT, value TEXT); PRAGMA application_id = 42;");
  EXPECT_NE(error_of<InputError>([&] { History h(app); }).find("another application (application_id 0x2a"),
            std::string::npos);

  { History h = open(); }
  raw_sql(db_, "UPDATE meta SET value = '99' WHERE key = 'schema_version';");
  EXPECT_NE(
      error_of<InputError>([&] { History h(db_); }).find("schema version 99, written by a newer gridlock"),
      std::string::npos);

  // A history whose pages were overwritten: corrupt, said as such (or as not a database).
  const fs::path broken = dir_ / "broken.db";
  {
    History h(broken, HistoryOptions{std::chrono::milliseconds(1000), true});
    for (int i = 0; i < 20; ++i) {
      (void)h.add({parsed(sweep(100 + i, static_cast<std::uint64_t>(i)))});
    }
  }
  {
    std::fstream f(broken, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    const std::string junk(8192, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  fs::remove(broken.string() + "-wal");
  fs::remove(broken.string() + "-shm");
  const std::string message = error_of<InputError>([&] {
    History h(broken);
    (void)h.trend("sweep.allreduce.1MiB.median");
    (void)h.list();
  });
  EXPECT_TRUE(message.find("is corrupt") != std::string::npos ||
              message.find("not an SQLite database") != std::string::npos)
      << message;

  EXPECT_NE(error_of<InputError>([&] { History h(dir_ / "missing.db"); }).find("no history database at"),
            std::string::npos);
}

TEST_F(HistoryTest, LockedBeyondTheTimeoutIsAClearError) {
  { History h = open(); }
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  History h(db_, HistoryOptions{std::chrono::milliseconds(200), false});
  const std::string message = error_of<IoError>([&] { (void)h.add({parsed(sweep(1, 1))}); });
  EXPECT_NE(message.find("runs.db' is locked by another process beyond the busy timeout"), std::string::npos)
      << message;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(h.add({parsed(sweep(1, 1))}).runs.size(), 1U);
  EXPECT_EQ(h.count(), 1U);
}

// Separate jobs opening the same new file at once: each must see either no database or a whole
// gridlock history, never the half a creating process has committed (CI saw "not a gridlock
// history (it has 9 tables)" when one process read the application id before another's commit and
// the table count after it).
TEST_F(HistoryTest, ConcurrentOpensOfANewDatabaseAllSucceed) {
  constexpr int kRounds = 40;
  constexpr int kOpeners = 6;
  for (int round = 0; round < kRounds; ++round) {
    const fs::path path = dir_ / ("new" + std::to_string(round) + ".db");
    std::atomic<int> ready{0};
    std::vector<std::string> errors(kOpeners);
    std::vector<std::thread> openers;
    openers.reserve(kOpeners);
    for (int o = 0; o < kOpeners; ++o) {
      openers.emplace_back([&, o] {
        ready.fetch_add(1);
        while (ready.load() < kOpeners) {
          std::this_thread::yield();
        }
        try {
          const History h(path, HistoryOptions{std::chrono::milliseconds(20000), true});
          (void)h.count();
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(o)] = e.what();
        }
      });
    }
    for (std::thread& t : openers) {
      t.join();
    }
    for (const std::string& e : errors) {
      ASSERT_EQ(e, "") << "round " << round;
    }
  }
}

TEST_F(HistoryTest, ConcurrentWritersLoseNothing) {
  constexpr int kWriters = 4;
  constexpr int kRunsEach = 25;
  { History h = open(); }
  std::vector<std::thread> writers;
  writers.reserve(kWriters);
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      try {
        History h(db_);  // one connection per writer, as separate jobs would have
        for (int i = 0; i < kRunsEach; ++i) {
          const auto seed = (static_cast<std::uint64_t>(w) * 1000) + static_cast<std::uint64_t>(i);
          (void)h.add({parsed(sweep(100.0 + i, seed, "writer" + std::to_string(w)))});
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(w)] = e.what();
      }
    });
  }
  for (std::thread& t : writers) {
    t.join();
  }
  for (const std::string& e : errors) {
    EXPECT_EQ(e, "");
  }
  const History h(db_);
  const std::vector<RunSummary> runs = h.list();
  ASSERT_EQ(runs.size(), static_cast<std::size_t>(kWriters * kRunsEach));
  std::set<std::uint64_t> seeds;
  for (const RunSummary& r : runs) {
    seeds.insert(r.context.seed.value_or(0));
    EXPECT_EQ(r.metrics, runs.front().metrics);
  }
  EXPECT_EQ(seeds.size(), runs.size());
  EXPECT_EQ(h.trend("sweep.allreduce.1MiB.median").size(), runs.size());
}

// --min-change moved from the CLI: a percentage with an optional '%', 0 to 1000, as a fraction.
TEST(HistoryOptions, MinChangeIsAPercentageUpTo1000) {
  EXPECT_DOUBLE_EQ(parse_min_change("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_min_change("2.5"), 0.025);
  EXPECT_DOUBLE_EQ(parse_min_change("0"), 0.0);
  EXPECT_DOUBLE_EQ(parse_min_change("1000%"), 10.0);
  for (const char* bad : {"", "%", "-1%", "1001", "5%%", "5x", "nan"}) {
    try {
      (void)parse_min_change(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--min-change"), std::string::npos) << e.what();
    }
  }
}

// The trend CSV moved from the CLI: context block with the database, metric, direction and
// --last, then one row per point with 17 significant digits.
TEST(HistoryOptions, TrendCsvHasContextAndRows) {
  const std::vector<TrendPoint> points{{1, "2026-01-01T00:00:00Z", "h1", 0.1},
                                       {4, "2026-01-02T00:00:00Z", "h2", 2}};
  const std::string csv =
      trend_csv("rel/db.sqlite", "sweep.allreduce.1MiB.median", Direction::kLower, 7, points);
  EXPECT_NE(csv.find("# tool: gridlock history trend\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# db: " + fs::absolute("rel/db.sqlite").lexically_normal().string() + "\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("# metric: sweep.allreduce.1MiB.median\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# better: lower\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# parameters: {\"last\":7}\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("run_id,date,host,value\n1,2026-01-01T00:00:00Z,h1,0.10000000000000001\n4,"
                     "2026-01-02T00:00:00Z,h2,2\n"),
            std::string::npos)
      << csv;
}

}  // namespace
}  // namespace gridlock::model
