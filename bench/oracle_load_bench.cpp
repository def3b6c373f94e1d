// Oracle under load (issue 23 part 3): one-pair query latency at a fixed request rate over many
// keep-alive connections, and /v1/health latency while slow-header and idle clients hold
// connections open. Open loop: request i is due at start + i / rate, and its latency counts from
// that due time (a server that falls behind is not hidden by a client that waits for it).
//
//   oracle_load_bench [--seconds S] [--threads N] [--spin-us N]
//
// The oracle runs in this process (oracle::Service + Server, torus:8x8x8,npr=2 loaded by 1,024
// random flows, seed 42, as bench/oracle_bench.cpp); the client is one epoll thread.
//
// What the host adds, measured beside the oracle (docs/performance.md, "Topology and oracle"):
// - the floor: the same client, connections and rate against a minimal HTTP/1.1 keep-alive
//   responder in this process (raw epoll, one thread, one fixed small response), the latency any
//   server that sleeps between requests gets from this host (wake-ups, loopback, scheduler);
// - the client's own lateness: actual send time - due time, per request. The client thread's timer
//   slack is 1 ns (the default 50 us would make it wake late by design); --spin-us N busy-polls
//   its epoll for the last N us before each due time instead of sleeping through them.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
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
  std::vector<double> latency_us;  // answer time - due time, per answered request
  std::vector<double> late_us;     // send time - due time, per request (the client's own lateness)
  std::uint64_t dropped = 0;
  double client_cpu_us = 0;  // CPU time of the client thread during the runs
  double server_cpu_us = 0;  // CPU time of all other threads (the oracle's or the floor's) during the runs
};

// CPU time run so far by the calling thread and by all the others of this process, in us, from
// /proc/self/task/*/schedstat (the scheduler's own nanosecond count; getrusage's is sampled at
// the tick, too coarse for a few us per request).
struct CpuTimes {
  double client_us = 0;
  double others_us = 0;
};

CpuTimes cpu_times() {
  CpuTimes times;
  const auto self = std::to_string(::gettid());
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream in(entry.path() / "schedstat");
    double run_ns = 0;
    if (in >> run_ns) {
      (entry.path().filename() == self ? times.client_us : times.others_us) += run_ns / 1000;
    }
  }
  return times;
}

// The floor: a minimal HTTP/1.1 keep-alive responder (raw epoll, one thread) that answers every
// request with one fixed small response. Hand-written on purpose: it is the least work a server
// can do per request, so its latency is what the host (wake-ups, loopback, scheduler) costs any
// server. It only serves requests without a body (the client sends GETs).
class FloorResponder {
 public:
  FloorResponder() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 1024) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
      throw std::runtime_error("floor responder: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    stop_fd_ = ::eventfd(0, EFD_NONBLOCK);
    ep_ = ::epoll_create1(0);
    add(listen_fd_);
    add(stop_fd_);
    thread_ = std::thread([this] { loop(); });
  }
  ~FloorResponder() {
    const std::uint64_t one = 1;
    (void)::write(stop_fd_, &one, sizeof one);
    thread_.join();
    for (const auto& [fd, in] : in_) {
      ::close(fd);
    }
    ::close(ep_);
    ::close(stop_fd_);
    ::close(listen_fd_);
  }
  FloorResponder(const FloorResponder&) = delete;
  FloorResponder& operator=(const FloorResponder&) = delete;
  FloorResponder(FloorResponder&&) = delete;
  FloorResponder& operator=(FloorResponder&&) = delete;

  [[nodiscard]] int port() const { return port_; }

 private:
  void add(int fd) const {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }

  void loop() {
    // About the size of the oracle's one-pair answer, so both move the same bytes.
    const std::string body(96, 'x');
    const std::string response =
        fmt::format("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
                    body.size(), body);
    std::array<epoll_event, 64> events{};
    std::array<char, 16384> buf{};
    std::string out;
    while (true) {
      const int n = epoll_wait(ep_, events.data(), static_cast<int>(events.size()), -1);
      for (int e = 0; e < n; ++e) {
        const int fd = events[static_cast<std::size_t>(e)].data.fd;
        if (fd == stop_fd_) {
          return;
        }
        if (fd == listen_fd_) {
          int c = -1;
          while ((c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK)) >= 0) {
            const int one = 1;
            ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            in_[c];
            add(c);
          }
          continue;
        }
        const auto got = ::recv(fd, buf.data(), buf.size(), 0);
        if (got <= 0) {
          epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
          ::close(fd);
          in_.erase(fd);
          continue;
        }
        std::string& in = in_[fd];
        in.append(buf.data(), static_cast<std::size_t>(got));
        out.clear();
        for (auto end = in.find("\r\n\r\n"); end != std::string::npos; end = in.find("\r\n\r\n")) {
          in.erase(0, end + 4);
          out += response;
        }
        // Answers are small; the kernel buffer of a keep-alive connection takes them whole.
        (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
      }
    }
  }

  int listen_fd_ = -1;
  int stop_fd_ = -1;
  int ep_ = -1;
  int port_ = 0;
  std::unordered_map<int, std::string> in_;  // unparsed request bytes per connection
  std::thread thread_;
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

