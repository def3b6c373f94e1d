// Oracle under load (issue 23 part 3): one-pair query latency at a fixed request rate over many
// keep-alive connections, and /v1/health latency while slow-header and idle clients hold
// connections open. Open loop: request i is due at start + i / rate, and its latency counts from
// that due time (a server that falls behind is not hidden by a client that waits for it).
//
//   oracle_load_bench [--seconds S] [--threads N]
//
// The oracle runs in this process (oracle::Service + Server, torus:8x8x8,npr=2 loaded by 1,024
// random flows, seed 42, as bench/oracle_bench.cpp); the client is one epoll thread.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kSeed = 42;

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  if (rc != 0 && errno != EINPROGRESS && errno != ENOTCONN) {
    ::close(fd);
    return -1;
  }
  return fd;
}

struct Stats {
  std::vector<double> latency_us;
  std::uint64_t dropped = 0;
};

// One keep-alive connection of the load generator.
struct Conn {
  int fd = -1;
  std::deque<Clock::time_point> due;  // requests sent (or queued), oldest first
  std::deque<std::string> pending;    // paths not yet sent (the connection was busy)
  bool busy = false;
  std::string in;
};

// A whole response at the front of `in`: its length, or 0 when more bytes are needed.
std::size_t response_length(const std::string& in, bool& ok) {
  const auto header_end = in.find("\r\n\r\n");
  if (header_end == std::string::npos) {
    return 0;
  }
  const auto at = in.find("Content-Length: ");
  if (at == std::string::npos || at > header_end) {
    ok = false;
    return header_end + 4;
  }
  const std::size_t total = header_end + 4 + std::stoul(in.substr(at + 16));
  ok = in.compare(0, 12, "HTTP/1.1 200") == 0;
  return in.size() >= total ? total : 0;
}

void send_request(Conn& c, const std::string& path) {
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  // Requests are small; the kernel buffer of an idle connection takes them whole.
  (void)::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL);
  c.busy = true;
}

// `total` requests of `paths` at `rate_per_s` over `connections` connections.
Stats run_rate(int port, double rate_per_s, std::size_t total, std::size_t connections,
               const std::vector<std::string>& paths) {
  Stats stats;
  const int ep = epoll_create1(0);
  std::vector<Conn> conns(connections);
  for (std::size_t i = 0; i < connections; ++i) {
    conns[i].fd = connect_to(port);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // connections established
  const auto start = Clock::now();
  const auto period = std::chrono::duration<double>(1.0 / rate_per_s);
  std::size_t next = 0;
  std::size_t answered = 0;
  std::array<epoll_event, 64> events{};
  std::array<char, 16384> buf{};
  const auto deadline = start +
                        std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(total)) +
                        std::chrono::seconds(10);
  while (answered + stats.dropped < total && Clock::now() < deadline) {
    auto now = Clock::now();
    while (next < total) {
      const auto due =
          start + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(next));
      if (due > now) {
        break;
      }
      Conn& c = conns[next % connections];
      c.due.push_back(due);
      if (c.busy) {
        c.pending.push_back(paths[next % paths.size()]);
      } else {
        send_request(c, paths[next % paths.size()]);
      }
      ++next;
    }
    timespec wait{};
    if (next < total) {
      const auto due =
          start + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(next));
      const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(due - Clock::now()).count();
      wait.tv_nsec = std::max<long>(0, left);
    } else {
      wait.tv_nsec = 1000000;
    }
    const int n = epoll_pwait2(ep, events.data(), static_cast<int>(events.size()), &wait, nullptr);
    now = Clock::now();
    for (int e = 0; e < n; ++e) {
      Conn& c = conns[events[static_cast<std::size_t>(e)].data.u64];
      const auto got = ::recv(c.fd, buf.data(), buf.size(), 0);
      if (got <= 0) {
        // The server closed a keep-alive connection: its outstanding requests are dropped.
        stats.dropped += c.due.size();
        c.due.clear();
        c.pending.clear();
        epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      c.in.append(buf.data(), static_cast<std::size_t>(got));
      while (true) {
        bool ok = true;
        const auto length = response_length(c.in, ok);
        if (length == 0 || c.due.empty()) {
          break;
        }
        c.in.erase(0, length);
        if (ok) {
          stats.latency_us.push_back(std::chrono::duration<double, std::micro>(now - c.due.front()).count());
          ++answered;
        } else {
          ++stats.dropped;
        }
        c.due.pop_front();
        c.busy = false;
        if (!c.pending.empty()) {
          send_request(c, c.pending.front());
          c.pending.pop_front();
        }
      }
    }
  }
  stats.dropped = total - answered;  // refused, closed or not answered within 10 s of the end
  for (auto& c : conns) {
    if (c.fd >= 0) {
      ::close(c.fd);
    }
  }
  ::close(ep);
  return stats;
}

