#pragma once
/// @file
/// The oracle HTTP/JSON service (libmicrohttpd, event-driven). Paths (see docs/oracle.md):
/// `GET /v1/health`, `GET /v1/topology`, `GET /v1/nodes`, `GET /v1/nodes/<name>`,
/// `GET /v1/route?src=&dst=`, `GET /v1/links?top=`, `GET|POST /v1/route-metrics`,
/// `POST /v1/metric-matrix`, `GET /metrics` (Prometheus text).
/// Errors are JSON: `{"error": {"code": "...", "message": "..."}}` with a 4xx/5xx status.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/oracle/oracle.hpp"
#include "gridlock/oracle/service.hpp"

namespace gridlock::oracle {

/// Limits and addresses of the service (docs/oracle.md, "Bounds").
struct ServerOptions {
  std::string host = "127.0.0.1";             ///< Address to bind (loopback by default).
  int port = 8600;                            ///< TCP port; 0 picks a free one.
  int threads = 4;                            ///< Event-loop threads (each serves many connections).
  std::size_t max_body_bytes = 4u << 20U;     ///< Larger request bodies get 413, as soon as they pass it.
  std::size_t max_header_bytes = 16u << 10U;  ///< Request line and headers; larger ones get 431.
  std::size_t max_pairs = 100000;             ///< Pairs per route-metrics request.
  std::size_t max_matrix_nodes = 2048;        ///< Nodes per metric-matrix request.
  int header_timeout_s = 5;  ///< A connection has this long, from its opening, to send a whole header.
  int keep_alive_s = 5;      ///< An idle connection is closed this long after its last answer.
  /// A request, from its first line to its last body byte, must arrive within this many seconds,
  /// and its answer must be taken within as many more; 1 to kMaxRequestTimeoutS.
  int request_timeout_s = 10;
  unsigned max_connections = 1000;             ///< Open connections in total.
  unsigned max_connections_per_address = 400;  ///< Open connections from one client address.
};

/// Connections an address may open beyond ServerOptions::max_connections_per_address that serve
/// `/v1/health` only (anything else gets 429 `too_many_connections` at once, and each closes after
/// its answer): a client whose address is at its limit, one slow client or hundreds, can still
/// see whether the service is up.
inline constexpr unsigned kHealthConnectionsPerAddress = 8;

/// Upper bound of ServerOptions::request_timeout_s (`--request-timeout`): 5 minutes.
inline constexpr int kMaxRequestTimeoutS = 300;

/// Where `--listen` asks the service to listen.
struct ListenAddress {
  std::string host;  ///< Host name or address, without the brackets of an IPv6 address.
  int port = 0;      ///< 0..65535; 0 picks a free port.
};

/// Parses `--listen`: HOST:PORT, or [IPV6]:PORT (an IPv6 address has colons of its own, so it
/// goes in brackets). Throws InputError naming --listen and the form expected.
[[nodiscard]] ListenAddress parse_listen(const std::string& text);

/// `host` as the host part of a URL: an IPv6 address in brackets, anything else as it is.
[[nodiscard]] std::string url_host(const std::string& host);

/// Blocks SIGINT and SIGTERM in the calling thread, and so in the threads it starts afterwards (a
/// Server's), so that wait_for_stop_signal() takes them instead of their default action. Call
/// before Server::start().
void block_stop_signals();

/// Waits until SIGINT or SIGTERM arrives (blocked by block_stop_signals()) or, when `duration_s`
/// is positive, at most `duration_s` seconds.
void wait_for_stop_signal(double duration_s);

/// True when `host` is a loopback address or `localhost` (127.0.0.0/8, ::1).
[[nodiscard]] bool is_loopback_host(std::string_view host);

/// A running oracle HTTP service. Connections are served by a few event-loop threads, so slow or
/// idle clients hold no thread; every resource a client can take is bounded (ServerOptions); no
/// bad request can stop it.
class Server {
 public:
  /// `status` (optional) is called for /v1/health to describe the sources; it must be thread-safe
  /// and must not block (Service::status() is both).
  Server(const Oracle& oracle, ServerOptions options, std::function<std::vector<SourceHealth>()> status = {});
  /// Serves `service`'s oracle, with its source status in /v1/health.
  Server(const Service& service, ServerOptions options);
  /// Stops the service (see stop()).
  ~Server();
  Server(const Server&) = delete;             ///< Not copyable.
  Server& operator=(const Server&) = delete;  ///< Not copyable.
  Server(Server&&) = delete;                  ///< Not movable.
  Server& operator=(Server&&) = delete;       ///< Not movable.

  /// Binds and starts answering in background threads; returns the bound port.
  /// Throws IoError when the address cannot be bound, InputError for a timeout out of its range.
  int start();
  /// Stops answering and joins the background threads (idempotent).
  void stop();
  /// The bound port (0 before start()).
  [[nodiscard]] int port() const noexcept { return port_; }
  /// Requests answered so far (any status).
  [[nodiscard]] std::uint64_t requests() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace gridlock::oracle
