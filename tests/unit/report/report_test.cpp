// Section builders of gridlock report on small results built in the test, the page's escaping and
// structure, and write_report() on files (bad inputs, compare, output == input).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/report/report.hpp"
#include "gridlock/report/sections_json.hpp"

namespace gridlock::report {
namespace {

Json context(const std::string& tool, const std::string& schema, int version = 1) {
  return Json{
      {"tool", tool}, {"schema", schema}, {"schema_version", version}, {"date", "2026-11-26T00:00:00Z"}};
}

Json canary(const std::string& key, double avg, double tail) {
  return Json{{"key", key},
              {"name", key + " name"},
              {"units", "usec"},
              {"better", "lower"},
              {"avg", avg},
              {"min", avg / 2},
              {"p0_1", avg / 2},
              {"p1", avg / 2},
              {"median", avg},
              {"mean", avg},
              {"p99", tail},
              {"p99_9", tail},
              {"max", tail},
              {"tail99", tail},
              {"congestor_throughput",
               Json::array({Json{{"type", "a2a"}, {"ranks", 2}, {"mib_per_s_total", 100.0}}})}};
}

Json load_result() {
  Json doc;
  doc["context"] = context("gridlock-bench", "gridlock.bench");
  doc["context"]["mode"] = "load";
  doc["phases"]["isolated"] =
      Json{{"congestors", Json::array()}, {"canaries", Json::array({canary("lat", 1.0, 2.0)})}};
  doc["phases"]["loaded"] =
      Json{{"congestors", Json::array({"a2a"})}, {"canaries", Json::array({canary("lat", 3.0, 8.0)})}};
  doc["congestion_impact"] = Json::array(
      {Json{{"phase", "loaded"}, {"key", "lat"}, {"name", "lat name"}, {"mean", 3.0}, {"tail99", 4.0}}});
  return doc;
}

const Json* chart_titled(const Section& s, const std::string& prefix) {
  for (const Json& c : s.data["charts"]) {
    if (c["title"].get<std::string>().rfind(prefix, 0) == 0) {
      return &c;
    }
  }
  return nullptr;
}

TEST(ReportSections, BenchLoadHasImpactBarsTableAndThroughput) {
  const Section s = build_section("load.json", load_result());
  EXPECT_EQ(s.kind, "gridlock.bench/load");
  EXPECT_EQ(s.context["tool"], "gridlock-bench");
  const Json* impact = chart_titled(s, "Congestion Impact");
  ASSERT_NE(impact, nullptr);
  EXPECT_EQ((*impact)["labels"], Json::array({"lat name"}));
  EXPECT_EQ((*impact)["series"][0]["data"][0], 3.0);  // mean
  EXPECT_EQ((*impact)["series"][1]["data"][0], 4.0);  // 99% tail
  EXPECT_EQ(s.data["table"][0]["loaded"]["tail99"], 8.0);
  EXPECT_NE(chart_titled(s, "Congestor throughput"), nullptr);
  EXPECT_NE(s.body_html.find("Congestion Impact"), std::string::npos);
  // Without --csv-dir the per-canary chart is the percentiles, and a note says how to get histograms.
  const Json* percentiles = chart_titled(s, "lat name: percentiles");
  ASSERT_NE(percentiles, nullptr);
  EXPECT_EQ((*percentiles)["series"].size(), 2U);
  EXPECT_FALSE(s.notes.empty());
}

TEST(ReportSections, NetworkModeHasNoImpactChart) {
  Json doc = load_result();
  doc["context"]["mode"] = "network";
  doc["phases"].erase("loaded");
  doc["congestion_impact"] = Json::array();
  const Section s = build_section("network.json", doc);
  EXPECT_EQ(s.kind, "gridlock.bench/network");
  EXPECT_EQ(chart_titled(s, "Congestion Impact"), nullptr);
}

TEST(ReportSections, BenchNoiseFlagsOutlierNodes) {
  Json doc;
  doc["context"] = context("gridlock-bench noise", "gridlock.bench.noise");
  doc["outlier_threshold"] = 0.002;
  doc["nodes"] = Json::array(
      {Json{{"name", "a"}, {"noise_fraction", 0.001}, {"max_noise_fraction", 0.001}, {"outlier", false}},
       Json{{"name", "b"}, {"noise_fraction", 0.01}, {"max_noise_fraction", 0.02}, {"outlier", true}}});
  const Section s = build_section("noise.json", doc);
  EXPECT_EQ(s.data["outlier_nodes"], Json::array({"b"}));
  const Json& chart = s.data["charts"][0];
  EXPECT_DOUBLE_EQ(chart["series"][0]["data"][1].get<double>(), 1.0);  // percent
  EXPECT_DOUBLE_EQ(chart["reference"].get<double>(), 0.2);
}

TEST(ReportSections, NoiseTraceThinsToLongestDetourPerSlot) {
  std::string trace =
      "# gridlock-noise-trace v1\n# tool: gridlock noise measure\n# schema: gridlock.noise.measure\n"
      "# schema_version: 1\n# duration_ns: 10000000\nstart_ns,length_ns\n";
  // 5000 detours of 10 ns, and one of 1500 ns that must survive the thinning.
  for (int i = 0; i < 5000; ++i) {
    trace += std::to_string(i * 2000) + "," + (i == 1234 ? "1500" : "10") + "\n";
  }
  const LoadedInput in = parse_input("t.trace", trace);
  ASSERT_TRUE(in.error.empty()) << in.error;
  const Section s = build_section(in.source, *in.document);
  EXPECT_EQ(s.kind, "gridlock.noise.trace");
  const Json& points = s.data["charts"][0]["series"][0]["data"];
  EXPECT_LE(points.size(), 2000U);
  double tallest = 0;
  for (const Json& p : points) {
    tallest = std::max(tallest, p["y"].get<double>());
  }
  EXPECT_DOUBLE_EQ(tallest, 1.5);  // us
  // The histogram counts every detour.
  double counted = 0;
  for (const Json& c : s.data["charts"][1]["series"][0]["data"]) {
    counted += c.get<double>();
  }
  EXPECT_EQ(counted, 5000.0);
}

TEST(ReportSections, ReplicasBoxPlotWhiskersStopAtTukeyFences) {
  Json doc;
  doc["context"] = context("gridlock sim", "gridlock.sim.replicas", 3);
  doc["status"] = "complete";
  // q1 = 10, q3 = 20 (IQR 10): fences at -5 and 35; 100 is an outlier, 30 the last inside.
  doc["scales"] = Json::array({Json{{"ranks", 64},
                                    {"replicas", 5},
                                    {"noiseless_ps", 5e6},
                                    {"min_ps", 10e6},
                                    {"q1_ps", 10e6},
                                    {"median_ps", 15e6},
                                    {"q3_ps", 20e6},
                                    {"max_ps", 100e6},
                                    {"mean_ps", 35e6},
                                    {"outliers_ps", {100e6}},
                                    {"slowdown", {{"median", 2.0}, {"mean", 6.0}, {"max", 19.0}}},
                                    {"completion_ps", {10e6, 15e6, 20e6, 30e6, 100e6}}}});
  const Section s = build_section("replicas.json", doc);
  const Json& box = s.data["charts"][0];
  EXPECT_EQ(box["type"], "box");
  EXPECT_EQ(box["series"][0]["data"][0], Json::array({10.0, 30.0}));  // whiskers, us
  EXPECT_EQ(box["series"][1]["data"][0], Json::array({10.0, 20.0}));  // q1-q3
  EXPECT_EQ(box["series"][4]["data"][0]["y"], 100.0);                 // outlier
  EXPECT_EQ(s.data["charts"][1]["series"][0]["data"][0], 200.0);      // median slowdown, %
}

TEST(ReportSections, UnknownSchemaIsListedWithANote) {
  Json doc;
  doc["context"] = context("gridlock something", "gridlock.future.kind");
  doc["numbers"] = Json::array({1, 2, 3});
  const Section s = build_section("x.json", doc);
  EXPECT_EQ(s.kind, "gridlock.future.kind");
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("no charts for schema 'gridlock.future.kind'"), std::string::npos);
  EXPECT_NE(s.body_html.find("numbers"), std::string::npos);
}

Json predict_row(const std::string& method, double alone, const Json& congested, const Json& recovered,
                 const Json& paper) {
  const bool starved = congested.is_null();
  return Json{{"method", method},
              {"alone_us", alone},
              {"congested_us", congested},
              {"starved", starved},
              {"slowdown", starved ? Json(nullptr) : Json(congested.get<double>() / alone)},
              {"recovered_pct", recovered},
              {"paper_recovered_pct", paper}};
}

Json predict_mapping_result() {
  Json doc;
  doc["context"] = context("gridlock predict mapping", "gridlock.predict.mapping", 2);
  doc["context"]["network"] = "torus:2x2x8,npr=2";
  doc["context"]["net_model"] = "packet";
  doc["context"]["tasks"] = "stencil3d:4x4x4";
  doc["seeds"] = 1;
  doc["congestors"] = "3 pairs";
  doc["notes"] = Json::array({"scotch:bw starved"});
  doc["rows"] = Json::array({predict_row("identity", 100.0, Json(150.0), Json(0.0), Json(nullptr)),
                             predict_row("scotch:hops", 90.0, Json(120.0), Json(60.0), Json(14.2)),
                             predict_row("scotch:bw", 95.0, Json(nullptr), Json(nullptr), Json(43.2))});
  return doc;
}

TEST(ReportSections, PredictMappingRecoveredBesideThePaperAndStarvedRowsNamed) {
  const Section s = build_section("predict.json", predict_mapping_result());
  EXPECT_EQ(s.kind, "gridlock.predict.mapping");
  EXPECT_FALSE(s.failed);
  EXPECT_NE(s.title.find("torus:2x2x8 (packet model)"), std::string::npos) << s.title;
  const Json* recovered = chart_titled(s, "Time recovered per mapping");
  ASSERT_NE(recovered, nullptr);
  ASSERT_EQ((*recovered)["series"].size(), 2U);
  EXPECT_EQ((*recovered)["series"][0]["data"], Json::array({0.0, 60.0, nullptr}));
  EXPECT_EQ((*recovered)["series"][1]["data"], Json::array({nullptr, 14.2, 43.2}));
  EXPECT_EQ((*recovered)["labels"][2], "scotch:bw (starved)");
  const Json* times = chart_titled(s, "Completion time alone");
  ASSERT_NE(times, nullptr);
  // A starved mapping's congested bar is missing, not zero; its time alone is still drawn.
  EXPECT_EQ((*times)["series"][0]["data"], Json::array({100.0, 90.0, 95.0}));
  EXPECT_EQ((*times)["series"][1]["data"], Json::array({150.0, 120.0, nullptr}));
  EXPECT_NE(s.body_html.find("<td>starved</td>"), std::string::npos);
  bool starved_note = false;
  for (const std::string& n : s.notes) {
    starved_note = starved_note || n.find("Starved") != std::string::npos;
  }
  EXPECT_TRUE(starved_note);
}

TEST(ReportSections, PredictMappingWithoutRowsSaysSo) {
  Json doc = predict_mapping_result();
  doc["rows"] = Json::array();
  const Section s = build_section("predict.json", doc);
  EXPECT_TRUE(s.data["charts"].empty());
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("no rows"), std::string::npos);
}