// Health requests at `rate_per_s` on one keep-alive connection, while `slow` connections send a
// header a byte a second and `idle` connections send nothing; both are reopened when the server
// closes them (it does after its header time), so they stay open throughout.
Stats run_health(int port, double rate_per_s, std::size_t total, std::size_t slow, std::size_t idle,
                 std::uint64_t& reopened) {
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> reopen_count{0};
  std::thread attacker([&] {
    std::vector<int> fds(slow + idle, -1);
    const std::string header = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    std::vector<std::size_t> sent(slow, 0);
    for (auto& fd : fds) {
      fd = connect_to(port);
    }
    auto next_byte = Clock::now();
    std::array<char, 256> buf{};
    while (!done.load()) {
      for (std::size_t i = 0; i < fds.size(); ++i) {
        // A closed connection reads 0: reopen it.
        const auto got = ::recv(fds[i], buf.data(), buf.size(), MSG_DONTWAIT);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINPROGRESS &&
                         errno != ENOTCONN)) {
          ::close(fds[i]);
          fds[i] = connect_to(port);
          if (i < slow) {
            sent[i] = 0;
          }
          ++reopen_count;
        }
      }
      if (Clock::now() >= next_byte) {
        next_byte += std::chrono::seconds(1);
        for (std::size_t i = 0; i < slow; ++i) {
          const char byte = sent[i] < header.size() ? header[sent[i]] : 'a';
          if (::send(fds[i], &byte, 1, MSG_NOSIGNAL) == 1) {
            ++sent[i];
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (const int fd : fds) {
      ::close(fd);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // all connections open
  const std::vector<std::string> paths{"/v1/health"};
  Stats stats = run_rate(port, rate_per_s, total, 1, paths);
  done = true;
  attacker.join();
  reopened = reopen_count.load();
  return stats;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

void row(std::string_view name, const Stats& s, double target_us) {
  const double p99 = quantile(s.latency_us, 0.99);
  fmt::print("| {:<44} | {:>8} | {:>7} | {:>9.1f} | {:>9.1f} | {:>9.1f} | {:>8.0f} | {:<4} | us |\n", name,
             s.latency_us.size() + s.dropped, s.dropped, mean(s.latency_us), quantile(s.latency_us, 0.5), p99,
             target_us, p99 <= target_us && s.dropped == 0 ? "met" : "MISS");
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  int threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    try {
      if (flag == "--seconds") {
        seconds = std::stod(argv[i + 1]);
        continue;
      }
      if (flag == "--threads") {
        threads = std::stoi(argv[i + 1]);
        continue;
      }
    } catch (const std::exception&) {
      fmt::print(stderr, "{} {}: not a number\n", flag, argv[i + 1]);
      return 2;
    }
    fmt::print(stderr, "usage: oracle_load_bench [--seconds S] [--threads N]\n");
    return 2;
  }
  if (!(seconds > 0) || threads < 1) {
    fmt::print(stderr, "--seconds must be positive and --threads at least 1\n");
    return 2;
  }
  const auto topology = gridlock::topo::make_topology("torus:8x8x8,npr=2");
  gridlock::Rng rng(kSeed);
  const auto n = topology->nodes().size();
  std::vector<gridlock::oracle::Flow> flows;
  for (std::size_t i = 0; i < n; ++i) {
    flows.push_back({static_cast<gridlock::topo::NodeId>(gridlock::uniform_below(rng, n)),
                     static_cast<gridlock::topo::NodeId>(gridlock::uniform_below(rng, n)), 2e9});
  }
  std::vector<gridlock::oracle::NamedSource> sources;
  sources.push_back({"sim:random", std::make_unique<gridlock::oracle::SimulatedLoad>(*topology, flows)});
  gridlock::oracle::Service service(*topology, std::move(sources), gridlock::oracle::ServiceOptions{});
  service.poll_once(1.0);
  service.start();
  gridlock::oracle::ServerOptions options;
  options.port = 0;
  options.threads = threads;
  gridlock::oracle::Server server(service, options);
  const int port = server.start();

  std::vector<std::string> paths;
  paths.reserve(4096);
  for (int i = 0; i < 4096; ++i) {
    paths.push_back(fmt::format("/v1/route-metrics?src={}&dst={}&metric=bw&reducer=max",
                                gridlock::uniform_below(rng, n), gridlock::uniform_below(rng, n)));
  }
  fmt::print(
      "oracle_load_bench: torus:8x8x8,npr=2, 1024 random flows (seed {}), {} server threads, {} s per "
      "rate, open loop (latency from each request's due time)\n\n",
      kSeed, threads, seconds);
  fmt::print("| {:<44} | {:>8} | {:>7} | {:>9} | {:>9} | {:>9} | {:>8} | {:<4} | units |\n", "name",
             "requests", "dropped", "avg", "50%", "99%", "target", "met");
  fmt::print("|{:-<46}|{:-<10}|{:-<9}|{:-<11}|{:-<11}|{:-<11}|{:-<10}|{:-<6}|-------|\n", "", "", "", "", "",
             "", "", "");
  for (const double rate : {1000.0, 10000.0}) {
    // Warm-up at the rate, then the measured run.
    (void)run_rate(port, rate, static_cast<std::size_t>(rate * 0.5), 64, paths);
    const auto stats = run_rate(port, rate, static_cast<std::size_t>(rate * seconds), 64, paths);
    row(fmt::format("one-pair query, {:.0f}/s over 64 connections", rate), stats, rate < 5000 ? 100 : 1000);
  }
  std::uint64_t reopened = 0;
  const auto health = run_health(port, 200, static_cast<std::size_t>(200 * seconds), 8, 300, reopened);
  row("/v1/health, 200/s, 8 slow-header + 300 idle", health, 10000);
  fmt::print("\nslow-header and idle connections closed by the server (header time 5 s) and reopened: {}\n",
             reopened);
  service.stop();
  server.stop();
  return 0;
}
