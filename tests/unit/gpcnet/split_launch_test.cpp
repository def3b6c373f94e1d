#include "gridlock/gpcnet/split_launch.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "common/error_of.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {
namespace {

namespace fs = std::filesystem;
using unittest::error_of;

// A fresh directory per test, removed afterwards.
class SplitLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("gridlock-split-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SplitLaunch, RefusesADirectoryThatIsNotThere) {
  try {
    const Rendezvous r(dir_ / "missing", SplitRole::kCanaries);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an existing directory"), std::string::npos) << e.what();
  }
}

TEST_F(SplitLaunch, TheJobsFindEachOtherAndSeeOnlyTheirRunsFiles) {
  Rendezvous canaries(dir_, SplitRole::kCanaries);
  // A file of an earlier run is removed when a run opens.
  std::ofstream(dir_ / "stop") << R"({"run_id": "old"})";
  canaries.open_run(Json{{"nodes", 3}});
  EXPECT_FALSE(fs::exists(dir_ / "stop"));
  EXPECT_FALSE(canaries.run_id().empty());

  Rendezvous congestors(dir_, SplitRole::kCongestors);
  const Json hello = congestors.join_run(30);
  EXPECT_EQ(congestors.run_id(), canaries.run_id());
  EXPECT_EQ(hello["nodes"], 3);

  congestors.post("congestors.ready", Json{{"congestors", {"a2a"}}});
  const Json ready = canaries.await("congestors.ready", 30, "the ready");
  EXPECT_EQ(ready["congestors"][0], "a2a");
  canaries.watch_peer();
  EXPECT_TRUE(canaries.peer_alive());
  EXPECT_TRUE(congestors.peer_alive());

  EXPECT_FALSE(congestors.posted("start"));
  // Another run's start does not count.
  std::ofstream(dir_ / "start") << R"({"run_id": "another"})";
  EXPECT_FALSE(congestors.posted("start"));
  canaries.post("start", Json::object());
  EXPECT_TRUE(congestors.posted("start"));
  EXPECT_NO_THROW(congestors.check_peer());
}

TEST_F(SplitLaunch, AHelloWithoutAHeartbeatIsNotARun) {
  // What a canary job that died leaves behind: its hello and a heartbeat that no longer changes.
  std::ofstream(dir_ / "canaries.hello") << R"({"run_id": "dead"})";
  std::ofstream(dir_ / "canaries.alive") << "dead 7\n";
  Rendezvous congestors(dir_, SplitRole::kCongestors);
  const std::string message = error_of<Error>([&] { static_cast<void>(congestors.join_run(1.5)); });
  EXPECT_NE(message.find("no canary job opened a run"), std::string::npos) << message;
  EXPECT_NE(message.find("--rendezvous-timeout"), std::string::npos) << message;
}

TEST_F(SplitLaunch, AWaitEndsWithItsTimeoutAndSaysWhatToStart) {
  Rendezvous canaries(dir_, SplitRole::kCanaries);
  canaries.open_run(Json::object());
  const std::string message = error_of<Error>(
      [&] { static_cast<void>(canaries.await("congestors.ready", 0.3, "the congestor job's ready")); });
  EXPECT_NE(message.find("the congestor job's ready did not come within 0.3 s"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--role congestors"), std::string::npos) << message;
}

TEST_F(SplitLaunch, ACongestorJobSeesAnotherCanaryRunTakeOver) {
  Rendezvous first(dir_, SplitRole::kCanaries);
  first.open_run(Json::object());
  Rendezvous congestors(dir_, SplitRole::kCongestors);
  static_cast<void>(congestors.join_run(30));
  Rendezvous second(dir_, SplitRole::kCanaries);
  second.open_run(Json::object());
  const std::string message = error_of<Error>([&] { congestors.check_peer(); });
  EXPECT_NE(message.find("another canary job"), std::string::npos) << message;
  EXPECT_NE(message.find("its own --rendezvous directory"), std::string::npos) << message;
}

TEST(SplitOptions, ARoleNeedsADirectoryAndOneLoadedPhase) {
  const auto message = [](const std::function<void(Options&)>& change) {
    Options o;
    change(o);
    try {
      validate(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message([](Options& o) {
              o.role = SplitRole::kCanaries;
              o.rendezvous_dir = "/tmp";
            }),
            "");
  EXPECT_NE(message([](Options& o) { o.role = SplitRole::kCanaries; }).find("needs --rendezvous DIR"),
            std::string::npos);
  EXPECT_NE(message([](Options& o) { o.rendezvous_dir = "/tmp"; }).find("needs --role canaries"),
            std::string::npos);
  EXPECT_NE(message([](Options& o) {
              o.role = SplitRole::kCongestors;
              o.rendezvous_dir = "/tmp";
              o.each_congestor = true;
            }).find("--each-congestor"),
            std::string::npos);
  EXPECT_NE(message([](Options& o) {
              o.mode = Mode::kNetwork;
              o.role = SplitRole::kCanaries;
              o.rendezvous_dir = "/tmp";
            }).find("splits a load run only"),
            std::string::npos);
  EXPECT_NE(message([](Options& o) {
              o.role = SplitRole::kCongestors;
              o.rendezvous_dir = "/tmp";
              o.csv_dir = "h";
            }).find("give it to the canary job"),
            std::string::npos);
}

}  // namespace
}  // namespace gridlock::gpcnet
