// The oracle client against servers that misbehave: answers dribbled a byte at a time, endless
// bodies, bodies that are not what was asked. Each server is a few lines of plain sockets on a
// thread of the test, so that it can do what no HTTP server library would.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "detail/response.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/oracle/client.hpp"

namespace gridlock::oracle {
namespace {

using Clock = std::chrono::steady_clock;

// Serves connections on a loopback port, one after another: reads a request header, then hands
// the socket to `answer`, which writes what it likes until `stopping` is set or the client leaves.
class ScriptedServer {
 public:
  using Answer = std::function<void(int fd, const std::atomic<bool>& stopping)>;
  explicit ScriptedServer(Answer answer) : answer_(std::move(answer)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), size) != 0 ||
        ::listen(listen_fd_, 8) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    stopping_ = true;
    if (thread_.joinable()) {
      thread_.join();
    }
    ::close(listen_fd_);
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;
  ScriptedServer(ScriptedServer&&) = delete;
  ScriptedServer& operator=(ScriptedServer&&) = delete;

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] int port() const { return port_; }

  // Writes all of `text`; false when the client has gone (or the server stops).
  static bool write(int fd, std::string_view text) {
    while (!text.empty()) {
      const auto n = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
      if (n <= 0) {
        return false;
      }
      text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

 private:
  void serve() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) != 1) {
        continue;
      }
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) {
        continue;
      }
      // The request header (the body, if any, is left unread: these servers do not care).
      std::string request;
      std::array<char, 4096> buf{};
      while (request.find("\r\n\r\n") == std::string::npos && !stopping_) {
        pollfd q{fd, POLLIN, 0};
        if (::poll(&q, 1, 50) != 1) {
          continue;
        }
        const auto n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n <= 0) {
          break;
        }
        request.append(buf.data(), static_cast<std::size_t>(n));
      }
      if (request.find("\r\n\r\n") != std::string::npos) {
        answer_(fd, stopping_);
      }
      ::close(fd);
    }
  }

  Answer answer_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Sends `text` one byte every `gap`, until done, the client leaves or the server stops.
void dribble(int fd, const std::atomic<bool>& stopping, const std::string& text,
             std::chrono::milliseconds gap) {
  for (const char c : text) {
    if (stopping || !ScriptedServer::write(fd, std::string_view(&c, 1))) {
      return;
    }
    std::this_thread::sleep_for(gap);
  }
}

