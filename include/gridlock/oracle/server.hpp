#pragma once
/// @file
/// The oracle HTTP/JSON service (cpp-httplib). Paths (see docs/oracle.md):
/// `GET /v1/health`, `GET /v1/topology`, `GET /v1/nodes`, `GET /v1/nodes/<name>`,
/// `GET /v1/route?src=&dst=`, `GET /v1/links?top=`, `GET|POST /v1/route-metrics`,
/// `POST /v1/metric-matrix`, `GET /metrics` (Prometheus text).
/// Errors are JSON: `{"error": {"code": "...", "message": "..."}}` with a 4xx/5xx status.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "gridlock/oracle/oracle.hpp"

namespace gridlock::oracle {

/// Limits and addresses of the service.
struct ServerOptions {
  std::string host = "127.0.0.1";          ///< Address to bind (loopback by default).
  int port = 8600;                         ///< TCP port; 0 picks a free one.
  int threads = 8;                         ///< Worker threads.
  std::size_t max_body_bytes = 4u << 20U;  ///< Larger request bodies get 413.
  std::size_t max_pairs = 100000;          ///< Pairs per route-metrics request.
  std::size_t max_matrix_nodes = 2048;     ///< Nodes per metric-matrix request.
  int timeout_s = 5;                       ///< Read and write timeout per connection.
  int keep_alive_s = 1;                    ///< Idle keep-alive connections close after this.
};

/// A running oracle service. Requests are answered concurrently by a thread pool; no bad request
/// can stop it.
class Server {
 public:
  /// `status` (optional) is called for /v1/health to describe the sources; it must be thread-safe.
  Server(const Oracle& oracle, ServerOptions options, std::function<Json()> status = {});
  /// Stops the service (see stop()).
  ~Server();
  Server(const Server&) = delete;             ///< Not copyable.
  Server& operator=(const Server&) = delete;  ///< Not copyable.
  Server(Server&&) = delete;                  ///< Not movable.
  Server& operator=(Server&&) = delete;       ///< Not movable.

  /// Binds and starts answering in a background thread; returns the bound port.
  /// Throws IoError when the address cannot be bound.
  int start();
  /// Stops answering and joins the background thread (idempotent).
  void stop();
  /// The bound port (0 before start()).
  [[nodiscard]] int port() const noexcept { return port_; }
  /// Requests answered so far (any status).
  [[nodiscard]] std::uint64_t requests() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace gridlock::oracle