Json predict_traffic_result() {
  Json doc;
  doc["context"] = context("gridlock predict traffic", "gridlock.predict.traffic", 2);
  doc["context"]["network"] = "dragonfly:g=5,a=2,p=2,h=2";
  doc["context"]["net_model"] = "packet";
  doc["context"]["pattern"] = "worst-case";
  doc["context"]["packet"] = Json{{"routing", "ugal"}};
  doc["zero_load"] = Json{{"latency_ns", 225.6}, {"hops_avg", 2.0}};
  doc["points"] = Json::array({Json{{"offered", 0.1},
                                    {"accepted", 0.1},
                                    {"latency_avg_ns", 235.0},
                                    {"latency_p99_ns", 289.0},
                                    {"hops_avg", 2.0},
                                    {"converged", true},
                                    {"saturated", false}},
                               Json{{"offered", 0.5},
                                    {"accepted", 0.25},
                                    {"latency_avg_ns", 9000.0},
                                    {"latency_p99_ns", nullptr},
                                    {"hops_avg", 2.0},
                                    {"converged", false},
                                    {"saturated", true}}});
  doc["saturation"] = Json{{"throughput", 0.25}, {"offered", 0.5}, {"first_saturated_load", 0.5}};
  return doc;
}

TEST(ReportSections, OldSchemaNamesAreReadAsTheRenamedFormats) {
  Json doc = predict_mapping_result();
  doc["context"] = context("gridlock predict mapping", "gridlock.predict_mapping", 1);
  const Section mapping = build_section("old.json", doc);
  EXPECT_EQ(mapping.kind, "gridlock.predict.mapping");
  EXPECT_NE(chart_titled(mapping, "Time recovered per mapping"), nullptr);
  doc = predict_traffic_result();
  doc["context"] = context("gridlock predict traffic", "gridlock.predict_traffic", 1);
  EXPECT_EQ(build_section("old.json", doc).kind, "gridlock.predict.traffic");
  // An old name is compared with the new one as the same format.
  EXPECT_EQ(compare_section("old.json", doc, "new.json", predict_traffic_result()).kind, "compare");
}

