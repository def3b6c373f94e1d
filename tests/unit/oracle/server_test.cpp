// The oracle service over loopback: right answers, bad requests, concurrency.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "gridlock/core/error.hpp"
#include "gridlock/oracle/client.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::oracle {
namespace {

// A plain TCP connection to the server, for what an HTTP client library would hide: pipelining,
// requests split across writes, "Expect: 100-continue", a client that stops sending.
class RawConnection {
 public:
  // `from`: the local address to connect from (another loopback address, e.g. 127.0.0.2, is
  // another client address to the server's per-address limit).
  explicit RawConnection(int port, const char* from = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{};
    tv.tv_sec = 20;  // a safety net against a hanging test, not a measurement
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (from != nullptr) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
        return;
      }
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection(RawConnection&&) = delete;
  RawConnection& operator=(RawConnection&&) = delete;

  [[nodiscard]] bool connected() const { return connected_; }
  [[nodiscard]] int fd() const { return fd_; }
  // After read_until_closed(): whether the server closed the connection (not a timeout).
  [[nodiscard]] bool closed_by_server() const { return closed_by_server_; }
  bool send(const std::string& text) const {
    return ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // Everything received until the server closes the connection (or the safety timeout).
  [[nodiscard]] std::string read_until_closed() {
    std::string out;
    std::array<char, 4096> buf{};
    while (true) {
      const auto n = ::recv(fd_, buf.data(), buf.size(), 0);
      if (n <= 0) {
        closed_by_server_ = n == 0;
        return out;
      }
      out.append(buf.data(), static_cast<std::size_t>(n));
    }
  }
  // One whole HTTP response (headers and a Content-Length body), or what arrived before the
  // connection ended or the safety timeout.
  [[nodiscard]] std::string read_response() const {
    std::string out = read_until("\r\n\r\n");
    const auto header_end = out.find("\r\n\r\n");
    const auto length_at = out.find("Content-Length: ");
    if (header_end == std::string::npos || length_at == std::string::npos || length_at > header_end) {
      return out;
    }
    const std::size_t total = header_end + 4 + std::stoul(out.substr(length_at + 16));
    std::array<char, 4096> buf{};
    while (out.size() < total) {
      const auto n = ::recv(fd_, buf.data(), std::min(buf.size(), total - out.size()), 0);
      if (n <= 0) {
        break;
      }
      out.append(buf.data(), static_cast<std::size_t>(n));
    }
    return out;
  }
  // Receives until `text` has arrived (or the connection ends); returns what was received.
  [[nodiscard]] std::string read_until(const std::string& text) const {
    std::string out;
    std::array<char, 4096> buf{};
    while (out.find(text) == std::string::npos) {
      const auto n = ::recv(fd_, buf.data(), buf.size(), 0);
      if (n <= 0) {
        break;
      }
      out.append(buf.data(), static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_by_server_ = false;
};

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = std::make_unique<SimulatedLoad>(topo_, paper_congestion_flows(topo_, 2e9));
    sim_->poll(store_, 1.0);
    ServerOptions options;
    options.port = 0;
    options.threads = 4;
    options.max_body_bytes = std::size_t{64} * 1024;
    options.max_pairs = 1000;
    // The concurrency tests open 1,000 connections from loopback at once.
    options.max_connections = 1100;
    options.max_connections_per_address = 1100;
    // They send the 1,000 headers only after opening every connection. On a loaded 2-core machine
    // the server may not read them all within the default 5 s from each connection's opening, and
    // the header-time reaper then closes connections whose header waits unread in the kernel
    // (162 of 1,000 failed so, in a local CI run beside three builds). Header timeouts have tests
    // of their own with servers of their own.
    options.header_timeout_s = 60;
    server_ = std::make_unique<Server>(oracle_, options, [] {
      SourceHealth health;
      health.source = "test";
      health.polls = 3;
      health.status = SourceStatus{"test", {{"rows", std::uint64_t{7}}}};
      return std::vector<SourceHealth>{health};
    });
    port_ = server_->start();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override { server_->stop(); }

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] httplib::Client raw() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(10, 0);
    c.set_connection_timeout(10, 0);
    return c;
  }
  static std::string error_message(const httplib::Result& r) {
    if (!r) {
      return "no answer";
    }
    const Json body = Json::parse(r->body, nullptr, false);
    return body.is_discarded() ? "not json" : body["error"].value("message", std::string("none"));
  }
  static std::string error_code(const httplib::Result& r) {
    if (!r) {
      return "no answer";
    }
    const Json body = Json::parse(r->body, nullptr, false);
    return body.is_discarded() ? "not json" : body["error"].value("code", std::string("none"));
  }

  topo::Torus3D topo_{topo::TorusOptions{}};
  MetricStore store_{topo_};
  Oracle oracle_{topo_, store_};
  std::unique_ptr<SimulatedLoad> sim_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

TEST_F(ServerTest, AnswersHealthTopologyNodesAndRoutes) {
  Client client(url());
  const Json health = client.health();
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["sources"][0]["source"], "test");
  EXPECT_EQ(health["sources"][0]["polls"], 3);
  EXPECT_EQ(health["sources"][0]["ok"], true);
  EXPECT_FALSE(health["sources"][0].contains("error"));
  EXPECT_EQ(health["sources"][0]["status"]["kind"], "test");
  EXPECT_EQ(health["sources"][0]["status"]["rows"], 7);
  EXPECT_EQ(client.topology()["nodes"], 64);
  EXPECT_EQ(client.node("nid00038")["coords"], Json::array({1, 1, 3}));
  EXPECT_EQ(client.get("/v1/nodes")["nodes"].size(), 64U);
  const Json route = client.route("nid00012", "nid00038");
  EXPECT_EQ(route["hops"], 5);
  EXPECT_EQ(route["links"][0]["direction"], "X+");
  EXPECT_EQ(route["links"][0]["to"], "(1,0,6)");
  EXPECT_EQ(route["links"][0]["in_port"], "X-");
  EXPECT_NEAR(route["links"][2]["used_bw_pct"].get<double>(), 100 * 6 / 9.375, 1e-9);
  const Json top = client.get("/v1/links?top=1");
  EXPECT_EQ(top["links"][0]["name"], "(1,1,6) Z- -> (1,1,5)");
}

TEST_F(ServerTest, RouteMetricsMatchTheOracle) {
  Client client(url());
  MetricQuery q;
  q.metric = Metric::kBandwidth;
  q.reducer = Reducer::kMax;
  const std::vector<std::pair<std::string, std::string>> pairs{
      {"nid00012", "nid00038"}, {"nid00012", "nid00013"}, {"nid00017", "nid00049"}};
  const auto values = client.route_metrics(pairs, q);
  std::vector<std::pair<topo::NodeId, topo::NodeId>> ids;
  ids.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    ids.emplace_back(topo_.node_id(a), topo_.node_id(b));
  }
  EXPECT_EQ(values, oracle_.route_metrics(ids, q));
  q.metric = Metric::kHops;
  EXPECT_EQ(client.route_metrics({{"nid00012", "nid00038"}}, q), std::vector<double>{5});
  const Json single = client.get("/v1/route-metrics?src=nid00012&dst=nid00038&metric=stalls&reducer=sum");
  EXPECT_EQ(single["metric"], "stalls");
  const auto text = raw().Get("/v1/route-metrics?src=nid00012&dst=38&metric=hops");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->body, R"({"metric":"hops","reducer":"max","value":5.0})");
  EXPECT_EQ(text->get_header_value("Content-Type"), "application/json");
  const auto matrix = client.metric_matrix({"nid00012", "nid00038", "0"}, q);
  ASSERT_EQ(matrix.size(), 9U);
  EXPECT_EQ(matrix[1], 5);
  EXPECT_EQ(matrix[4], 0);
}

