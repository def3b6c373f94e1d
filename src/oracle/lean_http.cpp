#include "detail/lean_http.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace gridlock::oracle::detail {
namespace {

using Clock = std::chrono::steady_clock;
using Micros = std::chrono::microseconds;

// A blocked read or write wakes up this often to see whether the server is stopping (cpp-httplib
// itself never looks while a keep-alive connection is idle, so stop() waited for its timeout).
constexpr Micros kWakeInterval{100'000};
// An idle keep-alive connection looks this often whether another connection needs its worker.
constexpr Micros kIdleCheckInterval{10'000};
// Answers up to this size are assembled and sent at once; a larger body is sent from its own memory.
constexpr std::size_t kWriteBufferBytes = std::size_t{64} * 1024;
// As cpp-httplib's CPPHTTPLIB_RECV_BUFSIZ: a request line and headers usually arrive in one read.
constexpr std::size_t kReadBufferBytes = 4096;

Micros duration_of(time_t sec, time_t usec) { return Micros(sec * 1'000'000 + usec); }

// Sets SO_RCVTIMEO or SO_SNDTIMEO to `wait`, at least 1 ms (0 would mean "block forever").
void set_socket_timeout(socket_t sock, int option, Micros wait) {
  wait = std::max(wait, Micros(1000));
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(wait.count() / 1'000'000);
  tv.tv_usec = static_cast<suseconds_t>(wait.count() % 1'000'000);
  ::setsockopt(sock, SOL_SOCKET, option, &tv, sizeof tv);
}

// The numeric address and port of an IPv4/IPv6 socket address, as cpp-httplib reports them.
void describe(const sockaddr_storage& addr, socklen_t length, std::string& ip, int& port) {
  if (addr.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  } else {
    return;
  }
  std::array<char, NI_MAXHOST> host{};
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), length, host.data(), host.size(), nullptr, 0,
                    NI_NUMERICHOST) == 0) {
    ip = host.data();
  }
}

// One connection: reads are buffered (cpp-httplib reads the request line and headers a byte at a
// time), writes are collected until flush(), and a blocking recv/send with a socket timeout
// replaces cpp-httplib's poll before every call.
class BufferedSocketStream final : public httplib::Stream {
 public:
  BufferedSocketStream(socket_t sock, const std::atomic<socket_t>& listener, Micros read_timeout,
                       Micros write_timeout)
      : sock_(sock), listener_(listener), read_timeout_(read_timeout), write_timeout_(write_timeout) {
    // The addresses cannot change during a connection; cpp-httplib asks the kernel per request.
    sockaddr_storage addr{};
    socklen_t length = sizeof addr;
    if (::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
      describe(addr, length, remote_ip_, remote_port_);
    }
    length = sizeof addr;
    if (::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
      describe(addr, length, local_ip_, local_port_);
    }
  }

  using httplib::Stream::write;