TEST(ReportSections, PredictTrafficDrawsLatencyAndAcceptedAgainstOffered) {
  const Section s = build_section("traffic.json", predict_traffic_result());
  EXPECT_EQ(s.kind, "gridlock.predict.traffic");
  EXPECT_FALSE(s.failed);
  EXPECT_NE(s.title.find("worst-case on dragonfly:g=5 (packet model, ugal routing)"), std::string::npos)
      << s.title;
  const Json* latency = chart_titled(s, "Packet latency against offered load");
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ((*latency)["type"], "line");
  EXPECT_EQ((*latency)["labels"], Json::array({"0.1", "0.5"}));
  EXPECT_EQ((*latency)["series"][0]["data"], Json::array({235.0, 9000.0}));
  EXPECT_EQ((*latency)["series"][1]["data"], Json::array({289.0, nullptr}));  // missing, not zero
  EXPECT_EQ((*latency)["reference"], 225.6);
  const Json* accepted = chart_titled(s, "Accepted against offered");
  ASSERT_NE(accepted, nullptr);
  EXPECT_EQ((*accepted)["series"][0]["data"], Json::array({0.1, 0.25}));
  EXPECT_EQ((*accepted)["series"][1]["data"], Json::array({0.1, 0.5}));
  EXPECT_NE(s.body_html.find("<td>saturated</td>"), std::string::npos);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("Saturation throughput 0.25"), std::string::npos) << s.notes[0];
}