// The open-loop client: `connections` keep-alive connections to one port, kept open across runs
// (so a warm-up warms the connections that are measured).
class LoadClient {
 public:
  LoadClient(int port, std::size_t connections) : ep_(epoll_create1(0)), conns_(connections) {
    for (std::size_t i = 0; i < connections; ++i) {
      conns_[i].fd = connect_to(port);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      epoll_ctl(ep_, EPOLL_CTL_ADD, conns_[i].fd, &ev);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // connections established
  }
  ~LoadClient() {
    for (auto& c : conns_) {
      if (c.fd >= 0) {
        ::close(c.fd);
      }
    }
    ::close(ep_);
  }
  LoadClient(const LoadClient&) = delete;
  LoadClient& operator=(const LoadClient&) = delete;
  LoadClient(LoadClient&&) = delete;
  LoadClient& operator=(LoadClient&&) = delete;

  // `total` requests of `paths` at `rate_per_s`, round robin over the connections, added to
  // `stats`. The client sleeps in epoll until `spin` before the next due time, then polls it
  // without sleeping.
  void run(double rate_per_s, std::size_t total, const std::vector<std::string>& paths,
           std::chrono::nanoseconds spin, Stats& stats) {
    for (auto& c : conns_) {
      if (!c.due.empty()) {
        // Left unanswered by an earlier run: its answer must not count for a request of this one.
        close_conn(c);
      }
    }
    const CpuTimes cpu_start = cpu_times();
    const auto start = Clock::now();
    const auto period = std::chrono::duration<double>(1.0 / rate_per_s);
    std::size_t next = 0;
    std::size_t answered = 0;
    std::size_t failed = 0;
    std::array<epoll_event, 64> events{};
    const auto deadline = start +
                          std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(total)) +
                          std::chrono::seconds(10);
    while (answered + failed < total && Clock::now() < deadline) {
      auto now = Clock::now();
      while (next < total) {
        const auto due =
            start + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(next));
        if (due > now) {
          break;
        }
        Conn& c = conns_[next % conns_.size()];
        // A request queued behind a busy connection counts as sent now: its further wait is the
        // server's, and it shows in the latency.
        stats.late_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - due).count());
        ++next;
        if (c.fd < 0) {
          ++failed;  // closed by the server earlier: dropped, not waited for
          continue;
        }
        c.due.push_back(due);
        if (c.busy) {
          c.pending.push_back(paths[(next - 1) % paths.size()]);
        } else {
          send_request(c, paths[(next - 1) % paths.size()]);
        }
      }
      timespec wait{};
      if (next < total) {
        const auto due =
            start + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(next));
        const auto left =
            std::chrono::duration_cast<std::chrono::nanoseconds>(due - Clock::now() - spin).count();
        wait.tv_nsec = std::clamp<long>(left, 0, 999'999'999);
      } else {
        wait.tv_nsec = 1000000;
      }
      const int n = epoll_pwait2(ep_, events.data(), static_cast<int>(events.size()), &wait, nullptr);
      now = Clock::now();
      for (int e = 0; e < n; ++e) {
        Conn& c = conns_[events[static_cast<std::size_t>(e)].data.u64];
        const auto got = ::recv(c.fd, buf_.data(), buf_.size(), 0);
        if (got <= 0) {
          // The server closed a keep-alive connection: its outstanding requests are dropped.
          failed += c.due.size();
          close_conn(c);
          continue;
        }
        c.in.append(buf_.data(), static_cast<std::size_t>(got));
        while (true) {
          bool ok = true;
          const auto length = response_length(c.in, ok);
          if (length == 0 || c.due.empty()) {
            break;
          }
          c.in.erase(0, length);
          if (ok) {
            stats.latency_us.push_back(
                std::chrono::duration<double, std::micro>(now - c.due.front()).count());
            ++answered;
          } else {
            ++failed;
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
    stats.dropped += total - answered;  // refused, closed or not answered within 10 s of the end
    const CpuTimes cpu_end = cpu_times();
    stats.client_cpu_us += cpu_end.client_us - cpu_start.client_us;
    stats.server_cpu_us += cpu_end.others_us - cpu_start.others_us;
  }

 private:
  void close_conn(Conn& c) const {
    if (c.fd >= 0) {
      epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
      ::close(c.fd);
    }
    c.fd = -1;
    c.due.clear();
    c.pending.clear();
    c.in.clear();
    c.busy = false;
  }

  int ep_;
  std::vector<Conn> conns_;
  std::array<char, 16384> buf_{};
};

// Health requests at `rate_per_s` on one keep-alive connection, while `slow` connections send a
// header a byte a second and `idle` connections send nothing; both are reopened when the server
// closes them (it does after its header time), so they stay open throughout.
Stats run_health(int port, double rate_per_s, std::size_t total, std::size_t slow, std::size_t idle,
                 std::chrono::nanoseconds spin, std::uint64_t& reopened) {
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
  Stats stats;
  LoadClient(port, 1).run(rate_per_s, total, paths, spin, stats);
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

std::string us_cell(double value_us) { return fmt::format("{:.1f}", value_us); }

// One table row; `floor_p99_us` < 0 when the row has no floor (the floor rows themselves, health),
// `target_us` < 0 when it has no target.
void row(std::string_view name, const Stats& s, double floor_p99_us, double target_us) {
  const auto requests = static_cast<double>(std::max<std::size_t>(1, s.late_us.size()));
  const double p99 = quantile(s.latency_us, 0.99);
  const bool has_floor = floor_p99_us >= 0;
  const bool has_target = target_us >= 0;
  fmt::print(
      "| {:<44} | {:>8} | {:>7} | {:>9.1f} | {:>9.1f} | {:>9.1f} | {:>9} | {:>10} | {:>15.1f} | {:>10.1f} | "
      "{:>10.1f} | {:>8} | {:<4} | us |\n",
      name, s.latency_us.size() + s.dropped, s.dropped, mean(s.latency_us), quantile(s.latency_us, 0.5), p99,
      has_floor ? us_cell(floor_p99_us) : "-", has_floor ? us_cell(p99 - floor_p99_us) : "-",
      quantile(s.late_us, 0.99), s.client_cpu_us / requests, s.server_cpu_us / requests,
      has_target ? fmt::format("{:.0f}", target_us) : "-",
      !has_target ? "-" : (p99 <= target_us && s.dropped == 0 ? "met" : "MISS"));
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  int threads = 2;
  long spin_us = 0;
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
      if (flag == "--spin-us") {
        spin_us = std::stol(argv[i + 1]);
        continue;
      }
    } catch (const std::exception&) {
      fmt::print(stderr, "{} {}: not a number\n", flag, argv[i + 1]);
      return 2;
    }
    fmt::print(stderr, "usage: oracle_load_bench [--seconds S] [--threads N] [--spin-us N]\n");
    return 2;
  }
  if (argc % 2 == 0) {
    fmt::print(stderr, "usage: oracle_load_bench [--seconds S] [--threads N] [--spin-us N]\n");
    return 2;
  }
  if (!(seconds > 0) || threads < 1 || spin_us < 0 || spin_us > 1000) {
    fmt::print(stderr, "--seconds must be positive, --threads at least 1 and --spin-us within 0..1000\n");
    return 2;
  }
  try {
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
    const FloorResponder floor;

    // Only the client (this thread, and the threads it starts from now on) gets the 1 ns slack: the
    // oracle's and the floor's threads already run with the default, as a server would.
    if (::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0) {
      fmt::print(stderr,
                 "warning: cannot set the client's timer slack to 1 ns; the client will wake later\n");
    }
    const auto slack_ns = ::prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    const auto spin = std::chrono::nanoseconds(std::chrono::microseconds(spin_us));

    std::vector<std::string> paths;
    paths.reserve(4096);
    for (int i = 0; i < 4096; ++i) {
      paths.push_back(fmt::format("/v1/route-metrics?src={}&dst={}&metric=bw&reducer=max",
                                  gridlock::uniform_below(rng, n), gridlock::uniform_below(rng, n)));
    }
    fmt::print(
        "oracle_load_bench: torus:8x8x8,npr=2, 1024 random flows (seed {}), {} server threads, {} s per "
        "rate, open loop (latency from each request's due time); client timer slack {} ns, spin {} us\n"
        "floor: the same client against a minimal keep-alive responder (raw epoll, one thread, fixed "
        "{}-byte body); over floor = 99% - floor 99%; client late = send time - due time\n"
        "client cpu, server cpu: CPU time per request of the client thread and of all other threads "
        "(/proc/self/task/*/schedstat)\n\n",
        kSeed, threads, seconds, slack_ns, spin_us, 96);
    fmt::print(
        "| {:<44} | {:>8} | {:>7} | {:>9} | {:>9} | {:>9} | {:>9} | {:>10} | {:>15} | {:>10} | {:>10} | "
        "{:>8} "
        "| "
        "{:<4} | units |\n",
        "name", "requests", "dropped", "avg", "50%", "99%", "floor 99%", "over floor", "client late 99%",
        "client cpu", "server cpu", "target", "met");
    fmt::print(
        "|{:-<46}|{:-<10}|{:-<9}|{:-<11}|{:-<11}|{:-<11}|{:-<11}|{:-<12}|{:-<17}|{:-<12}|{:-<12}|{:-<10}|{:-<"
        "6}"
        "|-------"
        "|\n",
        "", "", "", "", "", "", "", "", "", "", "", "", "");
    for (const double rate : {1000.0, 10000.0}) {
      LoadClient oracle_client(port, 64);
      LoadClient floor_client(floor.port(), 64);
      Stats warm_up;
      oracle_client.run(rate, static_cast<std::size_t>(rate * 0.5), paths, spin, warm_up);
      floor_client.run(rate, static_cast<std::size_t>(rate * 0.5), paths, spin, warm_up);
      // Blocks of at most 1 s, oracle and floor alternating (ABBA), so that a change of the host's
      // load in the meantime falls on both alike.
      Stats stats;
      Stats floor_stats;
      const auto blocks = static_cast<std::size_t>(std::ceil(seconds));
      const auto per_block =
          static_cast<std::size_t>(std::llround(rate * seconds / static_cast<double>(blocks)));
      for (std::size_t b = 0; b < blocks; ++b) {
        if (b % 2 == 0) {
          oracle_client.run(rate, per_block, paths, spin, stats);
          floor_client.run(rate, per_block, paths, spin, floor_stats);
        } else {
          floor_client.run(rate, per_block, paths, spin, floor_stats);
          oracle_client.run(rate, per_block, paths, spin, stats);
        }
      }
      row(fmt::format("one-pair query, {:.0f}/s over 64 connections", rate), stats,
          quantile(floor_stats.latency_us, 0.99), rate < 5000 ? 100 : 1000);
      row(fmt::format("floor, {:.0f}/s over 64 connections", rate), floor_stats, -1, -1);
    }
    std::uint64_t reopened = 0;
    const auto health =
        run_health(port, 200, static_cast<std::size_t>(200 * seconds), 8, 300, spin, reopened);
    row("/v1/health, 200/s, 8 slow-header + 300 idle", health, -1, 10000);
    fmt::print("\nslow-header and idle connections closed by the server (header time 5 s) and reopened: {}\n",
               reopened);
    service.stop();
    server.stop();
  } catch (const std::exception& error) {
    fmt::print(stderr, "oracle_load_bench: {}\n", error.what());
    return 1;
  }
  return 0;
}
