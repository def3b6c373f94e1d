// oracle::Service: sources made from their names, one bad source never stops the service, health
// from the cached status, polls while queries run.
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/oracle/client.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/oracle/status_json.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::oracle {
namespace {

// A source that throws on every poll (as the LDMS directory iterator did on a vanished directory).
class ThrowingSource final : public Source {
 public:
  void poll(MetricStore& /*store*/, double /*now_s*/) override {
    throw std::runtime_error("directory vanished");
  }
  [[nodiscard]] SourceStatus status() const override { return {"throwing", {}}; }
};

// A source that polls fine but whose status() throws: the health says so instead of failing.
class BadStatusSource final : public Source {
 public:
  void poll(MetricStore& /*store*/, double /*now_s*/) override {}
  [[nodiscard]] SourceStatus status() const override { throw std::runtime_error("no status"); }
};

std::vector<NamedSource> sources_with_a_bad_one(const topo::Topology& topology) {
  std::vector<NamedSource> sources;
  sources.push_back(NamedSource{"bad", std::make_unique<ThrowingSource>()});
  sources.push_back(NamedSource{"sim:paper", make_source("sim:paper", topology)});
  return sources;
}

TEST(OracleService, DefaultSourceIsThePaperLoadOnlyOnThePaperMachine) {
  const topo::Torus3D paper{topo::TorusOptions{}};
  EXPECT_TRUE(is_paper_machine(paper));
  EXPECT_EQ(default_source(paper), "sim:paper");
  const auto other = topo::make_topology("torus:4x4x8");
  EXPECT_FALSE(is_paper_machine(*other));
  EXPECT_EQ(default_source(*other), "sim:none");
  // Its node names exist on the bigger torus too, but the pairs are the paper's machine's.
  try {
    (void)make_source("sim:paper", *other);
    ADD_FAILURE() << "sim:paper accepted on torus:4x4x8";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only to its 2x2x8 Gemini torus"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sim:none"), std::string::npos) << e.what();
  }
}

TEST(OracleService, DuplicateSourcesAreRefused) {
  const topo::Torus3D paper{topo::TorusOptions{}};
  ServiceOptions options;
  options.sources = {"sim:paper", "sim:none", "sim:paper"};
  try {
    const Service service(paper, options);
    ADD_FAILURE() << "duplicate source accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'sim:paper' is given twice"), std::string::npos) << e.what();
  }
}

TEST(OracleService, AThrowingSourceIsRecordedAndTheOthersStillPoll) {
  const topo::Torus3D paper{topo::TorusOptions{}};
  Service service(paper, sources_with_a_bad_one(paper), ServiceOptions{});
  service.poll_once(1.0);
  service.poll_once(2.0);
  const std::vector<SourceHealth> health = service.status();
  ASSERT_EQ(health.size(), 2U);
  EXPECT_FALSE(health[0].ok);
  EXPECT_EQ(health[0].polls, 2U);
  EXPECT_EQ(health[0].error, "directory vanished");
  ASSERT_TRUE(health[1].status.has_value());
  EXPECT_EQ(health[1].status->kind, "simulated");
  EXPECT_EQ(health[1].status->count("flows"), 6U);
  EXPECT_THROW((void)health[1].status->count("no_such_count"), std::out_of_range);
  // The /v1/health form of the same.
  const Json status = to_json(health);
  ASSERT_EQ(status.size(), 2U);
  EXPECT_EQ(status[0]["source"], "bad");
  EXPECT_FALSE(status[0]["ok"].get<bool>());
  EXPECT_EQ(status[0]["errors"], 2);
  EXPECT_EQ(status[0]["error"], "directory vanished");
  EXPECT_TRUE(status[1]["ok"].get<bool>());
  EXPECT_EQ(status[1]["status"]["kind"], "simulated");
  // The good source's data arrived.
  MetricQuery q;
  q.metric = Metric::kBandwidth;
  const auto values =
      service.oracle().route_metrics({{paper.node_id("nid00012"), paper.node_id("nid00038")}}, q);
  EXPECT_GT(values[0], 0);
}

TEST(OracleService, AStatusThatThrowsIsAnErrorOfItsSource) {
  const topo::Torus3D paper{topo::TorusOptions{}};
  std::vector<NamedSource> sources;
  sources.push_back(NamedSource{"mute", std::make_unique<BadStatusSource>()});
  Service service(paper, std::move(sources), ServiceOptions{});
  service.poll_once(1.0);
  const std::vector<SourceHealth> health = service.status();
  ASSERT_EQ(health.size(), 1U);
  EXPECT_FALSE(health[0].ok);
  EXPECT_EQ(health[0].errors, 0U);
  EXPECT_EQ(health[0].error, "status() failed: no status");
  EXPECT_FALSE(health[0].status.has_value());
  const Json json = to_json(health[0]);
  EXPECT_EQ(json["error"], "status() failed: no status");
  EXPECT_FALSE(json.contains("status"));
}

TEST(OracleService, HealthOverHttpShowsTheFailingSource) {
  const topo::Torus3D paper{topo::TorusOptions{}};
  ServiceOptions options;
  options.poll_s = 0.01;
  Service service(paper, sources_with_a_bad_one(paper), options);
  service.poll_once(1.0);
  service.start();
  ServerOptions server_options;
  server_options.port = 0;
  Server server(service, server_options);
  const int port = server.start();
  Client client("127.0.0.1:" + std::to_string(port), 5);
  const Json health = client.health();
  EXPECT_EQ(health["status"], "ok");
  ASSERT_EQ(health["sources"].size(), 2U);
  EXPECT_EQ(health["sources"][0]["error"], "directory vanished");
  EXPECT_GE(health["sources"][0]["errors"].get<int>(), 1);
  service.stop();
  server.stop();
}

// Polls (each adding an interval, so every query sees a new store version) while four threads
// query different windows: no crash, no torn value (a used bandwidth over 100% or negative), and
// ThreadSanitizer/ASan find nothing. Lean: a few hundred polls and queries.
TEST(OracleService, PollsWhileQueriesRun) {
  const topo::Torus3D paper{topo::TorusOptions{}};
  ServiceOptions options;
  options.sources = {"sim:paper"};
  Service service(paper, options);
  service.poll_once(1.0);
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::atomic<int> queries{0};
  std::vector<std::thread> readers;
  readers.reserve(4);
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      MetricQuery q;
      q.metric = Metric::kBandwidth;
      q.window_s = t;  // different windows: the per-window snapshot cache is exercised
      const std::vector<std::pair<topo::NodeId, topo::NodeId>> pairs{
          {paper.node_id("nid00012"), paper.node_id("nid00038")}, {0, 63}};
      while (!done.load()) {
        for (const double v : service.oracle().route_metrics(pairs, q)) {
          if (!(v >= 0 && v <= 100)) {
            ++bad;
          }
        }
        (void)service.status();
        ++queries;
      }
    });
  }
  for (int i = 2; i < 300; ++i) {
    service.poll_once(static_cast<double>(i));
  }
  while (queries.load() < 100) {
    std::this_thread::yield();
  }
  done = true;
  for (auto& reader : readers) {
    reader.join();
  }
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(service.polls(), 299U);
}

}  // namespace
}  // namespace gridlock::oracle