TEST_F(ServerTest, BadRequestsGetJsonErrors) {
  auto c = raw();
  auto r = c.Post("/v1/route-metrics", "{not json", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), "invalid_json");
  r = c.Post("/v1/route-metrics", R"({"metric":"bw","pairs":[["nid00012","nid99999"]]})", "application/json");
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(error_code(r), "unknown_node");
  r = c.Post("/v1/route-metrics", R"({"metric":"latency","pairs":[]})", "application/json");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(r), "bad_request");
  r = c.Post("/v1/route-metrics", R"({"metric":"bw","pairs":[["nid00012"]]})", "application/json");
  EXPECT_EQ(r->status, 400);
  r = c.Post("/v1/route-metrics", R"({"window_s":"long","pairs":[]})", "application/json");
  EXPECT_EQ(r->status, 400);
  // The field and both types, not the JSON library's "[json.exception.type_error.302] ...".
  EXPECT_EQ(error_message(r), R"(field 'window_s' must be a number, not a JSON string ("long"))");
  r = c.Post("/v1/metric-matrix", R"({"nodes":[12,38],"endpoints":1})", "application/json");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_message(r), "field 'endpoints' must be true or false, not a JSON number (1)");
  r = c.Post("/v1/route-metrics", R"({"metric":["bw"],"pairs":[]})", "application/json");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_message(r), R"(field 'metric' must be a string, not a JSON array (["bw"]))");
  r = c.Get("/v1/route?src=nid00012");
  EXPECT_EQ(r->status, 400);
  r = c.Get("/v1/nodes/nobody");
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(error_code(r), "unknown_node");
  // Regression: a NUL in the name cut the message short ("unknown node '"), or the name ("a").
  r = c.Get("/v1/nodes/a%00b");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find(R"(unknown node 'a%00b')"), std::string::npos) << r->body;
  r = c.Get("/v2/everything");
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(error_code(r), "not_found");
  // A known path asked with another method: 405 and the methods it answers, not 404.
  r = c.Delete("/v1/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(error_code(r), "method_not_allowed");
  EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD");
  r = c.Get("/v1/metric-matrix");
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "POST");
  r = c.Put("/v1/route-metrics", "{}", "application/json");
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD, POST");
  r = c.Delete("/v1/nodes/nid00012");
  EXPECT_EQ(r->status, 405);
  r = c.Delete("/v1/nodes/nid00012/extra");
  EXPECT_EQ(r->status, 404);
  // Too many pairs, and a body over the size limit.
  Json many{{"pairs", Json::array()}};
  for (int i = 0; i < 1001; ++i) {
    many["pairs"].push_back({0, 1});
  }
  r = c.Post("/v1/route-metrics", many.dump(), "application/json");
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(error_code(r), "too_large");
  auto c2 = raw();
  r = c2.Post("/v1/route-metrics", std::string(std::size_t{100} * 1024, ' '), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  // Still healthy.
  Client client(url());
  EXPECT_EQ(client.health()["status"], "ok");
  EXPECT_THROW((void)client.node("nobody"), InputError);
  const auto metrics = raw().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("gridlock_oracle_errors_total{code=\"unknown_node\"} 4"), std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find("gridlock_oracle_link_used_bw_percent{link=\"(1,1,6) Z- -> (1,1,5)\"}"),
            std::string::npos);
}