TEST(ReportSections, PredictTrafficWithoutPointsSaysSo) {
  Json doc = predict_traffic_result();
  doc["points"] = Json::array();
  const Section s = build_section("traffic.json", doc);
  EXPECT_TRUE(s.data["charts"].empty());
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("no points"), std::string::npos);
}

TEST(ReportSections, SimNetworkHasUtilisationTopLinksAndSlowdown) {
  Json doc;
  doc["context"] = context("gridlock sim", "gridlock.sim.result");
  doc["result"] = Json{{"complete", true}, {"max_finish_ps", 2000000}};
  doc["network"]["description"] = "flow model on torus";
  doc["network"]["report"] = Json{
      {"makespan_ps", 2000000},
      {"links", Json{{"total", 4}, {"busy", 2}, {"idle", 2}}},
      {"utilisation", Json{{"mean_busy", 0.5},
                           {"p99_busy", 0.75},
                           {"max", 0.75},
                           {"histogram", {0, 0, 1, 0, 0, 0, 0, 1, 0, 0}}}},
      {"top_links",
       Json::array({Json{{"link", 3}, {"name", "a -> b"}, {"kind", "network"}, {"utilisation", 0.75}},
                    Json{{"link", 1}, {"name", "c -> d"}, {"kind", "injection"}, {"utilisation", 0.25}}})},
      {"slowdown", Json{{"count", 2}, {"mean", 1.5}, {"p50", 1.25}, {"p99", 2.0}, {"max", 2.0}}}};
  const Section s = build_section("sim.json", doc);
  ASSERT_NE(chart_titled(s, "Link utilisation"), nullptr);
  const Json* top = chart_titled(s, "Utilisation of the busiest links");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ((*top)["labels"][0], "a -> b (network)");
  EXPECT_EQ((*top)["series"][0]["data"], Json::array({75.0, 25.0}));
  const Json* slow = chart_titled(s, "Message slowdown");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ((*slow)["series"][0]["data"], Json::array({1.5, 1.25, 2.0, 2.0}));
  EXPECT_EQ((*slow)["reference"], 1.0);
  EXPECT_NE(s.body_html.find("Network summary"), std::string::npos);
}

// Every value of `doc` below its context replaced by `replacement` (a string, an object, ...).
Json mangled(const Json& value, const Json& replacement, bool top = true) {
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& [key, child] : value.items()) {
      out[key] = top && key == "context" ? child : mangled(child, replacement, false);
    }
    return out;
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& child : value) {
      out.push_back(mangled(child, replacement, false));
    }
    return out;
  }
  return replacement;
}

