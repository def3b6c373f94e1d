// Checks a gridlock-bench JSON file against what the run was asked to do. The file and the
// expectations come from the environment (set per CTest entry, which picks the tests it needs
// with --gtest_filter); a test whose input is not configured fails, so a miswired entry cannot
// pass by checking nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gridlock/core/output.hpp"

namespace gridlock {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): single-threaded test
  return value == nullptr ? std::string() : std::string(value);
}

// The value of a variable the test needs: a test without its input fails instead of passing empty.
std::string required_env(const char* name) {
  std::string value = env(name);
  if (value.empty()) {
    ADD_FAILURE() << name << " is not set: this CTest entry does not configure the test it runs "
                  << "(tests/mpi/CMakeLists.txt, gridlock_json_check)";
  }
  return value;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    parts.push_back(part);
  }
  return parts;
}

Json load(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return Json::parse(in);
}

bool positive_number(const Json& value) { return value.is_number() && value.get<double>() > 0.0; }

// Samples a canary records over a test that ran to the end: its loop's measurements x rings x
// iterations on each of its ranks (docs/formats/bench-json.md).
std::uint64_t expected_samples(const Json& parameters, const std::string& key, std::uint64_t ranks) {
  const char* loop = "bandwidth";
  if (key.find("_lat") != std::string::npos) {
    loop = "latency";
  } else if (key.find("allreduce") != std::string::npos) {
    loop = "allreduce";
  } else if (key.find("alltoall") != std::string::npos) {
    loop = "alltoall";
  }
  const Json& l = parameters.at(loop);
  const std::uint64_t rings = key.rfind("nat_", 0) == 0 ? 1 : l.at("rings").get<std::uint64_t>();
  return l.at("measurements").get<std::uint64_t>() * rings * l.at("iterations").get<std::uint64_t>() * ranks;
}

TEST(BenchJson, ContextBlockComesFirstAndDescribesTheRun) {
  const std::string path = required_env("GRIDLOCK_JSON");
  ASSERT_FALSE(path.empty());
  const Json doc = load(path);
  ASSERT_EQ(doc.begin().key(), "context");
  const Json& c = doc["context"];
  for (const char* field : {"tool",           "gridlock_version",
                            "git_commit",     "schema",
                            "schema_version", "date",
                            "host",           "mode",
                            "mpi_library",    "mpi_standard",
                            "ranks",          "nodes",
                            "ranks_per_node", "nics_per_node",
                            "ranks_per_nic",  "nic_source",
                            "nics",           "nics_even",
                            "seed",           "parameters"}) {
    EXPECT_TRUE(c.contains(field)) << "context lacks " << field;
  }
  EXPECT_EQ(c["tool"], "gridlock-bench");
  EXPECT_EQ(c["mode"], env("GRIDLOCK_EXPECT_MODE"));
  EXPECT_EQ(c["nodes"].get<int>(), std::stoi(env("GRIDLOCK_EXPECT_NODES")));
  EXPECT_EQ(c["ranks"].get<int>(), std::stoi(env("GRIDLOCK_EXPECT_RANKS")));
  if (!env("GRIDLOCK_EXPECT_RANKS_PER_NODE").empty()) {
    EXPECT_EQ(c["ranks_per_node"].get<int>(), std::stoi(env("GRIDLOCK_EXPECT_RANKS_PER_NODE")));
  }
  // GPCNeT's PPort is ranks per NIC (issue 41); one port per node unless the run says otherwise.
  const std::string nics = env("GRIDLOCK_EXPECT_NICS_PER_NODE");
  EXPECT_EQ(c["nics_per_node"].get<int>(), nics.empty() ? 1 : std::stoi(nics));
  EXPECT_EQ(c["ranks_per_nic"].get<int>() * c["nics_per_node"].get<int>(), c["ranks_per_node"].get<int>());
  if (!env("GRIDLOCK_EXPECT_NIC_SOURCE").empty()) {
    EXPECT_EQ(c["nic_source"], env("GRIDLOCK_EXPECT_NIC_SOURCE"));
  }
  EXPECT_TRUE(c["nics_even"].get<bool>());
  EXPECT_NE(c["mpi_library"].get<std::string>().find("MPI"), std::string::npos);
  EXPECT_TRUE(c["parameters"].contains("latency"));
}

TEST(BenchJson, RolesPartitionTheNodes) {
  const std::string path = required_env("GRIDLOCK_JSON");
  ASSERT_FALSE(path.empty());
  const Json doc = load(path);
  const Json& roles = doc["roles"];
  std::vector<std::string> expected{"canary"};
  for (const auto& c : split(env("GRIDLOCK_EXPECT_CONGESTORS"))) {
    expected.push_back(c);
  }
  std::size_t nodes = 0;
  std::vector<std::string> all;
  for (const auto& name : expected) {
    ASSERT_TRUE(roles.contains(name)) << "no role " << name;
    EXPECT_GE(roles[name].size(), 2U) << name;
    nodes += roles[name].size();
    for (const auto& n : roles[name]) {
      all.push_back(n.get<std::string>());
    }
  }
  EXPECT_EQ(roles.size(), expected.size());
  EXPECT_EQ(nodes, static_cast<std::size_t>(std::stoi(env("GRIDLOCK_EXPECT_NODES"))));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a node has two roles";
  EXPECT_EQ(doc["canary_ring0"].size(), roles["canary"].size());
}