// Every known path asked with a method it does not answer: 405 and the methods it answers, which
// come from the routes as registered.
TEST_F(ServerTest, EveryKnownPathNamesItsMethodsInA405) {
  auto c = raw();
  const std::vector<std::pair<std::string, std::string>> paths{{"/v1/health", "GET, HEAD"},
                                                               {"/v1/topology", "GET, HEAD"},
                                                               {"/v1/nodes", "GET, HEAD"},
                                                               {"/v1/nodes/nid00012", "GET, HEAD"},
                                                               {"/v1/route", "GET, HEAD"},
                                                               {"/v1/links", "GET, HEAD"},
                                                               {"/v1/route-metrics", "GET, HEAD, POST"},
                                                               {"/v1/metric-matrix", "POST"},
                                                               {"/metrics", "GET, HEAD"}};
  for (const auto& [path, allow] : paths) {
    const auto r = c.Delete(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 405) << path;
    EXPECT_EQ(r->get_header_value("Allow"), allow) << path;
    EXPECT_EQ(error_message(r),
              fmt::format("DELETE is not allowed on '{}': use {} (see docs/oracle.md)", path, allow));
  }
  for (const char* path : {"/v1/nodes/", "/v1/nodes/a/b", "/v1/healthz", "/v1"}) {
    const auto r = c.Delete(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(r->get_header_value("Allow"), "") << path;
  }
}

// Regression: `endpoints=maybe` (anything but true) was read as false and answered 200.
TEST_F(ServerTest, BooleanQueryParametersMustBeTrueOrFalse) {
  auto c = raw();
  const std::string path = "/v1/route-metrics?src=nid00012&dst=nid00038&metric=bw";
  for (const char* name : {"endpoints", "undirected"}) {
    for (const char* value : {"maybe", "1", "TRUE", ""}) {
      const auto r = c.Get(fmt::format("{}&{}={}", path, name, value));
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 400) << name << "=" << value;
      EXPECT_EQ(error_code(r), "bad_request");
      EXPECT_EQ(error_message(r), fmt::format("query parameter '{}={}' must be true or false", name, value));
    }
    for (const char* value : {"true", "false"}) {
      const auto r = c.Get(fmt::format("{}&{}={}", path, name, value));
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 200) << name << "=" << value << ": " << r->body;
    }
  }
  // The body of a POST gives a typed error for a non-boolean as well.
  const auto r = c.Post("/v1/route-metrics", R"({"endpoints":"maybe","pairs":[["nid00012","nid00038"]]})",
                        "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_message(r), R"(field 'endpoints' must be true or false, not a JSON string ("maybe"))");
}

