#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "gridlock/core/error.hpp"
#include "gridlock/oracle/oracle.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/oracle/status_json.hpp"
#include "gridlock/oracle/tables.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::oracle {
namespace {

std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::path(::testing::TempDir()) / ("gridlock_oracle_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

topo::LinkId torus_link(const topo::Torus3D& t, std::array<int, 3> from, const char* dir) {
  return *t.link_out(t.router_at(from[0], from[1], from[2]), dir);
}

TEST(CounterTracker, DeltasWrapsResetsAndOrder) {
  CounterTracker c(32);
  EXPECT_EQ(c.update(1, 100).event, CounterTracker::Event::kFirst);
  auto d = c.update(2, 300);
  EXPECT_EQ(d.event, CounterTracker::Event::kDelta);
  EXPECT_EQ(d.delta, 200);
  EXPECT_EQ(d.interval_s, 1);
  EXPECT_EQ(c.update(2, 400).event, CounterTracker::Event::kOutOfOrder);
  EXPECT_EQ(c.update(3, 4294967000U).event, CounterTracker::Event::kDelta);
  d = c.update(4, 100);
  EXPECT_EQ(d.event, CounterTracker::Event::kWrap);
  EXPECT_EQ(d.delta, 4294967296.0 - 4294967000.0 + 100);
  EXPECT_EQ(c.update(5, 50).event, CounterTracker::Event::kReset);
  EXPECT_EQ(c.update(6, 60).delta, 10);
}

TEST(MetricStore, WindowedMetrics) {
  const auto t = topo::make_topology("torus:1x1x4,npr=1,cap=1000");
  MetricStore store(*t);
  store.add_interval(0, 1, 1, 500, 0.25);
  store.add_interval(0, 2, 1, 1000, 0.75);
  auto snap = store.snapshot(0);
  EXPECT_DOUBLE_EQ(snap.links[0].used_bw_pct, 100);
  EXPECT_DOUBLE_EQ(snap.links[0].stall_pct, 75);
  snap = store.snapshot(10);
  EXPECT_DOUBLE_EQ(snap.links[0].bytes_per_s, 750);
  EXPECT_DOUBLE_EQ(snap.links[0].used_bw_pct, 75);
  EXPECT_DOUBLE_EQ(snap.links[0].stall_pct, 50);
  EXPECT_FALSE(snap.links[1].has_data);
  store.add_interval(0, 1.5, 1, 1, 0);  // older than the newest: rejected
  store.add_interval(99999, 3, 1, 1, 0);
  store.add_interval(0, 3, -1, 1, 0);
  EXPECT_EQ(store.stats().rejected, 3U);
  EXPECT_EQ(store.stats().intervals, 2U);
}

// `gridlock oracle query metrics|matrix` printed bare numbers with no header: each numeric column
// now names its unit.
TEST(OracleTables, EveryNumericColumnNamesItsUnit) {
  EXPECT_EQ(metrics_table({{"a", "b"}, {"c", "d"}}, Metric::kBandwidth, Reducer::kMax, {64, 0.5}),
            "| src | dst | reducer | bw (% used) |\n| --- | --- | --- | --- |\n"
            "| a | b | max | 64 |\n| c | d | max | 0.5 |\n");
  EXPECT_EQ(metrics_table({{"a", "b"}}, Metric::kHops, Reducer::kMax, {5}).substr(0, 35),
            "| src | dst | reducer | hops (links");
  EXPECT_EQ(matrix_table({"a", "b"}, Metric::kStalls, Reducer::kSum, {0, 1, 2, 3}),
            "| stalls sum (% stalled) | a | b |\n| --- | --- | --- |\n| a | 0 | 1 |\n| b | 2 | 3 |\n");
  EXPECT_THROW((void)matrix_table({"a"}, Metric::kHops, Reducer::kMax, {1, 2}), std::invalid_argument);
}

TEST(MetricStore, RetentionMustBePositive) {
  const auto t = topo::make_topology("torus:1x1x4,npr=1");
  for (const double bad : {0.0, -5.0, std::nan("")}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(MetricStore(*t, bad), InputError);
  }
}

TEST(SimulatedLoad, PaperPairsLoadThePapersLinks) {
  const topo::Torus3D t(topo::TorusOptions{});
  SimulatedLoad sim(t, paper_congestion_flows(t, 4e9));
  MetricStore store(t);
  sim.poll(store, 1.0);
  const auto& demand = sim.demand_bytes_per_s();
  std::vector<topo::LinkId> ids(t.network_link_count());
  for (topo::LinkId i = 0; i < ids.size(); ++i) {
    ids[i] = i;
  }
  std::stable_sort(ids.begin(), ids.end(), [&](auto a, auto b) { return demand[a] > demand[b]; });
  // By offered bytes/s (the service ranks by %: Oracle.TopLinksRankByUsedBandwidthPercentThenBytes),
  // the three most loaded links join (1,1,7)-(1,1,6), (1,1,6)-(1,1,5) and (1,1,5)-(1,1,4).
  const std::set<topo::LinkId> top(ids.begin(), ids.begin() + 3);
  const std::set<topo::LinkId> paper{torus_link(t, {1, 1, 7}, "Z-"), torus_link(t, {1, 1, 6}, "Z-"),
                                     torus_link(t, {1, 1, 5}, "Z-")};
  EXPECT_EQ(top, paper);
  EXPECT_GT(demand[ids[2]], demand[ids[3]]);
  // The hottest: three flows into (1,1,5) on its Z+ port.
  EXPECT_EQ(ids[0], torus_link(t, {1, 1, 6}, "Z-"));
  EXPECT_EQ(t.links()[ids[0]].in_port, "Z+");
  EXPECT_DOUBLE_EQ(demand[ids[0]], 12e9);
  const Oracle oracle(t, store);
  const auto snap = oracle.snapshot(0);
  EXPECT_DOUBLE_EQ(snap->links[ids[0]].used_bw_pct, 100);
  EXPECT_NEAR(snap->links[ids[0]].stall_pct, 100 * (1 - 9.375 / 12), 1e-9);
  // A Y link carries one flow: 4 of 4.6875 GB/s, no stall.
  const auto y = torus_link(t, {1, 0, 6}, "Y+");
  EXPECT_NEAR(snap->links[y].used_bw_pct, 100 * 4 / 4.6875, 1e-9);
  EXPECT_EQ(snap->links[y].stall_pct, 0);
}

// What `gridlock oracle query links --top 3` answers against `gridlock oracle serve torus:2x2x8`:
// the links ranked by the used bandwidth % the service reports. The paper's three links come first:
// (1,1,6)->(1,1,5) with three flows (64%), then (1,1,5)->(1,1,4) and (1,1,7)->(1,1,6) with two
// flows each (42.7%), tied in percentage with four Y links that carry one flow at half the
// capacity and ranked before them because they carry twice the bytes.
TEST(Oracle, TopLinksRankByUsedBandwidthPercentThenBytes) {
  const topo::Torus3D t(topo::TorusOptions{});
  SimulatedLoad sim(t, paper_congestion_flows(t, 2e9));  // the service's default --sim-rate
  MetricStore store(t);
  sim.poll(store, 1.0);
  const Oracle oracle(t, store);
  const Json top = oracle.top_links(7, 0);
  ASSERT_EQ(top.size(), 7U);
  EXPECT_EQ(top[0]["name"], "(1,1,6) Z- -> (1,1,5)");
  EXPECT_EQ(top[0]["id"], torus_link(t, {1, 1, 6}, "Z-"));
  EXPECT_NEAR(top[0]["used_bw_pct"].get<double>(), 64, 1e-9);
  // Ties in percentage and bytes are broken by link id: the order is the same on every run.
  EXPECT_EQ(top[1]["name"], "(1,1,5) Z- -> (1,1,4)");
  EXPECT_EQ(top[2]["name"], "(1,1,7) Z- -> (1,1,6)");
  for (std::size_t i = 1; i < 7; ++i) {
    SCOPED_TRACE(top[i].dump());
    EXPECT_NEAR(top[i]["used_bw_pct"].get<double>(), 100 * 2 / 4.6875, 1e-9);
    EXPECT_EQ(top[i]["bytes_per_s"].get<double>(), i < 3 ? 4e9 : 2e9);
    EXPECT_EQ(top[i]["direction"].get<std::string>()[0], i < 3 ? 'Z' : 'Y');
  }
}

TEST(Oracle, RouteMetricsAndReducers) {
  const topo::Torus3D t(topo::TorusOptions{});
  SimulatedLoad sim(t, paper_congestion_flows(t, 2e9));
  MetricStore store(t);
  sim.poll(store, 1.0);
  const Oracle oracle(t, store);
  const auto a = t.node_id("nid00012");
  const auto b = t.node_id("nid00038");
  const auto c = t.node_id("nid00013");  // same router as nid00012
  MetricQuery q;
  q.metric = Metric::kHops;
  EXPECT_EQ(oracle.route_metrics({{a, b}, {a, c}}, q), (std::vector<double>{5, 0}));
  q.metric = Metric::kBandwidth;
  q.reducer = Reducer::kMax;
  const auto max = oracle.route_metrics({{a, b}, {a, c}}, q);
  EXPECT_NEAR(max[0], 100 * 6 / 9.375, 1e-9);  // (1,1,6)->(1,1,5): three 2 GB/s flows
  EXPECT_EQ(max[1], 0);
  q.reducer = Reducer::kMin;
  EXPECT_NEAR(oracle.route_metrics({{a, b}}, q)[0], 100 * 2 / 9.375, 1e-9);
  q.reducer = Reducer::kSum;
  EXPECT_GT(oracle.route_metrics({{a, b}}, q)[0], max[0]);
  q.reducer = Reducer::kMax;
  q.endpoints = true;  // nid00012's injection link carries its 2 GB/s flow
  EXPECT_NEAR(oracle.route_metrics({{a, c}}, q)[0], 100 * 2 / 9.375, 1e-9);
  q.endpoints = false;
  q.undirected = true;
  const auto matrix = oracle.metric_matrix({a, b, c}, q);
  EXPECT_EQ(matrix[1], matrix[3]);
  EXPECT_EQ(matrix[0], 0);
  EXPECT_THROW((void)parse_metric("latency"), InputError);
  EXPECT_THROW((void)parse_reducer("avg"), InputError);
}

TEST(TrafficMatrix, ReadsFlowsAndReportsFileLine) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("matrix");
  std::ofstream(dir / "ok.txt") << "# src dst rate\nnid00016 nid00040 4GB/s bidir\n12, 38, 1e9\n";
  const auto flows = read_traffic_matrix(t, dir / "ok.txt");
  ASSERT_EQ(flows.size(), 3U);
  EXPECT_EQ(flows[1].src, t.node_id("nid00040"));
  EXPECT_EQ(flows[2].bytes_per_s, 1e9);
  std::ofstream(dir / "bad.txt") << "nid00016 nid00040 4GB/s\nnid00016 nid99999 1GB/s\n";
  try {
    (void)read_traffic_matrix(t, dir / "bad.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2"), std::string::npos) << e.what();
  }
}