TEST(BenchJson, EveryPhaseHoldsEveryStatistic) {
  const std::string path = required_env("GRIDLOCK_JSON");
  ASSERT_FALSE(path.empty());
  const Json doc = load(path);
  const auto phases = split(env("GRIDLOCK_EXPECT_PHASES"));
  ASSERT_EQ(doc["phases"].size(), phases.size());
  const std::size_t canaries = env("GRIDLOCK_EXPECT_MODE") == "network" ? 8 : 3;
  for (const auto& label : phases) {
    ASSERT_TRUE(doc["phases"].contains(label)) << label;
    const Json& phase = doc["phases"][label];
    ASSERT_EQ(phase["canaries"].size(), canaries) << label;
    for (const auto& c : phase["canaries"]) {
      SCOPED_TRACE(label + " " + c["key"].get<std::string>());
      EXPECT_GT(c["samples"].get<std::uint64_t>(), 0U);
      // Without a cut-short test the count is exact: nM x nR x nI per rank (natural ring: one ring).
      if (doc["timeouts"].empty()) {
        EXPECT_EQ(c["samples"].get<std::uint64_t>(),
                  expected_samples(doc["context"]["parameters"], c["key"].get<std::string>(),
                                   c["ranks"].get<std::uint64_t>()));
      }
      for (const char* stat : {"mean", "min", "median", "p99", "p99_9", "max", "p1", "tail99"}) {
        EXPECT_TRUE(positive_number(c[stat])) << stat;
      }
      EXPECT_LE(c["min"].get<double>(), c["median"].get<double>());
      EXPECT_LE(c["median"].get<double>(), c["max"].get<double>());
      EXPECT_TRUE(positive_number(c["bulk"]["mean_of_rank_means"]));
      EXPECT_GT(c["ranks"].get<int>(), 0);
      EXPECT_FALSE(c["skipped"].get<bool>());
      if (label != "isolated") {
        ASSERT_FALSE(c["congestor_throughput"].empty());
        for (const auto& g : c["congestor_throughput"]) {
          EXPECT_GT(g["bytes"].get<std::uint64_t>(), 0U) << g["type"];
          EXPECT_GT(g["ranks"].get<int>(), 0) << g["type"];
          EXPECT_TRUE(positive_number(g["mib_per_s_total"])) << g["type"];
        }
      }
    }
  }
  if (env("GRIDLOCK_EXPECT_MODE") == "load") {
    ASSERT_EQ(doc["congestion_impact"].size(), 3 * (phases.size() - 1));
    for (const auto& row : doc["congestion_impact"]) {
      EXPECT_TRUE(positive_number(row["mean"])) << row["key"];
      EXPECT_TRUE(positive_number(row["tail99"])) << row["key"];
    }
  }
  EXPECT_TRUE(doc["timeouts"].is_array());
  EXPECT_TRUE(doc.contains("status"));
}

TEST(BenchJson, HistogramCsvFilesExist) {
  const std::filesystem::path dir = required_env("GRIDLOCK_EXPECT_CSV_DIR");
  ASSERT_FALSE(dir.empty());
  for (const char* file : {"isolated_rr_two_sided_lat.csv", "loaded_rr_two_sided_bw_sync.csv",
                           "loaded_multiple_allreduce.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  }
}

TEST(BenchJson, SameSeedSameRolesAndRingsOtherSeedOthers) {
  const std::string a_path = required_env("GRIDLOCK_JSON");
  const std::string b_path = required_env("GRIDLOCK_JSON_SAME_SEED");
  const std::string c_path = required_env("GRIDLOCK_JSON_OTHER_SEED");
  ASSERT_FALSE(a_path.empty() || b_path.empty() || c_path.empty());
  const Json a = load(a_path);
  const Json b = load(b_path);
  const Json c = load(c_path);
  EXPECT_EQ(a["context"]["seed"], b["context"]["seed"]);
  EXPECT_EQ(a["roles"], b["roles"]);
  EXPECT_EQ(a["canary_ring0"], b["canary_ring0"]);
  EXPECT_NE(a["context"]["seed"], c["context"]["seed"]);
  EXPECT_TRUE(a["roles"] != c["roles"] || a["canary_ring0"] != c["canary_ring0"]);
}

}  // namespace
// Regression: gridlock-bench noise wrote the MPI library's terminating NUL into its JSON and into
// every trace header (grep then took the traces for binary files).
TEST(BenchJson, NoiseOutputsHoldNoNulBytes) {
  ASSERT_FALSE(required_env("GRIDLOCK_NOISE_JSON").empty());
  ASSERT_FALSE(required_env("GRIDLOCK_NOISE_TRACES").empty());
  const auto text_of = [](const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string json = text_of(env("GRIDLOCK_NOISE_JSON"));
  EXPECT_EQ(json.find('\0'), std::string::npos);
  EXPECT_NE(json.find("\"mpi_library\""), std::string::npos);
  EXPECT_EQ(json.find("\\u0000"), std::string::npos);
  int traces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(env("GRIDLOCK_NOISE_TRACES"))) {
    ++traces;
    const std::string trace = text_of(entry.path());
    EXPECT_EQ(trace.find('\0'), std::string::npos) << entry.path();
    EXPECT_NE(trace.find("# mpi_library: "), std::string::npos) << entry.path();
  }
  EXPECT_GT(traces, 0);
}

}  // namespace gridlock