// 1,000 requests in flight at once, each on its own connection and all sent before any answer
// is read; half of the connections are keep-alive ones that stay open and idle after their
// answer. Every request is answered, with the right status and a whole body.
TEST_F(ServerTest, ThousandRequestsInFlightAtOnceAllAnswered) {
  constexpr int kConnections = 1000;
  // Both ends of every connection are open in this process.
  constexpr rlim_t kFilesNeeded = 2 * kConnections + 100;
  rlimit files{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
  if (files.rlim_cur < kFilesNeeded) {
    if (files.rlim_max < kFilesNeeded) {
      GTEST_SKIP() << "needs " << kFilesNeeded << " open files; the hard limit is " << files.rlim_max;
    }
    files.rlim_cur = kFilesNeeded;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  }
  std::vector<std::unique_ptr<RawConnection>> connections;
  connections.reserve(kConnections);
  for (int i = 0; i < kConnections; ++i) {
    connections.push_back(std::make_unique<RawConnection>(port_));
    ASSERT_TRUE(connections.back()->connected()) << "connection " << i;
  }
  const std::string batch = R"({"metric":"stalls","pairs":[[0,63],[5,9]]})";
  for (int i = 0; i < kConnections; ++i) {
    std::string request;
    switch (i % 4) {
      case 0:
        request = "GET /v1/route-metrics?src=nid00012&dst=nid00038&metric=bw HTTP/1.1\r\n";
        break;
      case 1:
      case 2:
        request = "POST /v1/route-metrics HTTP/1.1\r\nContent-Type: application/json\r\n";
        break;
      default:
        request = "GET /v1/health HTTP/1.1\r\n";
        break;
    }
    request += "Host: t\r\n";
    if (i % 2 == 1) {
      request += "Connection: close\r\n";
    }
    const std::string body = i % 4 == 1 ? batch : i % 4 == 2 ? "[[[" : "";
    if (!body.empty()) {
      request += "Content-Length: ";
      request += std::to_string(body.size());
      request += "\r\n";
    }
    request += "\r\n";
    request += body;
    ASSERT_TRUE(connections[static_cast<std::size_t>(i)]->send(request)) << "connection " << i;
  }
  int answered = 0;
  for (int i = 0; i < kConnections; ++i) {
    const std::string response = connections[static_cast<std::size_t>(i)]->read_response();
    const std::string status = i % 4 == 2 ? "HTTP/1.1 400" : "HTTP/1.1 200";
    const std::string body_mark = i % 4 == 0   ? R"("value":64.0)"
                                  : i % 4 == 1 ? R"("metric":"stalls")"
                                  : i % 4 == 2 ? R"("code":"invalid_json")"
                                               : R"("ok")";
    if (response.rfind(status, 0) == 0 && response.find(body_mark) != std::string::npos &&
        response.back() == '}') {
      ++answered;
    } else {
      ADD_FAILURE() << "connection " << i << ": " << response.substr(0, 300);
    }
  }
  EXPECT_EQ(answered, kConnections);
  EXPECT_GE(server_->requests(), static_cast<std::uint64_t>(kConnections));
}

TEST_F(ServerTest, ThousandConcurrentRequestsAllAnswered) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 125;
  std::atomic<int> ok{0};
  std::atomic<int> expected_errors{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      c.set_read_timeout(30, 0);
      c.set_connection_timeout(30, 0);
      c.set_keep_alive(t % 2 == 0);
      c.set_tcp_nodelay(true);
      for (int i = 0; i < kPerThread; ++i) {
        const int kind = (t * kPerThread + i) % 4;
        const auto r = [&] {
          switch (kind) {
            case 0:
              return c.Get("/v1/route-metrics?src=nid00012&dst=nid00038&metric=bw");
            case 1:
              return c.Post("/v1/route-metrics", R"({"metric":"stalls","pairs":[[0,63],[5,9]]})",
                            "application/json");
            case 2:
              return c.Post("/v1/route-metrics", "[[[", "application/json");
            default:
              return c.Get("/v1/health");
          }
        }();
        if (r && r->status == (kind == 2 ? 400 : 200)) {
          ++(kind == 2 ? expected_errors : ok);
        } else {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ok.load() + expected_errors.load(), kThreads * kPerThread);
  EXPECT_EQ(expected_errors.load(), kThreads * kPerThread / 4);
  EXPECT_GE(server_->requests(), static_cast<std::uint64_t>(kThreads * kPerThread));
}

TEST_F(ServerTest, PipelinedRequestsAreAllAnswered) {
  // Regression: cpp-httplib's own connection loop dropped a request that arrived in the same
  // read as the previous one (it made a new buffered stream per request).
  RawConnection conn(port_);
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(
      conn.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
                "GET /v1/route-metrics?src=nid00012&dst=nid00038&metric=hops HTTP/1.1\r\nHost: x\r\n\r\n"
                "GET /v1/topology HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const auto answer = conn.read_until_closed();
  EXPECT_TRUE(conn.closed_by_server());
  EXPECT_EQ(count_of(answer, "HTTP/1.1 200 OK\r\n"), 3U) << answer;
  EXPECT_NE(answer.find(R"("value":5.0)"), std::string::npos) << answer;
  EXPECT_NE(answer.find(R"("nodes":64)"), std::string::npos) << answer;
}

TEST_F(ServerTest, RequestSplitAcrossWritesIsAnswered) {
  RawConnection conn(port_);
  ASSERT_TRUE(conn.connected());
  const std::string body = R"({"metric":"hops","pairs":[["nid00012","nid00038"]]})";
  const std::vector<std::string> parts{
      "PO", "ST /v1/route-metrics HTTP/1.1\r\nHo",
      "st: x\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n",
      "\r\n" + body.substr(0, 10), body.substr(10)};
  for (const auto& part : parts) {
    ASSERT_TRUE(conn.send(part));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto answer = conn.read_until_closed();
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0U) << answer;
  EXPECT_NE(answer.find(R"("values":[5.0])"), std::string::npos) << answer;
}

TEST_F(ServerTest, ExpectContinueGetsTheInterimAnswerBeforeTheBody) {
  // The server collects an answer before sending it; "100 Continue" must go out while it waits.
  RawConnection conn(port_);
  ASSERT_TRUE(conn.connected());
  const std::string body = R"({"metric":"hops","pairs":[[12,38]]})";
  ASSERT_TRUE(
      conn.send("POST /v1/route-metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                "Expect: 100-continue\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n"));
  const auto interim = conn.read_until("\r\n\r\n");
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(conn.send(body));
  const auto answer = conn.read_until_closed();
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0U) << answer;
}

TEST_F(ServerTest, LargeAnswerArrivesWhole) {
  // Answers over the server's 64 KiB write buffer are sent from the body itself.
  Json nodes = Json::array();
  for (int i = 0; i < 320; ++i) {
    nodes.push_back(i % 64);
  }
  auto c = raw();
  const auto r =
      c.Post("/v1/metric-matrix", Json{{"metric", "hops"}, {"nodes", nodes}}.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_GT(r->body.size(), 64U * 1024U);
  const Json answer = Json::parse(r->body);
  ASSERT_EQ(answer["matrix"].size(), 320U);
  EXPECT_EQ(answer["matrix"][12][38], 5);
  EXPECT_EQ(answer["matrix"][319][319], 0);
}

// An oracle over an unloaded default torus, for the tests that start servers of their own.
struct IdleOracle {
  topo::Torus3D topo{topo::TorusOptions{}};
  MetricStore store{topo};
  Oracle oracle{topo, store};
};

// A server of its own over an idle oracle, started on an ephemeral loopback port, for the tests
// that need particular server options.
struct IdleServer : IdleOracle {
  explicit IdleServer(ServerOptions options) : server(oracle, on_ephemeral_port(std::move(options))) {}
  Server server;
  int port = server.start();

 private:
  static ServerOptions on_ephemeral_port(ServerOptions options) {
    options.port = 0;
    return options;
  }
};

TEST(ServerTimeouts, ClientThatStopsSendingIsDisconnected) {
  ServerOptions options;
  options.header_timeout_s = 1;
  const IdleServer idle_server(options);
  const int port = idle_server.port;
  ASSERT_GT(port, 0);
  RawConnection conn(port);
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(conn.send("GET /v1/health HTTP/1.1\r\nHo"));
  // The server gives up on the request after its read timeout and closes the connection; the
  // 20 s receive timeout of RawConnection would leave the test with nothing at all.
  const auto answer = conn.read_until_closed();
  EXPECT_TRUE(conn.closed_by_server());
  EXPECT_EQ(answer.find("200 OK"), std::string::npos) << answer;
  Client client("127.0.0.1:" + std::to_string(port), 5);
  EXPECT_EQ(client.health()["status"], "ok");
}

// Idle keep-alive clients must not keep new clients waiting (with a thread per connection, 1,000
// keep-alive clients on 8 workers got 244 answers in 30 s): the event loop serves a new client
// while the idle ones stay open and can still be answered.
TEST(ServerKeepAlive, IdleConnectionsDoNotDelayNewOnes) {
  ServerOptions options;
  options.threads = 1;
  options.keep_alive_s = 60;
  IdleServer idle_server(options);
  const int port = idle_server.port;
  ASSERT_GT(port, 0);
  const std::string keep_alive = "GET /v1/health HTTP/1.1\r\nHost: test\r\n\r\n";
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(std::make_unique<RawConnection>(port));
    ASSERT_TRUE(idle.back()->connected());
    ASSERT_TRUE(idle.back()->send(keep_alive));
    ASSERT_NE(idle.back()->read_response().find("\"ok\""), std::string::npos);
  }
  RawConnection late(port);
  ASSERT_TRUE(late.connected());
  ASSERT_TRUE(late.send("GET /v1/health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"));
  const std::string answer = late.read_until_closed();
  EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
  EXPECT_TRUE(late.closed_by_server());
  ASSERT_TRUE(idle.front()->send(keep_alive));
  EXPECT_NE(idle.front()->read_response().find("200 OK"), std::string::npos);
  idle_server.server.stop();
}

// A new connection that has not sent its first request yet does not hold up another one on the
// only event-loop thread.
TEST(ServerKeepAlive, NewConnectionKeepsItsWorkerUntilItsFirstRequest) {
  ServerOptions options;
  options.threads = 1;
  options.keep_alive_s = 60;
  IdleServer idle_server(options);
  const int port = idle_server.port;
  ASSERT_GT(port, 0);
  RawConnection slow(port);
  ASSERT_TRUE(slow.connected());
  RawConnection queued(port);
  ASSERT_TRUE(queued.connected());
  const std::string request = "GET /v1/health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
  ASSERT_TRUE(queued.send(request));
  // Not a measurement: long enough for the worker to have looked at the queue several times.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(slow.send(request));
  EXPECT_NE(slow.read_until_closed().find("200 OK"), std::string::npos);
  EXPECT_NE(queued.read_until_closed().find("200 OK"), std::string::npos);
  idle_server.server.stop();
}

// The message of the IoError that server.start() throws.
std::string start_error(Server& server) {
  try {
    (void)server.start();
  } catch (const IoError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ServerStart, UnbindableAddressIsAnIoError) {
  const IdleOracle idle_oracle;
  const Oracle& oracle = idle_oracle.oracle;
  ServerOptions options;
  options.host = "192.0.2.1";  // TEST-NET-1: never a local address
  options.port = 0;
  Server server(oracle, options);
  EXPECT_THROW((void)server.start(), IoError);
  // cpp-httplib says only that binding failed; the message says why.
  EXPECT_NE(start_error(server).find("192.0.2.1 is not an address of this machine"), std::string::npos)
      << start_error(server);
  options.host = "no-such-host.invalid";
  Server unresolved(oracle, options);
  EXPECT_NE(start_error(unresolved).find("neither an address nor a host name this machine can resolve"),
            std::string::npos)
      << start_error(unresolved);
}

TEST(ServerStart, PortInUseIsAnIoError) {
  // Regression: with cpp-httplib's default SO_REUSEPORT both servers bound the same port.
  const IdleOracle idle_oracle;
  const Oracle& oracle = idle_oracle.oracle;
  ServerOptions options;
  options.port = 0;
  Server first(oracle, options);
  const int port = first.start();
  ASSERT_GT(port, 0);
  options.port = port;
  Server second(oracle, options);
  EXPECT_THROW((void)second.start(), IoError);
  EXPECT_NE(start_error(second).find("port " + std::to_string(port) + " is already in use"),
            std::string::npos)
      << start_error(second);
  Client client("127.0.0.1:" + std::to_string(port), 5);
  EXPECT_EQ(client.health()["status"], "ok");
}

TEST(ClientUrl, RejectsMalformedUrls) {
  EXPECT_THROW(Client("http://localhost"), InputError);
  EXPECT_THROW(Client("localhost:99999"), InputError);
  const auto message = [](const std::string& url) {
    try {
      Client c(url);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // https used to become part of the host ("cannot reach ... http://https://..."), a path part of
  // the port ("port '34413/v1' must be 1..65535").
  EXPECT_NE(message("https://127.0.0.1:8600").find("https:// is not supported"), std::string::npos)
      << message("https://127.0.0.1:8600");
  EXPECT_NE(message("http://127.0.0.1:8600/v1").find("must not have a path ('/v1')"), std::string::npos)
      << message("http://127.0.0.1:8600/v1");
  EXPECT_NO_THROW(Client("http://127.0.0.1:8600/"));
  // An IPv6 address goes in brackets; without them its colons were taken for the port's.
  EXPECT_NO_THROW(Client("http://[::1]:8600"));
  EXPECT_NE(message("http://::1:8600").find("an IPv6 address goes in brackets"), std::string::npos)
      << message("http://::1:8600");
  EXPECT_NE(message("http://[::1:8600").find("an IPv6 address goes in brackets"), std::string::npos)
      << message("http://[::1:8600");
  Client unreachable("127.0.0.1:1", 2);
  EXPECT_THROW((void)unreachable.health(), IoError);
  // cpp-httplib's one-word "Connection" is said in full.
  try {
    (void)unreachable.health();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("connection refused, or the host is unreachable"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(url_encode("a b/c"), "a%20b%2Fc");
}

// A server that is not an oracle (a proxy, another service on the port) must not be reported as
// "the oracle answered ...": the message names the server and asks whether it is an oracle.
TEST(ClientErrors, AServerThatIsNotAnOracleIsNamedAsSuch) {
  httplib::Server other;
  other.Get("/v1/health", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<html>hello</html>", "text/html");
  });
  other.Get("/v1/topology", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("<html>not found</html>", "text/html");
  });
  other.Get("/v1/nodes/x", [](const httplib::Request&, httplib::Response& res) {
    // An error object whose fields are not strings must not make the client throw a JSON error.
    res.status = 404;
    res.set_content(R"({"error": {"code": 7, "message": ["x"]}})", "application/json");
  });
  const int port = other.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&other] { other.listen_after_bind(); });
  // bind_to_any_port() already listens: connections made before the thread accepts wait in the backlog.
  // The client's keep-alive connection would hold stop() for the server's keep-alive timeout.
  other.set_keep_alive_max_count(1);
  Client client("127.0.0.1:" + std::to_string(port), 5);
  const auto message_of = [](const auto& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string not_json = message_of([&] { (void)client.health(); });
  EXPECT_NE(not_json.find("the server at http://127.0.0.1:" + std::to_string(port)), std::string::npos)
      << not_json;
  EXPECT_NE(not_json.find("not JSON"), std::string::npos) << not_json;
  EXPECT_NE(not_json.find("is it a gridlock oracle"), std::string::npos) << not_json;
  const std::string not_found = message_of([&] { (void)client.topology(); });
  EXPECT_NE(not_found.find("answered GET /v1/topology with HTTP 404"), std::string::npos) << not_found;
  EXPECT_EQ(not_found.find("the oracle"), std::string::npos) << not_found;
  EXPECT_THROW((void)client.topology(), InputError);
  const std::string odd = message_of([&] { (void)client.node("x"); });
  EXPECT_NE(odd.find("the oracle at http://127.0.0.1:"), std::string::npos) << odd;
  EXPECT_NE(odd.find("with error: "), std::string::npos) << odd;
  other.stop();
  serving.join();
}

}  // namespace
}  // namespace gridlock::oracle

namespace gridlock::oracle {
namespace {

// A client sending its header one byte at a time, forever within the inactivity timeout, is
// closed when its header time (header_timeout_s from the connection's opening) runs out.
TEST(ServerBounds, SlowHeaderClientIsCutOff) {
  ServerOptions options;
  options.header_timeout_s = 1;
  IdleServer idle_server(options);
  ASSERT_GT(idle_server.port, 0);
  RawConnection slow(idle_server.port);
  ASSERT_TRUE(slow.connected());
  const std::string request = "GET /v1/health HTTP/1.1\r\nHost: test\r\nX-Padding: " + std::string(200, 'a');
  bool cut_off = false;
  // Up to 10 s of bytes 50 ms apart; the server cuts the client off after about 1 s.
  for (std::size_t i = 0; i < request.size() && !cut_off; ++i) {
    cut_off = !slow.send(request.substr(i, 1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto answer = slow.read_until_closed();
  EXPECT_TRUE(cut_off || slow.closed_by_server());
  EXPECT_EQ(answer.find("200 OK"), std::string::npos) << answer;
  Client client("127.0.0.1:" + std::to_string(idle_server.port), 5);
  const Json health = client.health();
  EXPECT_EQ(health["status"], "ok");
  EXPECT_GE(health["header_timeouts"].get<int>(), 1);
  idle_server.server.stop();
}

// Health answers while slow-header and idle clients hold connections open (it is not asserted
// how fast: the machine is shared).
TEST(ServerBounds, HealthAnswersWhileSlowClientsAreConnected) {
  ServerOptions options;
  options.threads = 2;
  IdleServer idle_server(options);
  ASSERT_GT(idle_server.port, 0);
  std::vector<std::unique_ptr<RawConnection>> clients;
  for (int i = 0; i < 40; ++i) {
    clients.push_back(std::make_unique<RawConnection>(idle_server.port));
    ASSERT_TRUE(clients.back()->connected());
    if (i < 8) {
      ASSERT_TRUE(clients.back()->send("GET /v1/health HTTP/1.1\r\nHo"));
    }
  }
  Client client("127.0.0.1:" + std::to_string(idle_server.port), 5);
  for (int i = 0; i < 5; ++i) {
    const Json health = client.health();
    EXPECT_EQ(health["status"], "ok");
    EXPECT_GE(health["connections"].get<int>(), 40);
  }
  idle_server.server.stop();
}

// Whether the server has closed `conn` (it reads as ended or broken), without waiting.
bool closed_by_server(const RawConnection& conn) {
  pollfd p{conn.fd(), POLLIN, 0};
  if (::poll(&p, 1, 0) != 1) {
    return false;
  }
  std::array<char, 256> buf{};
  return ::recv(conn.fd(), buf.data(), buf.size(), MSG_DONTWAIT) <= 0;
}

// Issue 36: 400 connections that each sent `POST /v1/route-metrics` with `Content-Length: 100000`
// and then one body byte every 2 s made the service unreachable for as long as they liked: the
// header deadline ended with the header, and libmicrohttpd's idle timeout restarts with every
// byte. Now (a) a request must arrive whole within request_timeout_s of its first line, (b) health
// answers a fresh client meanwhile, and (c) the per-address limit refuses the excess. Smaller
// numbers than the attack's, with limits to match.
TEST(ServerBounds, SlowBodiesAreCutOffAtTheRequestDeadline) {
  ServerOptions options;
  options.threads = 2;
  options.request_timeout_s = 2;
  options.max_connections_per_address = 20;
  IdleServer idle_server(options);
  ASSERT_GT(idle_server.port, 0);
  const std::string header =
      "POST /v1/route-metrics HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
      "Content-Length: 100000\r\n\r\n{";
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 30; ++i) {
    slow.push_back(std::make_unique<RawConnection>(idle_server.port, "127.0.0.1"));
    ASSERT_TRUE(slow.back()->connected());
    (void)slow.back()->send(header);  // fails for a connection already refused
  }
  const auto health = [&] {
    RawConnection fresh(idle_server.port, "127.0.0.2");
    EXPECT_TRUE(fresh.connected());
    EXPECT_TRUE(fresh.send("GET /v1/health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"));
    const std::string answer = fresh.read_until_closed();
    const auto body = answer.find("\r\n\r\n");
    EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
    return body == std::string::npos ? Json::object() : Json::parse(answer.substr(body + 4), nullptr, false);
  };
  // (b) and (c): answered while the slow clients are connected (a generous bound: the machine is
  // shared), and no more than 20 of them (plus the health client) are open.
  const auto asked = std::chrono::steady_clock::now();
  const Json during = health();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(1));
  ASSERT_TRUE(during.is_object());
  EXPECT_LE(during.value("connections", 0), 21 + static_cast<int>(kHealthConnectionsPerAddress))
      << during.dump();
  // (a): one body byte every 200 ms on every connection; all of them are closed by the server
  // within the 2 s deadline (and the reaper's 200 ms), long before the 100,000 bytes are sent.
  const auto start = std::chrono::steady_clock::now();
  std::size_t closed = 0;
  while (closed < slow.size() && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    closed = 0;
    for (const auto& conn : slow) {
      if (closed_by_server(*conn)) {
        ++closed;
      } else {
        (void)conn->send(" ");
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(closed, slow.size());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const Json after = health();
  // Only the 20 the per-address limit let in were ever in a request.
  EXPECT_EQ(after.value("request_timeouts", 0), 20) << after.dump();
  idle_server.server.stop();
}

// Issue 36: with an address's connections all taken by slow clients, /v1/health from that same
// address was refused (the per-address limit closed the connection at once). Now a few connections
// past the limit answer health, and nothing else: other requests get 429 before their body is read.
TEST(ServerBounds, HealthAnswersFromAnAddressAtItsLimit) {
  ServerOptions options;
  options.threads = 2;
  options.max_connections_per_address = 4;
  IdleServer idle_server(options);
  ASSERT_GT(idle_server.port, 0);
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (unsigned i = 0; i < options.max_connections_per_address; ++i) {
    slow.push_back(std::make_unique<RawConnection>(idle_server.port, "127.0.0.1"));
    ASSERT_TRUE(slow.back()->connected());
    ASSERT_TRUE(slow.back()->send(
        "POST /v1/route-metrics HTTP/1.1\r\nHost: test\r\nContent-Length: 100000\r\n\r\n{"));
  }
  // The slow clients' connections are registered before the next ones open.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int round = 0; round < 3; ++round) {
    RawConnection health(idle_server.port, "127.0.0.1");
    ASSERT_TRUE(health.connected());
    ASSERT_TRUE(health.send("GET /v1/health HTTP/1.1\r\nHost: test\r\n\r\n"));
    const std::string answer = health.read_until_closed();
    EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
    EXPECT_TRUE(health.closed_by_server()) << "a connection past the limit closes after its answer";
  }
  RawConnection other(idle_server.port, "127.0.0.1");
  ASSERT_TRUE(other.connected());
  ASSERT_TRUE(other.send("POST /v1/route-metrics HTTP/1.1\r\nHost: test\r\nContent-Length: 100000\r\n\r\n{"));
  const std::string refused = other.read_until_closed();
  EXPECT_NE(refused.find("429"), std::string::npos) << refused;
  EXPECT_NE(refused.find("too_many_connections"), std::string::npos) << refused;
  EXPECT_TRUE(other.closed_by_server());
  idle_server.server.stop();
}

TEST(ServerBounds, RequestTimeoutOutOfRangeIsRefused) {
  const IdleOracle idle_oracle;
  for (const int seconds : {0, kMaxRequestTimeoutS + 1}) {
    ServerOptions options;
    options.port = 0;
    options.request_timeout_s = seconds;
    Server server(idle_oracle.oracle, options);
    EXPECT_THROW((void)server.start(), InputError) << seconds;
  }
}

// A body over the limit is refused with 413 before it is read whole: declared too long, or
// chunked and passing the limit as it streams in (the rest is never sent here).
TEST_F(ServerTest, OversizedBodiesAre413BeforeTheyAreRead) {
  {
    RawConnection conn(port_);
    ASSERT_TRUE(conn.connected());
    ASSERT_TRUE(
        conn.send("POST /v1/route-metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 300000000\r\n\r\n{"));
    const auto answer = conn.read_response();
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0U) << answer;
    EXPECT_NE(answer.find("too_large"), std::string::npos) << answer;
  }
  {
    RawConnection conn(port_);
    ASSERT_TRUE(conn.connected());
    ASSERT_TRUE(
        conn.send("POST /v1/route-metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"));
    // 16 KiB chunks up to 160 KiB, over the 64 KiB limit; a 300 MB body would follow.
    const std::string chunk = "4000\r\n" + std::string(0x4000, ' ') + "\r\n";
    for (int i = 0; i < 10; ++i) {
      if (!conn.send(chunk)) {
        break;  // the server has answered and closed
      }
    }
    const auto answer = conn.read_response();
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0U) << answer;
  }
  Client client(url());
  EXPECT_EQ(client.health()["status"], "ok");
}

// Unknown fields and query parameters are 400 naming them (they used to be ignored), and a
// request that names no metric gets the one documented default, `bw`, on every endpoint.
TEST_F(ServerTest, UnknownFieldsAre400AndTheDefaultMetricIsBw) {
  auto c = raw();
  auto r = c.Post("/v1/route-metrics", R"({"metrc":"hops","pairs":[[12,38]]})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_message(r),
            "unknown field 'metrc' in the body of /v1/route-metrics: use pairs, metric, reducer, window_s, "
            "endpoints, undirected");
  r = c.Post("/v1/metric-matrix", R"({"nodes":[12,38],"pairs":[]})", "application/json");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(error_message(r).find("unknown field 'pairs'"), std::string::npos) << r->body;
  r = c.Get("/v1/route-metrics?src=12&dst=38&widnow_s=5");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(error_message(r).find("unknown query parameter 'widnow_s' for /v1/route-metrics"),
            std::string::npos)
      << r->body;
  r = c.Get("/v1/health?verbose=1");
  EXPECT_EQ(r->status, 400);
  r = c.Get("/v1/route-metrics?src=12&dst=38&src=13");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_message(r), "query parameter 'src' is given twice");
  r = c.Get("/v1/route-metrics?src=nid00012&dst=nid00038");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(Json::parse(r->body)["metric"], "bw");
  r = c.Post("/v1/route-metrics", R"({"pairs":[[12,38]]})", "application/json");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(Json::parse(r->body)["metric"], "bw");
  r = c.Post("/v1/metric-matrix", R"({"nodes":[12,38]})", "application/json");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(Json::parse(r->body)["metric"], "bw");
}

TEST(ServerAddress, LoopbackHostsAreRecognized) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "localhost"}) {
    EXPECT_TRUE(is_loopback_host(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "192.0.2.1", "example.org", ""}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

}  // namespace
}  // namespace gridlock::oracle