// Regression: a matrix without flows was read as zero load on every link, like an idle network.
TEST(TrafficMatrix, FileWithoutFlowsIsRefused) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("matrix_empty");
  std::ofstream(dir / "empty.txt").flush();
  std::ofstream(dir / "comments.txt") << "# src dst rate\n\n   \n# nid00016 nid00040 4GB/s\n";
  for (const char* name : {"empty.txt", "comments.txt"}) {
    try {
      (void)read_traffic_matrix(t, dir / name);
      FAIL() << name << " accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(fmt::format("traffic matrix '{}' has no flows", (dir / name).string())),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("one 'SRC DST RATE [bidir]' line per flow, e.g. 'nid00016 nid00040 4GB/s bidir'"),
                std::string::npos)
          << what;
    }
  }
}

// Gemini derived columns, as LDMS store_csv writes them (percent x 1e6).
TEST(LdmsCsv, GeminiPercentColumnsWithInterleavedProducers) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("gemini");
  const auto file = dir / "gemini.csv";
  std::ofstream(file) << "#Time,Time_usec,ProducerName,component_id,job_id,nettopo_mesh_coord_X,"
                         "X-_SAMPLE_GEMINI_LINK_USED_BW (% x1e6),Y+_SAMPLE_GEMINI_LINK_CREDIT_STALL (% x1e6),"
                         "Z+_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)\n"
                         "100.0,0,nid00050,50,0,1,13000000,0,61000000\n"
                         "100.0,0,nid00012,12,0,0,0,68000000,0\n"
                         "102.0,0,nid00050,50,0,1,15000000,0,59000000\n"
                         "102.0,0,nid00012,12,0,0,0,66000000,0\n";
  MetricStore store(t);
  LdmsCsvSource source(t, {dir});
  source.poll(store, 0);
  const auto snap = store.snapshot(10);
  // nid00050 at (1,0,6): X- port incoming = the X+ link from (0,0,6) (the paper's first hop).
  const auto x_in = *t.link_in(t.router_at(1, 0, 6), "X-");
  EXPECT_EQ(x_in, torus_link(t, {0, 0, 6}, "X+"));
  // Time-weighted: the first row counts for the default 1 s, the second for 2 s.
  EXPECT_NEAR(snap.links[x_in].used_bw_pct, (13.0 * 1 + 15.0 * 2) / 3, 1e-9);
  const auto z_in = *t.link_in(t.router_at(1, 0, 6), "Z+");
  EXPECT_NEAR(snap.links[z_in].used_bw_pct, (61.0 + 59.0 * 2) / 3, 1e-9);
  // nid00012 at (0,0,6): credit stalls on its outgoing Y+ link.
  EXPECT_NEAR(snap.links[torus_link(t, {0, 0, 6}, "Y+")].stall_pct, (68.0 + 66.0 * 2) / 3, 1e-9);
  const auto status = to_json(source.status());
  EXPECT_EQ(status["rows"], 4);
  EXPECT_EQ(status["malformed_rows"], 0);
  EXPECT_EQ(status["ignored_columns"].size(), 1U);  // nettopo_mesh_coord_X
}