std::string http_answer(const std::string& body, int status = 200) {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

// The message of the IoError `call` throws ("no IoError" if none).
template <typename Call>
std::string io_error_of(Call&& call) {
  try {
    call();
  } catch (const IoError& e) {
    return e.what();
  }
  return "no IoError";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(ClientDeadline, AnswersInTimeAreRead) {
  const ScriptedServer server([](int fd, const std::atomic<bool>&) {
    (void)ScriptedServer::write(fd, http_answer(R"({"status":"ok"})"));
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 5, kMinResponseBytes);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(client.health()["status"], "ok");
  }
}

// `gridlock map --timeout T` makes two requests; T bounds both together. The first answer comes at
// once, the second never: the client gives up at the total deadline (2 s), long before the
// per-request timeout (30 s), and says that the limit is for all requests together. (Margins are
// wide on purpose: a loaded 2-core machine may delay any step by a second or more.)
TEST(ClientDeadline, TotalTimeoutBoundsSeveralRequests) {
  std::atomic<int> connections{0};
  const ScriptedServer server([&connections](int fd, const std::atomic<bool>& stopping) {
    if (connections++ == 0) {
      (void)ScriptedServer::write(fd, http_answer(R"({"status":"ok"})"));
      return;
    }
    while (!stopping) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 30, kMinResponseBytes);
  client.set_total_timeout(2);
  EXPECT_EQ(client.health()["status"], "ok");
  const auto start = Clock::now();
  const std::string message = io_error_of([&] { (void)client.health(); });
  EXPECT_LT(seconds_since(start), 20.0);
  EXPECT_NE(message.find("within the timeout of 2 s"), std::string::npos) << message;
  EXPECT_NE(message.find("all requests together"), std::string::npos) << message;
  EXPECT_THROW(client.set_total_timeout(0), InputError);
  EXPECT_THROW(client.set_total_timeout(-1), InputError);
}

// Issue 36: a server sending a valid answer one byte every 200 ms kept `oracle query` and
// `gridlock map` running for as long as it liked (the timeout applied to each read). With a 1 s
// timeout the client gives up within a few seconds, naming the server and the timeout.
TEST(ClientDeadline, DribbledAnswerFailsAtTheDeadline) {
  const ScriptedServer server([](int fd, const std::atomic<bool>& stopping) {
    dribble(fd, stopping,
            http_answer(R"({"status":"ok","padding":"........................................"})"),
            std::chrono::milliseconds(200));
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 1);
  const auto start = Clock::now();
  const std::string message = io_error_of([&] { (void)client.health(); });
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_NE(message.find("no whole answer from the oracle at " + server.url() +
                         " to GET /v1/health within "
                         "the timeout of 1 s"),
            std::string::npos)
      << message;
}

// Header lines without end, one every 100 ms: no body to count, the deadline still holds.
TEST(ClientDeadline, EndlessHeaderFailsAtTheDeadline) {
  const ScriptedServer server([](int fd, const std::atomic<bool>& stopping) {
    if (!ScriptedServer::write(fd, "HTTP/1.1 200 OK\r\n")) {
      return;
    }
    while (!stopping && ScriptedServer::write(fd, "X-More: yes\r\n")) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 1);
  const auto start = Clock::now();
  const std::string message = io_error_of([&] { (void)client.topology(); });
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_NE(message.find("within the timeout of 1 s"), std::string::npos) << message;
}

// Issue 36: an endless chunked answer grew `oracle query` to 8 GB. It now fails as soon as the
// body passes the client's limit, naming the server and the limit.
TEST(ClientSizeLimit, EndlessChunkedAnswerFailsAtTheLimit) {
  const ScriptedServer server([](int fd, const std::atomic<bool>& stopping) {
    if (!ScriptedServer::write(fd,
                               "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n")) {
      return;
    }
    const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
    while (!stopping && ScriptedServer::write(fd, chunk)) {
    }
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 30, std::size_t{1} << 20U);
  const auto start = Clock::now();
  const std::string message = io_error_of([&] { (void)client.health(); });
  EXPECT_LT(seconds_since(start), 20.0);
  EXPECT_NE(message.find("the answer of the oracle at " + server.url() +
                         " to GET /v1/health is larger than "
                         "1 MiB (the client's limit"),
            std::string::npos)
      << message;
}

// A declared length over the limit is refused before the body is read (none is sent here).
TEST(ClientSizeLimit, DeclaredLengthOverTheLimitFailsAtOnce) {
  const ScriptedServer server([](int fd, const std::atomic<bool>& stopping) {
    (void)ScriptedServer::write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\n{");
    while (!stopping) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 30);
  const auto start = Clock::now();
  const std::string message = io_error_of([&] { (void)client.health(); });
  EXPECT_LT(seconds_since(start), 20.0);
  EXPECT_NE(message.find("is larger than 8 MiB"), std::string::npos) << message;
}

TEST(ClientSizeLimit, LimitOutOfRangeIsRefused) {
  EXPECT_THROW(Client("127.0.0.1:8600", 5, kMinResponseBytes - 1), InputError);
  EXPECT_THROW(Client("127.0.0.1:8600", 5, kMaxResponseBytes + 1), InputError);
}

// Answers of the wrong shape are the server's fault, said as such, not a JSON library exception.
TEST(ClientAnswers, WrongShapesAreErrorsNamingTheServer) {
  const ScriptedServer server([](int fd, const std::atomic<bool>&) {
    (void)ScriptedServer::write(fd, http_answer(R"({"values":[1.5],"matrix":[[1,2],[3]]})"));
  });
  ASSERT_GT(server.port(), 0);
  Client client(server.url(), 5);
  const MetricQuery query;
  try {
    (void)client.route_metrics({{"a", "b"}, {"c", "d"}}, query);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without an array 'values' of 2 numbers"), std::string::npos)
        << e.what();
  }
  try {
    (void)client.metric_matrix({"a", "b"}, query);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a row that is not an array of 2 numbers"), std::string::npos)
        << e.what();
  }
}

TEST(ClientAnswers, ParseResponseSortsStatusesAndBodies) {
  const std::string server = "http://h:1";
  EXPECT_EQ(detail::parse_response(200, R"({"a":1})", server, "GET /x")["a"], 1);
  EXPECT_THROW((void)detail::parse_response(200, "[1]", server, "GET /x"), Error);
  EXPECT_THROW((void)detail::parse_response(200, "", server, "GET /x"), Error);
  EXPECT_THROW((void)detail::parse_response(302, R"({"a":1})", server, "GET /x"), Error);
  EXPECT_THROW((void)detail::parse_response(404, R"({"error":{"code":"x","message":"y"}})", server, "GET /x"),
               InputError);
  try {
    (void)detail::parse_response(503, R"({"error":{"code":"busy","message":"later\u001b[31m"}})", server,
                                 "GET /x");
  } catch (const InputError&) {
    ADD_FAILURE() << "a 5xx is not the user's mistake";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("the oracle at http://h:1 answered GET /x with busy: later"), std::string::npos)
        << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << "control characters of the server are not printed";
  }
  const Json infinite = {{"values", {std::numeric_limits<double>::infinity()}}};
  EXPECT_THROW((void)detail::parse_values(infinite, 1, server), Error);
  EXPECT_EQ(detail::parse_matrix(Json::parse(R"({"matrix":[[0,1],[1,0]]})"), 2, server),
            (std::vector<double>{0, 1, 1, 0}));
}

}  // namespace
}  // namespace gridlock::oracle