TEST(ReportSections, WrongTypesNeverThrow) {
  Json replicas;
  replicas["context"] = context("gridlock sim", "gridlock.sim.replicas", 3);
  replicas["scales"] = Json::array({Json{{"ranks", 4}, {"q1_ps", 1.0}, {"completion_ps", {1.0, 2.0}}}});
  Json trace;
  trace["context"] = context("gridlock noise measure", "gridlock.noise.trace");
  trace["detours"] = Json::array({Json::array({1, 2})});
  Json fit;
  fit["context"] = context("gridlock model fit", "gridlock.model.fit");
  fit["series"] =
      Json::array({Json{{"sizes_bytes", {1, 2}},
                        {"median_us", {1.0, 2.0}},
                        {"segments", Json::array({Json{{"from_bytes", 0}}, Json{{"to_bytes", 1}}})}}});
  for (const Json& doc : {load_result(), replicas, trace, fit, predict_mapping_result()}) {
    for (const Json& replacement : {Json("x"), Json::object(), Json::array({1}), Json(nullptr), Json(-1.5)}) {
      Section s;
      EXPECT_NO_THROW(s = build_section("m.json", mangled(doc, replacement))) << doc["context"]["schema"];
      EXPECT_TRUE(s.data["charts"].is_array());
    }
  }
}

TEST(ReportInputs, BadInputsAreMessagesNamingTheFile) {
  EXPECT_NE(parse_input("e.json", "  \n").error.find("e.json: the file is empty"), std::string::npos);
  EXPECT_NE(parse_input("t.json", "{\"context\": {\"schema\"").error.find("t.json: not JSON or truncated"),
            std::string::npos);
  EXPECT_NE(parse_input("n.json", "[1, 2]").error.find("n.json: not a gridlock result"), std::string::npos);
  EXPECT_NE(parse_input("v.json", R"({"context": {"schema": "gridlock.bench", "schema_version": 99}})")
                .error.find("v.json: gridlock.bench version 99 is newer"),
            std::string::npos);
  // An old name was written up to its last version under that name only.
  EXPECT_NE(
      parse_input("o.json", R"({"context": {"schema": "gridlock.predict_mapping", "schema_version": 2}})")
          .error.find("o.json: gridlock.predict_mapping version 2 is newer than this gridlock understands "
                      "(up to version 1)"),
      std::string::npos);
  EXPECT_EQ(
      parse_input("o.json", R"({"context": {"schema": "gridlock.predict_mapping", "schema_version": 1}})")
          .error,
      "");
  EXPECT_NE(parse_input("c.csv", "# tool: x\na,b\n1,2\n").error.find("c.csv: not a gridlock result"),
            std::string::npos);
  const LoadedInput csv =
      parse_input("trend.csv", "# schema: gridlock.history.trend\n# metric: m\nrun_id,date,value\n1,d,2.5\n");
  ASSERT_TRUE(csv.error.empty()) << csv.error;
  const Section s = build_section("trend.csv", *csv.document);
  EXPECT_EQ(s.data["charts"][0]["series"][0]["data"], Json::array({2.5}));
}

// The trend CSV as `gridlock history trend --csv` writes it (CsvWriter): a host name with a comma
// and quotes is a quoted cell; it was split at its comma, so the value column held text (issue 36).
TEST(ReportInputs, TrendCsvWithQuotedCellsKeepsItsColumns) {
  CsvWriter csv(Json{{"schema", "gridlock.history.trend"}, {"metric", "load.loaded.lat.p99"}},
                {"run_id", "date", "host", "value"});
  csv.add_row({"1", "2026-11-26T00:00:00Z", "nid001,rack \"A\"", "2.5"});
  csv.add_row({"2", "2026-11-27T00:00:00Z", "line\nbreak", "3.5"});
  const LoadedInput in = parse_input("trend.csv", csv.content());
  ASSERT_TRUE(in.error.empty()) << in.error;
  const Json& rows = (*in.document)["rows"];
  ASSERT_EQ(rows.size(), 2U);
  ASSERT_EQ(rows[0].size(), 4U);
  EXPECT_EQ(rows[0][2], "nid001,rack \"A\"");
  EXPECT_EQ(rows[1][2], "line\nbreak");
  const Section s = build_section("trend.csv", *in.document);
  EXPECT_EQ(s.data["charts"][0]["series"][0]["data"], Json::array({2.5, 3.5}));
  // A quoted cell that never closes is a truncated file, not a row.
  EXPECT_NE(parse_input("t.csv", "# schema: gridlock.history.trend\nrun_id,host\n1,\"nid0")
                .error.find("t.csv: a quoted cell is not closed"),
            std::string::npos);
}

