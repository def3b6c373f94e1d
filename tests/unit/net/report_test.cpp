// The network report (utilisation, top links, histogram, slowdown) on hand-made NetStats, its JSON,
// and the parsing of the --placement choices (identity, random, rankfile).
#include "gridlock/net/report.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/net/report_json.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {
namespace {

constexpr std::uint64_t kMakespanPs = 1'000'000;  // 1 us

std::shared_ptr<const Network> torus_network() {
  std::shared_ptr<const topo::Topology> topology = topo::make_topology("torus:4x1x1");
  Placement placement = identity_placement(*topology, 4);
  return std::make_shared<const Network>(std::move(topology), std::move(placement), NetworkParams{});
}

// Bytes that fill `share` of link `link`'s capacity over kMakespanPs.
double bytes_for(const Network& network, topo::LinkId link, double share) {
  return share * network.capacity_bytes_per_ps(link) * static_cast<double>(kMakespanPs);
}

NetStats stats_for(const Network& network) {
  NetStats stats;
  stats.model = "flow";
  stats.link_bytes.assign(network.topology().links().size(), 0);
  stats.messages = 7;
  stats.network_messages = 5;
  stats.bytes = 1234;
  return stats;
}

TEST(NetReport, UtilisationHistogramAndTopLinks) {
  const auto network = torus_network();
  NetStats stats = stats_for(*network);
  const topo::LinkId last = static_cast<topo::LinkId>(stats.link_bytes.size() - 1);
  stats.link_bytes[0] = bytes_for(*network, 0, 0.5);
  stats.link_bytes[1] = bytes_for(*network, 1, 1.0);  // full: the last bin, not an eleventh
  stats.link_bytes[2] = bytes_for(*network, 2, 0.05);
  stats.link_bytes[last] = bytes_for(*network, last, 0.25);

  const NetReport report = make_net_report(*network, stats, kMakespanPs, 3);
  EXPECT_EQ(report.model, "flow");
  EXPECT_EQ(report.links, stats.link_bytes.size());
  EXPECT_EQ(report.busy_links, 4U);
  EXPECT_EQ(report.idle_links, stats.link_bytes.size() - 4);
  EXPECT_EQ(report.messages, 7U);
  EXPECT_EQ(report.network_messages, 5U);
  const std::array<std::uint64_t, kUtilisationBins> want{1, 0, 1, 0, 0, 1, 0, 0, 0, 1};
  EXPECT_EQ(report.utilisation_histogram, want);
  EXPECT_NEAR(report.mean_busy_utilisation, (0.5 + 1.0 + 0.05 + 0.25) / 4, 1e-12);
  EXPECT_NEAR(report.max_utilisation, 1.0, 1e-12);
  EXPECT_NEAR(report.p99_busy_utilisation, 1.0, 1e-12);

  ASSERT_EQ(report.top_links.size(), 3U);  // top_n cuts the list
  // Ordered by bytes; all links of the torus have one capacity here, so also by utilisation.
  EXPECT_GE(report.top_links[0].bytes, report.top_links[1].bytes);
  EXPECT_GE(report.top_links[1].bytes, report.top_links[2].bytes);
  EXPECT_EQ(report.top_links[0].link, 1U);
  EXPECT_NEAR(report.top_links[0].utilisation, 1.0, 1e-12);
  EXPECT_EQ(report.top_links[0].name, network->topology().link_name(1));
  EXPECT_EQ(report.top_links[0].kind, topo::LinkKind::kNetwork);
  EXPECT_EQ(report.top_links[2].link, last);
  EXPECT_EQ(report.top_links[2].kind, network->topology().links()[last].kind);
}

TEST(NetReport, TiesListTheLowerLinkFirst) {
  const auto network = torus_network();
  NetStats stats = stats_for(*network);
  stats.link_bytes[5] = 100;
  stats.link_bytes[3] = 100;
  const NetReport report = make_net_report(*network, stats, kMakespanPs);
  ASSERT_EQ(report.top_links.size(), 2U);
  EXPECT_EQ(report.top_links[0].link, 3U);
  EXPECT_EQ(report.top_links[1].link, 5U);
}

TEST(NetReport, SlowdownSummary) {
  const auto network = torus_network();
  NetStats stats = stats_for(*network);
  for (const double s : {1.0, 1.0, 1.0, 3.0}) {
    stats.slowdown.record(s);
  }
  const NetReport report = make_net_report(*network, stats, kMakespanPs);
  EXPECT_EQ(report.slowdown.count, 4U);
  EXPECT_DOUBLE_EQ(report.slowdown.mean, 1.5);
  EXPECT_NEAR(report.slowdown.p50, 1.0, 1.0 / 256);
  EXPECT_NEAR(report.slowdown.p99, 3.0, 3.0 / 256);
  EXPECT_DOUBLE_EQ(report.slowdown.max, 3.0);
}

TEST(NetReport, IdleRunAndZeroMakespan) {
  const auto network = torus_network();
  NetStats stats = stats_for(*network);
  NetReport report = make_net_report(*network, stats, kMakespanPs);
  EXPECT_EQ(report.busy_links, 0U);
  EXPECT_EQ(report.idle_links, report.links);
  EXPECT_TRUE(report.top_links.empty());
  EXPECT_EQ(report.slowdown.count, 0U);
  EXPECT_EQ(report.slowdown.mean, 0);

  stats.link_bytes[0] = 10;
  report = make_net_report(*network, stats, 0);
  EXPECT_EQ(report.busy_links, 1U);
  EXPECT_EQ(report.utilisation_histogram[0], 1U);
  EXPECT_EQ(report.max_utilisation, 0);
}

TEST(NetReport, StatisticsOfAnotherNetworkAreRefused) {
  const auto network = torus_network();
  NetStats stats = stats_for(*network);
  stats.link_bytes.pop_back();
  EXPECT_THROW((void)make_net_report(*network, stats, kMakespanPs), InputError);
}

TEST(NetReport, JsonAndText) {
  const auto network = torus_network();
  NetStats stats = stats_for(*network);
  stats.link_bytes[0] = bytes_for(*network, 0, 0.5);
  stats.slowdown.record(2.0);
  const NetReport report = make_net_report(*network, stats, kMakespanPs);
  const Json json = network_json(*network, PlacementChoice{}, "flow model on torus", report);
  EXPECT_EQ(json["model"], "flow");
  EXPECT_EQ(json["spec"], network->topology().spec());
  EXPECT_EQ(json["placement"]["kind"], "identity");
  EXPECT_EQ(json["placement"]["ranks_per_node"], 1);
  EXPECT_TRUE(json["placement"]["rankfile"].is_null());
  EXPECT_EQ(json["parameters"]["hop_latency_ps"], 0);
  const Json& r = json["report"];
  EXPECT_EQ(r["links"]["busy"], 1);
  EXPECT_EQ(r["utilisation"]["histogram"].size(), kUtilisationBins);
  EXPECT_EQ(r["utilisation"]["histogram"][5], 1);
  ASSERT_EQ(r["top_links"].size(), 1U);
  EXPECT_EQ(r["top_links"][0]["name"], network->topology().link_name(0));
  EXPECT_EQ(r["top_links"][0]["kind"], "network");
  EXPECT_DOUBLE_EQ(r["top_links"][0]["utilisation"].get<double>(), 0.5);
  EXPECT_EQ(r["slowdown"]["count"], 1);

  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  print_net_report(out, report, "flow model on torus");
  std::rewind(out);
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, out) != nullptr) {
    text += buffer;
  }
  (void)std::fclose(out);
  EXPECT_NE(text.find("network: flow model on torus\n"), std::string::npos);
  EXPECT_NE(text.find("Network Report (flow model)"), std::string::npos);
  EXPECT_NE(text.find("|                Message slowdown |         2.00 |         2.00 |      x alone |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("|                          50-60% |            1 |"), std::string::npos) << text;
}

// The packet block of the predict commands' contexts names the UGAL rule a run took (it became
// BookSim2's by default, so a reader must see which) and the router latencies where set.
TEST(PacketOptionsJson, NamesTheUgalRuleAndTheLatenciesSet) {
  PacketOptions o;
  Json j = packet_options_json(o);
  EXPECT_EQ(j["routing"], "minimal");
  EXPECT_EQ(j["vcs"], 3);
  EXPECT_EQ(j["congestion_control"], false);
  EXPECT_FALSE(j.contains("ugal_rule"));
  EXPECT_FALSE(j.contains("credit_latency_ps"));
  o.routing = Routing::kUgal;
  o.ugal_threshold_bytes = 480;
  o.credit_latency_ps = 1600;
  j = packet_options_json(o);
  EXPECT_EQ(j["ugal_rule"], "booksim");
  EXPECT_EQ(j["ugal_threshold_bytes"], 480);
  EXPECT_EQ(j["credit_latency_ps"], 1600);
  EXPECT_FALSE(j.contains("terminal_latency_ps"));
  o.ugal_rule = UgalRule::kHops;
  j = packet_options_json(o);
  EXPECT_EQ(j["ugal_rule"], "hops");
  EXPECT_FALSE(j.contains("ugal_threshold_bytes"));
}

TEST(PlacementSpec, Parses) {
  EXPECT_EQ(parse_placement_spec("identity").kind, PlacementKind::kIdentity);
  EXPECT_EQ(parse_placement_spec("random").kind, PlacementKind::kRandom);
  const PlacementSpec file = parse_placement_spec("rankfile:a/b.txt");
  EXPECT_EQ(file.kind, PlacementKind::kRankfile);
  EXPECT_EQ(file.rankfile, "a/b.txt");
  for (const char* bad : {"", "rankfile:", "rankfile", "Identity", "hops"}) {
    EXPECT_THROW((void)parse_placement_spec(bad), InputError) << bad;
  }
}

}  // namespace
}  // namespace gridlock::net