// Gemini raw counters with a counter reset, plus malformed rows and unknown producers.
TEST(LdmsCsv, RawCountersMalformedRowsAndGrowth) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("raw");
  const auto file = dir / "raw.csv";
  {
    std::ofstream out(file);
    out << "#Time,ProducerName,X-_traffic (B),X+_credit_stall (ns),X-_unknown_metric (1)\n"
           "10,nid00050,1000,0,1\n"
           "10.5,nid00050,bad,0,1\n"
           "11,nid00050,937501000\n"
           "11,nidXXXXX,1,1,1\n"
           "11,nid00050,1000000,50000000,1\n"
           "12,nid00050,5000,150000000,1\n"
           "13,nid00050,9375005000,";  // partial line: read later
  }
  MetricStore store(t);
  LdmsCsvSource source(t, {file});
  source.poll(store, 0);
  auto status = to_json(source.status());
  EXPECT_EQ(status["malformed_rows"], 2);  // wrong field count, unknown producer
  EXPECT_EQ(status["malformed_values"], 1);
  EXPECT_EQ(status["counter_resets"], 1);
  EXPECT_EQ(status["unknown_producers"][0], "nidXXXXX");
  const auto x_in = *t.link_in(t.router_at(1, 0, 6), "X-");
  const auto stall_link = torus_link(t, {1, 0, 6}, "X+");
  auto snap = store.snapshot(0);
  EXPECT_NEAR(snap.links[stall_link].stall_pct, 10, 1e-9);  // 0.1 s of 1 s
  // The reset interval was skipped: the newest bytes are those of 10 s .. 11 s.
  EXPECT_NEAR(snap.links[x_in].used_bw_pct, 100 * 999000 / 9.375e9, 1e-9);
  {
    std::ofstream out(file, std::ios::app);
    out << "400000000,1\n";
  }
  source.poll(store, 0);
  snap = store.snapshot(0);
  EXPECT_NEAR(snap.links[x_in].used_bw_pct, 100, 1e-9);  // 9.375e9 bytes in 1 s
  EXPECT_NEAR(snap.links[stall_link].stall_pct, 25, 1e-9);
  // The file shrinks (rotated in place): it is read again from the start without failing.
  std::ofstream(file) << "#Time,ProducerName,X-_traffic (B)\n20,nid00050,1\n";
  source.poll(store, 0);
  status = to_json(source.status());
  EXPECT_EQ(status["truncations"], 1);
}