TEST(ReportInputs, HistogramCsvIsChartedNotMistakenForItsJson) {
  // gridlock noise measure --histogram carries the measurement's schema in its context lines.
  const LoadedInput csv = parse_input(
      "h.csv",
      "# tool: gridlock noise measure\n# schema: gridlock.noise.measure\nlower_ns,upper_ns,count\n"
      "100,101,5\n200,202,1\n");
  ASSERT_TRUE(csv.error.empty()) << csv.error;
  const Section s = build_section("h.csv", *csv.document);
  ASSERT_EQ(s.data["charts"].size(), 1U);
  EXPECT_EQ(s.data["charts"][0]["type"], "histogram");
  EXPECT_EQ(s.data["charts"][0]["series"][0]["data"].size(), 2U);
  EXPECT_EQ(s.data["charts"][0]["series"][0]["data"][0]["y"], 5);
}

TEST(ReportCompare, SameKindGivesRatiosDifferentKindsThrow) {
  Json b = load_result();
  b["phases"]["loaded"]["canaries"][0]["avg"] = 6.0;
  const Section s = compare_section("a.json", load_result(), "b.json", b);
  bool found = false;
  for (const Json& m : s.data["metrics"]) {
    if (m["metric"] == "phases.loaded.canaries[lat].avg") {
      found = true;
      EXPECT_DOUBLE_EQ(m["ratio"].get<double>(), 2.0);
    }
  }
  EXPECT_TRUE(found);
  Json other;
  other["context"] = context("gridlock sim", "gridlock.sim.replicas", 3);
  EXPECT_THROW((void)compare_section("a.json", load_result(), "r.json", other), InputError);
}

TEST(ReportPage, EmbeddedJsonCannotCloseItsScript) {
  Json doc;
  doc["context"] = context("</script><script>alert(1)</script>", "gridlock.unknown");
  Section s = build_section("<evil>.json", doc);
  s.data["charts"] = Json::array();
  s.data["x"] = "</script>&";
  const std::string page = render_page({s}, PageOptions{"t", "/* chart.js */", Json::object()});
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script\\u003e\\u0026"), std::string::npos);
  EXPECT_NE(page.find("&lt;evil&gt;.json"), std::string::npos);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
}

class WriteReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gridlock_report_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "chart.min.js") << "window.Chart = function () {};";
    std::ofstream(dir_ / "load.json") << load_result().dump();
    std::ofstream(dir_ / "empty.json");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  ReportOptions options(std::vector<std::filesystem::path> inputs) {
    ReportOptions o;
    o.inputs = std::move(inputs);
    o.output = dir_ / "report.html";
    o.assets_dir = dir_;
    return o;
  }
  std::filesystem::path dir_;
};

TEST_F(WriteReportTest, BadInputIsAFailureAndTheRestIsWritten) {
  const ReportOutcome outcome =
      write_report(options({dir_ / "load.json", dir_ / "empty.json", dir_ / "missing.json"}));
  EXPECT_EQ(outcome.sections, 3U);
  ASSERT_EQ(outcome.failures.size(), 2U);
  EXPECT_NE(outcome.failures[0].find("empty.json"), std::string::npos);
  EXPECT_NE(outcome.failures[1].find("missing.json"), std::string::npos);
  std::ifstream in(dir_ / "report.html");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("window.Chart = function"), std::string::npos);
  EXPECT_NE(page.find("the file is empty"), std::string::npos);
}

// A page of errors only replaced a good page of an earlier run (issue 36).
TEST_F(WriteReportTest, NoReadableInputLeavesTheOutputUntouched) {
  { std::ofstream(dir_ / "report.html") << "a good page"; }
  try {
    (void)write_report(options({dir_ / "missing.json", dir_ / "empty.json"}));
    FAIL() << "a report without one readable input was written";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no input could be read"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("empty.json"), std::string::npos) << e.what();
  }
  std::ifstream in(dir_ / "report.html");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(page, "a good page");
  ReportOptions o = options({dir_ / "missing.json", dir_ / "empty.json"});
  o.compare = true;
  EXPECT_THROW((void)write_report(o), InputError);
}

TEST_F(WriteReportTest, RefusesOutputThatIsAnInputAndMissingChartJs) {
  ReportOptions o = options({dir_ / "load.json"});
  o.output = dir_ / "load.json";
  EXPECT_THROW(write_report(o), InputError);
  o = options({dir_ / "load.json"});
  o.assets_dir = dir_ / "nowhere";
  EXPECT_THROW(write_report(o), IoError);
  o = options({dir_ / "load.json"});
  o.compare = true;
  EXPECT_THROW(write_report(o), InputError);
}

}  // namespace
}  // namespace gridlock::report
