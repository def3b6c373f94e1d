// Oracle performance (issue 4, section 5): one-pair queries over loopback at 1,000 queries/s (p99),
// a 4,096-pair batch (loopback and in-process), the all-pairs matrix of 1,024 nodes.
// Topology: torus:8x8x8 with two nodes per router (1,024 nodes), loaded by 1,024 random flows.
#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <httplib.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/oracle/oracle.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace {

using gridlock::oracle::Metric;
using gridlock::oracle::MetricQuery;
using gridlock::oracle::Reducer;

// The oracle under test, with a server on an ephemeral loopback port.
struct Fixture {
  std::unique_ptr<gridlock::topo::Topology> topo = gridlock::topo::make_topology("torus:8x8x8,npr=2");
  std::unique_ptr<gridlock::oracle::MetricStore> store =
      std::make_unique<gridlock::oracle::MetricStore>(*topo);
  std::unique_ptr<gridlock::oracle::Oracle> oracle;
  std::unique_ptr<gridlock::oracle::Server> server;
  int port = 0;

  Fixture() {
    gridlock::Rng rng(42);
    const auto n = topo->nodes().size();
    std::vector<gridlock::oracle::Flow> flows;
    for (std::size_t i = 0; i < n; ++i) {
      flows.push_back({static_cast<gridlock::topo::NodeId>(gridlock::uniform_below(rng, n)),
                       static_cast<gridlock::topo::NodeId>(gridlock::uniform_below(rng, n)), 2e9});
    }
    gridlock::oracle::SimulatedLoad sim(*topo, flows);
    sim.poll(*store, 1.0);
    oracle = std::make_unique<gridlock::oracle::Oracle>(*topo, *store);
    gridlock::oracle::ServerOptions options;
    options.port = 0;
    options.threads = 4;
    server = std::make_unique<gridlock::oracle::Server>(*oracle, options);
    port = server->start();
  }
};

std::vector<std::pair<gridlock::topo::NodeId, gridlock::topo::NodeId>> random_pairs(const Fixture& f,
                                                                                    std::size_t count) {
  gridlock::Rng rng(7);
  const auto n = f.topo->nodes().size();
  std::vector<std::pair<gridlock::topo::NodeId, gridlock::topo::NodeId>> pairs;
  for (std::size_t i = 0; i < count; ++i) {
    pairs.emplace_back(static_cast<gridlock::topo::NodeId>(gridlock::uniform_below(rng, n)),
                       static_cast<gridlock::topo::NodeId>(gridlock::uniform_below(rng, n)));
  }
  return pairs;
}

httplib::Client client(const Fixture& f) {
  httplib::Client c("127.0.0.1", f.port);
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);
  return c;
}