// InfiniBand sysclassib columns; the header of data file FILE in FILE.HEADER (the plain altheader naming).
TEST(LdmsCsv, InfiniBandColumnsRolloverAndHeaderFile) {
  const auto t = topo::make_topology("fattree:4x4");
  const auto dir = temp_dir("ib");
  std::ofstream(dir / "ib.1000.HEADER") << "#Time,Time_usec,ProducerName,component_id,job_id,ib.port_xmit_"
                                           "data#mlx5_0.1,ib.port_rcv_data#mlx5_0.1,"
                                           "ib.port_xmit_wait#mlx5_0.1\n";
  std::ofstream(dir / "ib.1000") << "1000.0,0,n00003,3,0,0,0,0\n1001.0,0,n00003,3,0,250000000,500000000,0\n";
  MetricStore store(*t);
  LdmsCsvOptions options;
  options.ib_xmit_wait = XmitWaitUnit::parse("1ns");
  LdmsCsvSource source(*t, {dir}, options);
  source.poll(store, 0);
  std::ofstream(dir / "ib.1002")
      << "#Time,Time_usec,ProducerName,component_id,job_id,ib.port_xmit_data#mlx5_0.1,"
         "ib.port_rcv_data#mlx5_0.1,ib.port_xmit_wait#mlx5_0.1\n"
         "1002.0,0,n00003,3,0,500000000,500000000,100000000\n";
  source.poll(store, 0);
  const auto snap = store.snapshot(0);
  const auto inject = t->injection_link(3);
  EXPECT_NEAR(snap.links[inject].bytes_per_s, 1e9, 1e-3);
  EXPECT_NEAR(snap.links[inject].stall_pct, 10, 1e-9);
  EXPECT_NEAR(snap.links[t->ejection_link(3)].bytes_per_s, 0, 1e-9);
  EXPECT_EQ(to_json(source.status())["files"], 2);
  EXPECT_EQ(to_json(source.status())["rows"], 3);
}

// A FIFO given as the source's file, or a link to /dev/zero, was reported as "not found (yet)",
// and a header file of any size was read whole: each is now a clear
// problem in the status (the kind of file, or the limit) and counted in unreadable_files.
TEST(LdmsCsv, FifoDeviceAndOversizedHeaderAreReportedNotRead) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("unsafe");
  const auto fifo = dir / "fifo.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_symlink("/dev/zero", dir / "zero.csv");
  std::ofstream(dir / "big.HEADER") << "#Time,ProducerName," << std::string(std::size_t{17} << 20U, 'x')
                                    << "\n";
  std::ofstream(dir / "big") << "100.0,nid00050,1\n";
  MetricStore store(t);
  LdmsCsvSource source(t, {fifo, dir / "zero.csv", dir / "big"});
  source.poll(store, 0);
  const auto status = to_json(source.status());
  EXPECT_EQ(status["unreadable_files"], 3) << status.dump();
  EXPECT_EQ(status["rows"], 0) << status.dump();
  const std::string problems = status["recent_problems"].dump();
  for (const std::string& expected :
       {"cannot read LDMS CSV file '" + fifo.string() + "': it is a FIFO",
        "cannot read LDMS CSV file '" + (dir / "zero.csv").string() + "': it is a character device",
        "LDMS header file '" + (dir / "big.HEADER").string() +
            "' has 17825812 bytes, more than the limit of 16 MiB"}) {
    EXPECT_NE(problems.find(expected), std::string::npos) << expected << "\n" << problems;
  }
}

// store_csv with roll-over and altheader=1 writes NAME.HEADER.EPOCH (header) and NAME.EPOCH (data),
// plus NAME.KIND.EPOCH with typeheader; without roll-over, NAME.HEADER and NAME. Both namings are
// read in one directory, and no header or kind file is read as data.
TEST(LdmsCsv, RolledOverAltheaderFilesArePairedByEpoch) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("rolled");
  const std::string header =
      "#Time,Time_usec,ProducerName,component_id,job_id,Z+_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)\n";
  std::ofstream(dir / "gemini.HEADER.1700000000") << header;
  std::ofstream(dir / "gemini.KIND.1700000000") << "#timestamp,u32,char[],u64,u64,u64\n";
  std::ofstream(dir / "gemini.1700000000") << "100.0,0,nid00050,50,0,61000000\n";
  std::ofstream(dir / "gemini.HEADER.1700000060") << header;
  std::ofstream(dir / "gemini.1700000060") << "102.0,0,nid00050,50,0,59000000\n";
  std::ofstream(dir / "stall.HEADER")
      << "#Time,Time_usec,ProducerName,Y+_SAMPLE_GEMINI_LINK_CREDIT_STALL (%)\n";
  std::ofstream(dir / "stall") << "102.0,0,nid00012,68\n";
  MetricStore store(t);
  LdmsCsvSource source(t, {dir});
  source.poll(store, 0);
  const auto status = to_json(source.status());
  EXPECT_EQ(status["files"], 3) << status.dump();
  EXPECT_EQ(status["rows"], 3) << status.dump();
  EXPECT_EQ(status["malformed_rows"], 0) << status.dump();
  EXPECT_TRUE(status["recent_problems"].empty()) << status.dump();
  EXPECT_TRUE(status["ignored_columns"].empty()) << status.dump();
  const auto snap = store.snapshot(10);
  const auto z_in = *t.link_in(t.router_at(1, 0, 6), "Z+");
  EXPECT_NEAR(snap.links[z_in].used_bw_pct, (61.0 + 59.0 * 2) / 3, 1e-9);
  EXPECT_NEAR(snap.links[torus_link(t, {0, 0, 6}, "Y+")].stall_pct, 68, 1e-9);
}

