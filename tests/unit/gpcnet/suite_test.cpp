#include "gridlock/gpcnet/suite.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gridlock/core/error.hpp"
#include "gridlock/gpcnet/options_json.hpp"

namespace gridlock::gpcnet {
namespace {

TEST(Suite, EveryCanaryHasItsOwnRowInDeclarationOrder) {
  std::set<std::string_view> keys;
  std::set<std::string_view> names;
  int index = 0;
  for (const CanaryTest& test : canary_tests()) {
    EXPECT_EQ(static_cast<int>(test.id), index++);
    EXPECT_EQ(&canary_test(test.id), &test);
    EXPECT_TRUE(keys.insert(test.key).second) << test.key;
    EXPECT_TRUE(names.insert(test.name).second) << test.name;
  }
  EXPECT_EQ(index, 8);
}

TEST(Suite, TitlesCarryTheMessageSize) {
  EXPECT_EQ(canary_title(Canary::kRrTwoSidedLat, 8), "RR Two-sided Lat (8 B)");
  EXPECT_EQ(canary_title(Canary::kRrTwoSidedBwSync, 131072), "RR Two-sided BW+Sync (131072 B)");
  EXPECT_EQ(canary_title(Canary::kMultipleAlltoall, 4096), "Multiple Alltoall (4096 B)");
}

TEST(Suite, LoadModeRunsThreeCanariesWithTheOptionsSizes) {
  Options options;
  options.latency_bytes = 16;
  const auto specs = canary_specs(options);
  ASSERT_EQ(specs.size(), 3U);
  EXPECT_EQ(specs[0].key, "rr_two_sided_lat");
  EXPECT_EQ(specs[0].title, "RR Two-sided Lat (16 B)");
  EXPECT_EQ(specs[0].units, "usec");
  EXPECT_EQ(specs[0].loop.iterations, options.latency.iterations);
  EXPECT_EQ(specs[1].key, "rr_two_sided_bw_sync");
  EXPECT_EQ(specs[1].better, Better::kHigher);
  EXPECT_EQ(specs[1].units, "MiB/s/rank");
  EXPECT_EQ(specs[2].key, "multiple_allreduce");
  EXPECT_EQ(specs[2].rings, RingKind::kNone);
}

TEST(Suite, NetworkModeRunsEveryCanaryAndTheNaturalRingOnce) {
  Options options;
  options.mode = Mode::kNetwork;
  const auto specs = canary_specs(options);
  ASSERT_EQ(specs.size(), canary_tests().size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].key, canary_tests()[i].key);
  }
  EXPECT_EQ(specs[5].key, "nat_two_sided_bw");
  EXPECT_EQ(specs[5].loop.rings, 1U);
  EXPECT_EQ(specs[2].loop.rings, options.bandwidth.rings);
}

TEST(Suite, CongestorNamesComeFromTheTable) {
  for (const CongestorTest& test : congestor_tests()) {
    EXPECT_EQ(congestor_key(test.type), test.key);
    EXPECT_EQ(congestor_title(test.type), test.title);
    EXPECT_EQ(parse_congestor_list(test.key), std::vector<CongestorType>{test.type});
  }
  EXPECT_EQ(Options{}.congestors, default_congestors());
  EXPECT_EQ(default_congestors().size(), 4U);
}

TEST(OptionsJson, RoundTripsEveryParameter) {
  Options o;
  o.mode = Mode::kNetwork;
  o.quick = true;
  o.virtual_nodes = 12;
  o.canary_fraction = 0.25;
  o.congestors = {CongestorType::kRmaBcast, CongestorType::kAllreduce};
  o.each_congestor = true;
  o.latency = {3, 4, 5, 6};
  o.alltoall = {7, 1, 9, 2};
  o.bandwidth_bytes = 65536;
  o.recv_buffers = RecvBuffers::kSeparate;
  o.idle_wait = IdleWait::kPoll;
  o.average = Average::kSamples;
  o.congestor_check = 32;
  o.test_timeout_s = 2.5;
  o.deadline_s = 60;
  o.json_path = "out.json";
  o.csv_dir = "csv";
  const Json j = options_to_json(o);
  EXPECT_EQ(options_to_json(options_from_json(j)), j);
}

TEST(OptionsJson, AbsentKeysKeepTheirDefaults) {
  EXPECT_EQ(options_to_json(options_from_json(Json::object())), options_to_json(Options{}));
}

TEST(OptionsJson, RefusesWrongTypesAndUnknownNamesNamingTheKey) {
  auto message = [](const Json& j) {
    try {
      (void)options_from_json(j);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(Json{{"mode", "loaded"}}).find("\"mode\" is \"loaded\"; give one of load, network"),
            std::string::npos);
  EXPECT_NE(message(Json{{"congestors", {"a2a", "bogus"}}}).find("one of a2a, p2p-incast"),
            std::string::npos);
  EXPECT_NE(message(Json{{"latency_bytes", -1}}).find("\"latency_bytes\" is -1"), std::string::npos);
  EXPECT_NE(message(Json{{"latency", {{"rings", "x"}}}}).find("\"latency.rings\""), std::string::npos);
  EXPECT_NE(message(Json{{"quick", 1}}).find("true or false"), std::string::npos);
  EXPECT_NE(message(Json::array()).find("expected an object"), std::string::npos);
}

}  // namespace
}  // namespace gridlock::gpcnet