  [[nodiscard]] bool is_readable() const override {
    return read_pos_ < read_end_ || wait_for(POLLIN, read_timeout_);
  }
  [[nodiscard]] bool is_writable() const override { return wait_for(POLLOUT, write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (read_pos_ == read_end_) {
      // Whatever was written must reach the client before waiting for it (e.g. "100 Continue").
      if (!flush()) {
        return -1;
      }
      const auto deadline = Clock::now() + read_timeout_;
      if (size >= buffer_.size()) {
        return receive(ptr, size, deadline);
      }
      if (!fill(deadline)) {
        return closed_ ? 0 : -1;
      }
    }
    const auto n = std::min(size, read_end_ - read_pos_);
    std::memcpy(ptr, buffer_.data() + read_pos_, n);
    read_pos_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (pending_.size() + size <= kWriteBufferBytes) {
      pending_.append(ptr, size);
    } else if (!flush() || !send_all(ptr, size)) {
      return -1;
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = remote_ip_;
    port = remote_port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = local_ip_;
    port = local_port_;
  }
  [[nodiscard]] socket_t socket() const override { return sock_; }

  /// Waits up to `idle` for the next request; true when some of it has arrived. Gives up early
  /// (false) when `others_waiting` becomes positive: another connection needs this worker.
  bool wait_for_request(Micros idle, const std::atomic<int>& others_waiting) {
    if (read_pos_ < read_end_) {
      return true;
    }
    const auto n = receive(buffer_.data(), buffer_.size(), Clock::now() + idle, &others_waiting);
    if (n <= 0) {
      return false;
    }
    read_pos_ = 0;
    read_end_ = static_cast<std::size_t>(n);
    return true;
  }

  /// Sends what write() collected; false when the client is gone or too slow.
  bool flush() {
    if (pending_.empty()) {
      return true;
    }
    const bool ok = send_all(pending_.data(), pending_.size());
    pending_.clear();
    return ok;
  }

 private:
  [[nodiscard]] bool stopping() const { return listener_ == INVALID_SOCKET; }

  [[nodiscard]] bool wait_for(short events, Micros timeout) const {
    pollfd fd{sock_, events, 0};
    return ::poll(&fd, 1, static_cast<int>(timeout.count() / 1000)) > 0;
  }

  // recv() until something arrives (> 0), the client closes (0), or an error, the deadline, a
  // stopping server or, if given, a positive `yield_to` (-1). The socket's timeout is the wake-up
  // interval, so EAGAIN means "not yet".
  ssize_t receive(char* ptr, size_t size, Clock::time_point deadline,
                  const std::atomic<int>* yield_to = nullptr) {
    while (true) {
      const auto n = ::recv(sock_, ptr, size, 0);
      if (n >= 0) {
        closed_ = n == 0;
        return n;
      }
      if (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && !stopping() &&
                             Clock::now() < deadline && (yield_to == nullptr || *yield_to <= 0))) {
        continue;
      }
      return -1;
    }
  }

  bool fill(Clock::time_point deadline) {
    const auto n = receive(buffer_.data(), buffer_.size(), deadline);
    if (n <= 0) {
      return false;
    }
    read_pos_ = 0;
    read_end_ = static_cast<std::size_t>(n);
    return true;
  }

  // The write timeout applies while no byte can be sent, as in cpp-httplib.
  bool send_all(const char* ptr, size_t size) {
    auto deadline = Clock::now() + write_timeout_;
    while (size > 0) {
      const auto n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
      if (n > 0) {
        ptr += n;
        size -= static_cast<size_t>(n);
        deadline = Clock::now() + write_timeout_;
      } else if (n < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && !stopping() &&
                                              Clock::now() < deadline))) {
        continue;
      } else {
        return false;
      }
    }
    return true;
  }

  socket_t sock_;
  const std::atomic<socket_t>& listener_;
  Micros read_timeout_;
  Micros write_timeout_;
  std::array<char, kReadBufferBytes> buffer_{};
  std::size_t read_pos_ = 0;
  std::size_t read_end_ = 0;
  bool closed_ = false;
  std::string pending_;
  std::string remote_ip_;
  int remote_port_ = 0;
  std::string local_ip_;
  int local_port_ = 0;
};

// cpp-httplib's thread pool, counting the jobs (connections) that no worker has taken yet.
class CountingThreadPool final : public httplib::TaskQueue {
 public:
  CountingThreadPool(std::size_t threads, std::shared_ptr<std::atomic<int>> waiting)
      : pool_(threads), waiting_(std::move(waiting)) {}

  void enqueue(std::function<void()> fn) override {
    ++*waiting_;
    pool_.enqueue([waiting = waiting_, job = std::move(fn)] {
      --*waiting;
      job();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::shared_ptr<std::atomic<int>> waiting_;
};

}  // namespace

bool LeanHttpServer::widen_listen_backlog() {
  // listen() on a listening socket only changes its backlog.
  return svr_sock_ != INVALID_SOCKET && ::listen(svr_sock_, SOMAXCONN) == 0;
}

void LeanHttpServer::use_thread_pool(std::size_t threads) {
  new_task_queue = [threads, waiting = waiting_] { return new CountingThreadPool(threads, waiting); };
}

// As cpp-httplib's own loop (detail::process_server_socket), but one stream for the whole
// connection, so bytes of a pipelined next request read with the current one are kept (cpp-httplib
// made a new stream per request and dropped them).
bool LeanHttpServer::process_and_close_socket(socket_t sock) {
  const auto read_timeout = duration_of(read_timeout_sec_, read_timeout_usec_);
  const auto write_timeout = duration_of(write_timeout_sec_, write_timeout_usec_);
  // At least 10 ms, as cpp-httplib's own wait (one 10 ms poll) when the keep-alive timeout is 0.
  const auto idle = std::max(duration_of(keep_alive_timeout_sec_, 0), Micros(10'000));
  set_socket_timeout(sock, SO_RCVTIMEO, std::min({kIdleCheckInterval, read_timeout, idle}));
  set_socket_timeout(sock, SO_SNDTIMEO, std::min(kWakeInterval, write_timeout));
  bool ok = false;
  {
    BufferedSocketStream stream(sock, svr_sock_, read_timeout, write_timeout);
    const std::atomic<int> no_pressure{0};
    for (auto left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
      // Under pressure a connection idle after an answer gives its worker up (see the header);
      // a new one is always given the time to send its first request.
      if (!stream.wait_for_request(idle, left == keep_alive_max_count_ ? no_pressure : *waiting_)) {
        break;
      }
      bool connection_closed = false;
      ok = process_request(stream, left == 1, connection_closed, nullptr);
      ok = stream.flush() && ok;
      if (!ok || connection_closed) {
        break;
      }
    }
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace gridlock::oracle::detail