// A header file that exists but is still empty (store_csv creates both files at roll-over): the
// data waits for it instead of being counted as rows before a header.
TEST(LdmsCsv, DataWaitsForAnEmptyHeaderFile) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("rolled_wait");
  std::ofstream(dir / "gemini.HEADER.1700000000") << "#Time,ProducerName,Z+_SAMPLE";  // no newline yet
  std::ofstream(dir / "gemini.1700000000") << "100.0,nid00050,61000000\n";
  MetricStore store(t);
  LdmsCsvSource source(t, {dir});
  source.poll(store, 0);
  EXPECT_EQ(to_json(source.status())["rows"], 0);
  EXPECT_EQ(to_json(source.status())["malformed_rows"], 0);
  EXPECT_EQ(to_json(source.status())["recent_problems"].size(), 1U);
  std::ofstream(dir / "gemini.HEADER.1700000000")
      << "#Time,ProducerName,Z+_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)\n";
  source.poll(store, 0);
  EXPECT_EQ(to_json(source.status())["rows"], 1);
  EXPECT_EQ(to_json(source.status())["malformed_rows"], 0);
  EXPECT_NEAR(store.snapshot(0).links[*t.link_in(t.router_at(1, 0, 6), "Z+")].used_bw_pct, 61, 1e-9);
}

// store_csv ietfcsv=1 quotes the header names (and string values); time_format=1 writes
// #Time_msec (milliseconds since the epoch) and Time_usec (the microseconds beyond them).
TEST(LdmsCsv, IetfQuotedHeaderAndMillisecondTime) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("ietf");
  std::ofstream(dir / "gemini.csv")
      << "#\"Time_msec\",\"Time_usec\",\"ProducerName\",\"component_id\",\"job_id\","
         "\"Z+_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)\"\n"
         "100000,0,\"nid00050\",50,0,61000000\n"
         "102000,500,\"nid00050\",50,0,59000000\n"
         "103000,0,\"nid00050,50,0,1\n";  // unterminated quote
  MetricStore store(t);
  LdmsCsvSource source(t, {dir});
  source.poll(store, 0);
  const auto status = to_json(source.status());
  EXPECT_EQ(status["rows"], 2) << status.dump();
  EXPECT_EQ(status["malformed_rows"], 1) << status.dump();
  EXPECT_TRUE(status["ignored_columns"].empty()) << status.dump();
  const auto snap = store.snapshot(10);
  EXPECT_DOUBLE_EQ(snap.now_s, 102.0005);
  const auto z_in = *t.link_in(t.router_at(1, 0, 6), "Z+");
  EXPECT_NEAR(snap.links[z_in].used_bw_pct, (61.0 * 1 + 59.0 * 2.0005) / 3.0005, 1e-9);
}