// One-pair GET /v1/route-metrics paced at 1,000 queries/s; reports p50/p99/max latency in µs.
void BM_OneQueryLoopback1000qps(benchmark::State& state) {
  const Fixture f;
  auto c = client(f);
  const auto pairs = random_pairs(f, 3000);
  std::vector<double> latency_us;
  for (auto _ : state) {
    latency_us.clear();
    auto next = std::chrono::steady_clock::now();
    for (const auto& [src, dst] : pairs) {
      std::this_thread::sleep_until(next);
      next += std::chrono::milliseconds(1);
      const auto path = "/v1/route-metrics?src=" + std::to_string(src) + "&dst=" + std::to_string(dst) +
                        "&metric=bw&reducer=max";
      const auto t0 = std::chrono::steady_clock::now();
      auto r = c.Get(path);
      const auto t1 = std::chrono::steady_clock::now();
      if (!r || r->status != 200) {
        state.SkipWithError("request failed");
        return;
      }
      latency_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  std::sort(latency_us.begin(), latency_us.end());
  const auto at = [&](double q) { return latency_us[static_cast<std::size_t>(q * (latency_us.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = latency_us.back();
}
BENCHMARK(BM_OneQueryLoopback1000qps)->Iterations(1)->Unit(benchmark::kMillisecond);

// The server-side work of one query, in-process: route + snapshot lookup + reduction.
void BM_OneQueryInProcess(benchmark::State& state) {
  const Fixture f;
  const auto pairs = random_pairs(f, 4096);
  MetricQuery q;
  q.metric = Metric::kBandwidth;
  q.reducer = Reducer::kMax;
  std::size_t i = 0;
  for (auto _ : state) {
    auto values = f.oracle->route_metrics({pairs[i++ % pairs.size()]}, q);
    benchmark::DoNotOptimize(values);
  }
}
BENCHMARK(BM_OneQueryInProcess)->Unit(benchmark::kMicrosecond);

// A minimal keep-alive HTTP/1.1 client on a blocking socket, so the latency measured is the
// server's and the kernel's, not a client library's.
class RawClient {
 public:
  explicit RawClient(int port) : port_(port) { connect(); }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  RawClient(RawClient&&) = delete;
  RawClient& operator=(RawClient&&) = delete;

  // Sends a GET and reads the whole answer, reconnecting once when the server closed the
  // connection (it does after 1,000 requests); false on any error or a non-200 status.
  bool get(const std::string& path) { return get_once(path) || (connect() && get_once(path)); }

 private:
  bool connect() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  }

  bool get_once(const std::string& path) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
      return false;
    }
    buffer_.clear();
    std::size_t header_end = std::string::npos;
    std::size_t body_length = 0;
    std::array<char, 4096> chunk{};
    while (true) {
      const auto got = ::recv(fd_, chunk.data(), chunk.size(), 0);
      if (got <= 0) {
        return false;
      }
      buffer_.append(chunk.data(), static_cast<std::size_t>(got));
      if (header_end == std::string::npos) {
        header_end = buffer_.find("\r\n\r\n");
        if (header_end == std::string::npos) {
          continue;
        }
        const auto at = buffer_.find("Content-Length: ");
        if (at == std::string::npos || buffer_.compare(0, 12, "HTTP/1.1 200") != 0) {
          return false;
        }
        body_length = std::stoul(buffer_.substr(at + 16, buffer_.find("\r\n", at) - at - 16));
      }
      if (buffer_.size() >= header_end + 4 + body_length) {
        return true;
      }
    }
  }

  int port_;
  int fd_ = -1;
  std::string buffer_;
};

// One-pair GET /v1/route-metrics paced at 1,000 queries/s through RawClient.
void BM_OneQueryLoopback1000qpsRawClient(benchmark::State& state) {
  const Fixture f;
  RawClient c(f.port);
  const auto pairs = random_pairs(f, 3000);
  std::vector<double> latency_us;
  for (auto _ : state) {
    latency_us.clear();
    auto next = std::chrono::steady_clock::now();
    for (const auto& [src, dst] : pairs) {
      std::this_thread::sleep_until(next);
      next += std::chrono::milliseconds(1);
      const auto path = "/v1/route-metrics?src=" + std::to_string(src) + "&dst=" + std::to_string(dst) +
                        "&metric=bw&reducer=max";
      const auto t0 = std::chrono::steady_clock::now();
      const bool ok = c.get(path);
      const auto t1 = std::chrono::steady_clock::now();
      if (!ok) {
        state.SkipWithError("request failed");
        return;
      }
      latency_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  std::sort(latency_us.begin(), latency_us.end());
  const auto at = [&](double q) { return latency_us[static_cast<std::size_t>(q * (latency_us.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = latency_us.back();
}
BENCHMARK(BM_OneQueryLoopback1000qpsRawClient)->Iterations(1)->Unit(benchmark::kMillisecond);

// Baseline for the machine: a bare TCP echo over loopback (90 bytes out, 90 back), paced the same
// way, no HTTP, no oracle. The oracle's one-query latency cannot be lower than this.
void BM_LoopbackEchoBaseline1000qps(benchmark::State& state) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 1) != 0 || ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    state.SkipWithError("cannot listen");
    return;
  }
  std::thread echo([listener] {
    const int fd = ::accept(listener, nullptr, nullptr);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::array<char, 4096> buf{};
    while (true) {
      const auto got = ::recv(fd, buf.data(), buf.size(), 0);
      if (got <= 0 || ::send(fd, buf.data(), static_cast<std::size_t>(got), MSG_NOSIGNAL) != got) {
        break;
      }
    }
    ::close(fd);
  });
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const bool connected = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  std::vector<double> latency_us;
  const std::string message(90, 'x');
  std::array<char, 4096> buf{};
  for (auto _ : state) {
    auto next = std::chrono::steady_clock::now();
    for (int i = 0; i < 3000 && connected; ++i) {
      std::this_thread::sleep_until(next);
      next += std::chrono::milliseconds(1);
      const auto t0 = std::chrono::steady_clock::now();
      ::send(fd, message.data(), message.size(), MSG_NOSIGNAL);
      std::size_t got = 0;
      while (got < message.size()) {
        const auto n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n <= 0) {
          break;
        }
        got += static_cast<std::size_t>(n);
      }
      const auto t1 = std::chrono::steady_clock::now();
      latency_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  ::close(fd);
  echo.join();
  ::close(listener);
  if (latency_us.empty()) {
    state.SkipWithError("cannot connect");
    return;
  }
  std::sort(latency_us.begin(), latency_us.end());
  const auto at = [&](double q) { return latency_us[static_cast<std::size_t>(q * (latency_us.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = latency_us.back();
}
BENCHMARK(BM_LoopbackEchoBaseline1000qps)->Iterations(1)->Unit(benchmark::kMillisecond);

// POST /v1/route-metrics with 4,096 pairs (JSON encode, HTTP, decode included).
void BM_Batch4096Loopback(benchmark::State& state) {
  const Fixture f;
  auto c = client(f);
  gridlock::Json body{{"metric", "bw"}, {"reducer", "max"}, {"pairs", gridlock::Json::array()}};
  for (const auto& [src, dst] : random_pairs(f, 4096)) {
    body["pairs"].push_back({src, dst});
  }
  const std::string text = body.dump();
  for (auto _ : state) {
    auto r = c.Post("/v1/route-metrics", text, "application/json");
    if (!r || r->status != 200) {
      state.SkipWithError("request failed");
      return;
    }
    auto answer = gridlock::Json::parse(r->body);
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_Batch4096Loopback)->Unit(benchmark::kMillisecond);

// The same 4,096 pairs computed in-process (routing + reduction only).
void BM_Batch4096InProcess(benchmark::State& state) {
  const Fixture f;
  const auto pairs = random_pairs(f, 4096);
  MetricQuery q;
  q.metric = Metric::kBandwidth;
  q.reducer = Reducer::kMax;
  for (auto _ : state) {
    auto values = f.oracle->route_metrics(pairs, q);
    benchmark::DoNotOptimize(values);
  }
}
BENCHMARK(BM_Batch4096InProcess)->Unit(benchmark::kMillisecond);

// All-pairs bw matrix of the 1,024 nodes (1,047,552 routes), in-process.
void BM_AllPairs1024InProcess(benchmark::State& state) {
  const Fixture f;
  std::vector<gridlock::topo::NodeId> nodes(f.topo->nodes().size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i] = static_cast<gridlock::topo::NodeId>(i);
  }
  MetricQuery q;
  q.metric = Metric::kBandwidth;
  q.reducer = Reducer::kMax;
  for (auto _ : state) {
    auto values = f.oracle->metric_matrix(nodes, q);
    benchmark::DoNotOptimize(values);
  }
}
BENCHMARK(BM_AllPairs1024InProcess)->Unit(benchmark::kMillisecond);

// The same matrix over loopback: POST /v1/metric-matrix (about 10 MB of JSON back).
void BM_AllPairs1024Loopback(benchmark::State& state) {
  const Fixture f;
  auto c = client(f);
  c.set_read_timeout(60, 0);
  gridlock::Json body{{"metric", "bw"}, {"reducer", "max"}, {"nodes", gridlock::Json::array()}};
  for (std::size_t i = 0; i < f.topo->nodes().size(); ++i) {
    body["nodes"].push_back(i);
  }
  const std::string text = body.dump();
  for (auto _ : state) {
    auto r = c.Post("/v1/metric-matrix", text, "application/json");
    if (!r || r->status != 200) {
      state.SkipWithError("request failed");
      return;
    }
    auto answer = gridlock::Json::parse(r->body);
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_AllPairs1024Loopback)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