// Used bandwidth above 100% cannot be measured: up to twice the capacity it is stored as 100%,
// beyond that a percentage is skipped and a counter increase taken as a reset; all are reported.
TEST(LdmsCsv, UsedBandwidthOverCapacityIsClampedOrSkippedAndReported) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("over");
  std::ofstream(dir / "over.csv") << "#Time,ProducerName,Z+_SAMPLE_GEMINI_LINK_USED_BW (%),X-_traffic (B)\n"
                                     "10,nid00050,150,1000\n"
                                     "11,nid00050,250,18446744073709551000\n"  // a jump of ~1.8e19 bytes
                                     "12,nid00050,50,2000\n";
  MetricStore store(t);
  LdmsCsvSource source(t, {dir});
  source.poll(store, 0);
  const auto status = to_json(source.status());
  EXPECT_EQ(status["rows"], 3) << status.dump();
  EXPECT_EQ(status.value("clamped_values", 0), 1) << status.dump();
  EXPECT_EQ(status["malformed_values"], 1) << status.dump();
  EXPECT_EQ(status["counter_resets"], 1) << status.dump();
  EXPECT_EQ(store.stats().counter_resets, 1U);
  const std::string problems = status["recent_problems"].dump();
  EXPECT_NE(problems.find("over.csv:2: 'Z+_SAMPLE_GEMINI_LINK_USED_BW (%)' of nid00050 is 150%"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("over.csv:3: 'Z+_SAMPLE_GEMINI_LINK_USED_BW (%)' of nid00050 is 250%"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("over.csv:3: counter 'X-_traffic (B)' of nid00050 rose by 1.845e+19 bytes"),
            std::string::npos)
      << problems;
  const auto z_in = *t.link_in(t.router_at(1, 0, 6), "Z+");
  const auto x_in = *t.link_in(t.router_at(1, 0, 6), "X-");
  const auto snap = store.snapshot(10);
  EXPECT_NEAR(snap.links[z_in].used_bw_pct, (100.0 + 50.0) / 2, 1e-9);  // 150 -> 100; 250 skipped
  // 10 s .. 11 s skipped; 11 s .. 12 s: the counter came back near 0, 2616 bytes after the wrap.
  EXPECT_NEAR(snap.links[x_in].bytes_per_s, 2616, 1e-6);
  for (const auto& link : snap.links) {
    EXPECT_LE(link.used_bw_pct, 100);
  }
}

// A link cannot stall for longer than the interval: stall percentages and stall counters are
// checked like used bandwidth (up to twice the interval stored as 100%, beyond it skipped).
TEST(LdmsCsv, StallOverTheIntervalIsClampedOrSkippedAndReported) {
  const topo::Torus3D t(topo::TorusOptions{});
  const auto dir = temp_dir("stall_over");
  std::ofstream(dir / "stall.csv")
      << "#Time,ProducerName,Y+_SAMPLE_GEMINI_LINK_CREDIT_STALL (%),X+_credit_stall (ns)\n"
         "10,nid00050,150,0\n"
         "11,nid00050,250,1500000000\n"  // 1.5 s of stall in 1 s
         "12,nid00050,50,4500000000\n"   // 3 s in 1 s: a reset
         "13,nid00050,20,4750000000\n";
  MetricStore store(t);
  LdmsCsvSource source(t, {dir});
  source.poll(store, 0);
  const auto status = to_json(source.status());
  EXPECT_EQ(status["rows"], 4) << status.dump();
  EXPECT_EQ(status["clamped_values"], 2) << status.dump();
  EXPECT_EQ(status["malformed_values"], 1) << status.dump();
  EXPECT_EQ(status["counter_resets"], 1) << status.dump();
  EXPECT_EQ(store.stats().counter_resets, 1U);
  const std::string problems = status["recent_problems"].dump();
  for (const char* expected :
       {"stall.csv:2: 'Y+_SAMPLE_GEMINI_LINK_CREDIT_STALL (%)' of nid00050 is 150% of the interval stalled; "
        "stored as 100%",
        "stall.csv:3: 'Y+_SAMPLE_GEMINI_LINK_CREDIT_STALL (%)' of nid00050 is 250% of the interval stalled, "
        "more than 2 times it: value skipped",
        "stall.csv:3: 'X+_credit_stall (ns)' of nid00050 is 150% of the interval stalled; stored as 100%",
        "stall.csv:4: counter 'X+_credit_stall (ns)' of nid00050 rose by 3 s of stall in 1 s, 300% of the "
        "interval: taken as a reset; interval skipped"}) {
    EXPECT_NE(problems.find(expected), std::string::npos) << expected << "\n" << problems;
  }
  const auto router = t.router_at(1, 0, 6);
  const auto snap = store.snapshot(10);
  // 150 -> 100 (the first row's interval is 1 s); 250 skipped; 50; 20.
  EXPECT_NEAR(snap.links[*t.link_out(router, "Y+")].stall_pct, (100.0 + 50 + 20) / 3, 1e-9);
  // 1.5 s -> 1 s; 12 s skipped, not an idle second; 0.25 s.
  EXPECT_NEAR(snap.links[*t.link_out(router, "X+")].stall_pct, (100.0 + 25) / 2, 1e-9);
  for (const auto& link : snap.links) {
    EXPECT_LE(link.stall_pct, 100);
  }
}

void write_port(const std::filesystem::path& root, const std::string& dev, int port, std::uint64_t xmit,
                std::uint64_t rcv, std::uint64_t wait) {
  const auto dir = root / "class" / "infiniband" / dev / "ports" / std::to_string(port);
  std::filesystem::create_directories(dir / "counters");
  std::ofstream(dir / "rate") << "100 Gb/sec (4X EDR)\n";
  std::ofstream(dir / "counters" / "port_xmit_data") << xmit << "\n";
  std::ofstream(dir / "counters" / "port_rcv_data") << rcv << "\n";
  std::ofstream(dir / "counters" / "port_xmit_wait") << wait << "\n";
}

// Node 5 of a fat tree reading a fake sysfs tree with one port, polled once at 10 s.
struct FakeIbNode {
  explicit FakeIbNode(const std::string& name, SysfsIbOptions options = {}) : root(temp_dir(name)) {
    write_port(root, "mlx5_0", 1, 0, 0, 0);
    options.sys_root = root;
    source = std::make_unique<SysfsIbSource>(*t, 5, options);
    source->poll(store, 10);
  }
  std::unique_ptr<topo::Topology> t = topo::make_topology("fattree:4x4");
  std::filesystem::path root;
  MetricStore store{*t};
  std::unique_ptr<SysfsIbSource> source;
};

TEST(SysfsIb, CounterJumpIsAResetAndOverRateIsClamped) {
  FakeIbNode node("sysfs_over");
  // port_xmit_data counts 4-byte units: +4.6e18 units is ~1.8e19 bytes in 1 s.
  write_port(node.root, "mlx5_0", 1, 4611686018427387000ULL, 1000, 0);
  node.source->poll(node.store, 11);
  auto status = to_json(node.source->status());
  EXPECT_EQ(status.value("counter_resets", 0), 1) << status.dump();
  EXPECT_NE(
      status.value("recent_problems", Json::array()).dump().find("port_xmit_data rose by 1.845e+19 bytes"),
      std::string::npos)
      << status.dump();
  auto snap = node.store.snapshot(0);
  EXPECT_EQ(snap.links[node.t->injection_link(5)].bytes_per_s, 0);
  EXPECT_NEAR(snap.links[node.t->ejection_link(5)].bytes_per_s, 4000, 1e-9);
  // 1.5 times the port's 12.5 GB/s: stored as 100%.
  write_port(node.root, "mlx5_0", 1, 4611686018427387000ULL + 4687500000ULL, 1000, 0);
  node.source->poll(node.store, 12);
  status = to_json(node.source->status());
  EXPECT_EQ(status.value("clamped_values", 0), 1) << status.dump();
  // Over both intervals: the skipped one does not count as an idle second.
  snap = node.store.snapshot(10);
  EXPECT_NEAR(snap.links[node.t->injection_link(5)].used_bw_pct, 100, 1e-9);
}

TEST(SysfsIb, XmitWaitOverTheIntervalIsClampedOrAReset) {
  FakeIbNode node("sysfs_wait_over");
  // Default unit: 8 bytes per increment at 12.5 GB/s, 0.64 ns; 2,343,750,000 increments = 1.5 s.
  write_port(node.root, "mlx5_0", 1, 0, 0, 2343750000ULL);
  node.source->poll(node.store, 11);
  write_port(node.root, "mlx5_0", 1, 1562500000ULL, 0, 2343750000ULL + 4687500000ULL);  // 3 s in 1 s
  node.source->poll(node.store, 12);
  write_port(node.root, "mlx5_0", 1, 1562500000ULL, 0,
             2343750000ULL + 4687500000ULL + 390625000ULL);  // 0.25 s
  node.source->poll(node.store, 13);
  const auto status = to_json(node.source->status());
  EXPECT_EQ(status["clamped_values"], 1) << status.dump();
  EXPECT_EQ(status["counter_resets"], 1) << status.dump();
  EXPECT_EQ(node.store.stats().counter_resets, 1U);
  const std::string problems = status["recent_problems"].dump();
  EXPECT_NE(problems.find("port_xmit_wait is 150% of the interval stalled; stored as 100%"),
            std::string::npos)
      << problems;
  EXPECT_NE(
      problems.find("port_xmit_wait rose by 3 s of stall in 1 s, 300% of the interval: taken as a reset; "
                    "interval skipped (is --ib-xmit-wait-unit 8B right?)"),
      std::string::npos)
      << problems;
  const auto snap = node.store.snapshot(10);
  const auto& inject = snap.links[node.t->injection_link(5)];
  EXPECT_NEAR(inject.stall_pct, (100.0 + 25) / 2, 1e-9);  // the reset's interval is skipped
  EXPECT_NEAR(inject.used_bw_pct, 50.0 / 3, 1e-9);        // its bytes are kept: 6.25 GB in 3 s
}

// A node's link is its ports together: data is summed against the summed rates, and the stall is
// the ports' mean. Two ports stalled 60% each were added to 120% and capped at 100%.
TEST(SysfsIb, SeveralPortsStallAsTheirMean) {
  FakeIbNode node("sysfs_two_ports");
  write_port(node.root, "mlx5_1", 1, 0, 0, 0);
  node.source->poll(node.store, 11);
  // Default unit: 8 bytes per increment at 12.5 GB/s; 937,500,000 increments = 0.6 s; 0.2 s.
  write_port(node.root, "mlx5_0", 1, 1562500000ULL, 0, 937500000ULL);
  write_port(node.root, "mlx5_1", 1, 0, 0, 937500000ULL);
  node.source->poll(node.store, 12);
  auto snap = node.store.snapshot(0);
  const auto& inject = snap.links[node.t->injection_link(5)];
  EXPECT_NEAR(inject.stall_pct, 60, 1e-9);
  EXPECT_NEAR(inject.used_bw_pct, 25, 1e-9);  // 6.25 GB/s of the two ports' 25 GB/s
  write_port(node.root, "mlx5_0", 1, 1562500000ULL, 0, 937500000ULL + 312500000ULL);
  write_port(node.root, "mlx5_1", 1, 0, 0, 937500000ULL + 937500000ULL);
  node.source->poll(node.store, 13);
  snap = node.store.snapshot(0);
  EXPECT_NEAR(snap.links[node.t->injection_link(5)].stall_pct, (20.0 + 60) / 2, 1e-9);
  EXPECT_EQ(to_json(node.source->status())["clamped_values"], 0);
}

TEST(SysfsIb, FakeTree) {
  FakeIbNode node("sysfs");
  const auto& t = node.t;
  const auto& root = node.root;
  auto& store = node.store;
  auto& source = *node.source;
  write_port(root, "mlx5_0", 1, 1562500000, 625000000, 200000000);  // 6.25 GB out, 2.5 GB in, 0.2 s
  source.poll(store, 11);
  const auto snap = store.snapshot(0);
  EXPECT_DOUBLE_EQ(store.capacity(t->injection_link(5)), 12.5e9);
  EXPECT_NEAR(snap.links[t->injection_link(5)].used_bw_pct, 50, 1e-9);
  // Default unit: 8 bytes per increment at the port's 12.5 GB/s, 2e8 increments = 0.128 s.
  EXPECT_NEAR(snap.links[t->injection_link(5)].stall_pct, 12.8, 1e-9);
  EXPECT_EQ(to_json(source.status())["xmit_wait_unit"], "8B");
  EXPECT_NEAR(snap.links[t->ejection_link(5)].bytes_per_s, 2.5e9, 1e-3);
  write_port(root, "mlx5_0", 1, 10, 10, 10);  // reset: skipped, not fatal
  source.poll(store, 12);
  EXPECT_EQ(store.stats().counter_resets, 3U);
  EXPECT_EQ(to_json(source.status())["read_errors"], 0);
  SysfsIbOptions missing;
  missing.sys_root = root / "nope";
  SysfsIbSource absent(*t, 5, missing);
  absent.poll(store, 13);
  EXPECT_EQ(to_json(absent.status())["read_errors"], 1);
  EXPECT_EQ(parse_ib_rate_bytes_per_s("56 Gb/sec (4X FDR)"), 7e9);
  EXPECT_EQ(parse_ib_rate_bytes_per_s("garbage"), 0);
}

// A FIFO in the tree blocked the poll thread forever (std::ifstream waits for a writer), and a
// counter linked to /dev/zero or an oversized file was read without bound: each is now a read error
// in the source's status naming the file and its kind, and the other counters are still read.
TEST(SysfsIb, FifoDeviceAndOversizedCountersAreReadErrors) {
  FakeIbNode node("sysfs_unsafe");
  const auto counters = node.root / "class" / "infiniband" / "mlx5_0" / "ports" / "1" / "counters";
  const auto expect_error = [&](const std::string& name, const std::string& text, std::uint64_t errors) {
    SCOPED_TRACE(name);
    node.source->poll(node.store, static_cast<double>(11 + errors));
    const auto status = to_json(node.source->status());
    EXPECT_EQ(status["read_errors"], errors) << status.dump();
    const auto last = status["last_error"].get<std::string>();
    EXPECT_NE(last.find(name), std::string::npos) << last;
    EXPECT_NE(last.find(text), std::string::npos) << last;
  };
  std::filesystem::remove(counters / "port_rcv_data");
  ASSERT_EQ(::mkfifo((counters / "port_rcv_data").c_str(), 0600), 0);
  expect_error("port_rcv_data", "it is a FIFO", 1);
  std::filesystem::remove(counters / "port_rcv_data");
  std::filesystem::create_symlink("/dev/zero", counters / "port_rcv_data");
  expect_error("port_rcv_data", "it is a character device", 2);
  std::filesystem::remove(counters / "port_rcv_data");
  std::ofstream(counters / "port_rcv_data") << std::string(std::size_t{1} << 20U, '1');
  expect_error("port_rcv_data", "more than the limit of 64 KiB", 3);
  // Readable again, the counters count: 1.25 GB sent in the 2 s since the last poll.
  write_port(node.root, "mlx5_0", 1, 312500000, 0, 0);
  node.source->poll(node.store, 15);
  EXPECT_GT(node.store.snapshot(0).links[node.t->injection_link(5)].used_bw_pct, 0);
}

TEST(XmitWaitUnit, ParsesBytesOrNanosecondsAndConvertsAtTheRate) {
  const XmitWaitUnit bytes = XmitWaitUnit::parse("32B");
  EXPECT_EQ(bytes.bytes, 32);
  EXPECT_EQ(bytes.to_string(), "32B");
  EXPECT_DOUBLE_EQ(bytes.seconds(1e6, 12.5e9), 1e6 * 32 / 12.5e9);
  EXPECT_TRUE(std::isnan(bytes.seconds(1e6, 0)));  // bytes need a rate
  const XmitWaitUnit time = XmitWaitUnit::parse("0.5ns");
  EXPECT_EQ(time.bytes, 0);
  EXPECT_EQ(time.to_string(), "0.5ns");
  EXPECT_DOUBLE_EQ(time.seconds(4e6, 0), 2e-3);
  EXPECT_EQ(XmitWaitUnit{}.to_string(), "8B");
  for (const char* bad : {"", "8", "B", "ns", "-8B", "0B", "0ns", "8 kB", "4us", "nanB", "infns"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW((void)XmitWaitUnit::parse(bad), InputError);
  }
}

TEST(SysfsIb, XmitWaitInNanosecondsAndAPortWithoutRate) {
  SysfsIbOptions options;
  options.xmit_wait = XmitWaitUnit::parse("1ns");
  FakeIbNode node("sysfs_units", options);
  write_port(node.root, "mlx5_0", 1, 0, 0, 200000000);  // 2e8 ns = 0.2 s of 1 s
  node.source->poll(node.store, 11);
  EXPECT_NEAR(node.store.snapshot(0).links[node.t->injection_link(5)].stall_pct, 20, 1e-9);

  // In bytes (the default), a port whose rate cannot be read gives no stall figure and says why.
  FakeIbNode bare("sysfs_norate");
  write_port(bare.root, "mlx5_0", 1, 0, 0, 1000);
  std::filesystem::remove(bare.root / "class" / "infiniband" / "mlx5_0" / "ports" / "1" / "rate");
  bare.source->poll(bare.store, 11);
  EXPECT_EQ(to_json(bare.source->status())["read_errors"], 1);
  EXPECT_NE(to_json(bare.source->status())["last_error"].get<std::string>().find("rate is unknown"),
            std::string::npos);
  EXPECT_NEAR(bare.store.snapshot(0).links[bare.t->injection_link(5)].stall_pct, 0, 1e-12);
}

TEST(LdmsCsv, InfiniBandXmitWaitInBytesUsesTheLinkCapacity) {
  const auto t = topo::make_topology("fattree:4x4");
  const auto dir = temp_dir("ib_bytes");
  std::ofstream(dir / "ib.csv") << "#Time,ProducerName,ib.port_xmit_wait#mlx5_0.1\n"
                                   "1000.0,n00003,0\n1001.0,n00003,100000000\n";
  MetricStore store(*t);
  LdmsCsvSource source(*t, {dir});  // default: 8 bytes per increment
  source.poll(store, 0);
  const auto inject = t->injection_link(3);
  const double capacity = store.capacity(inject);
  ASSERT_GT(capacity, 0);
  EXPECT_NEAR(store.snapshot(0).links[inject].stall_pct, std::min(100.0, 100 * 1e8 * 8 / capacity), 1e-9);
  EXPECT_EQ(to_json(source.status())["xmit_wait_unit"], "8B");
}

}  // namespace
}  // namespace gridlock::oracle
