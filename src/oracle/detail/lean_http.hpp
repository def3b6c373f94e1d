#pragma once
// The oracle's HTTP server: cpp-httplib's parsing, routing, limits and response writing, with a
// leaner connection loop (private; see docs/performance.md, "Topology and oracle").
//
// cpp-httplib 0.11.4 (Debian, compiled library) answers a keep-alive request with about eleven
// system calls: a poll before every read and two before every write, getpeername and getsockname
// for every request, and the status line with the headers and the body in two separate sends, so
// the client wakes up twice. On a VM where a system call costs 5-10 µs and a wake-up more, that
// is most of the one-query latency. LeanHttpServer replaces only the per-connection loop
// (Server::process_and_close_socket, virtual in cpp-httplib): one blocking recv per request
// (socket timeouts instead of polls), the peer and local addresses looked up once per connection,
// and the whole answer written with one send. Requests are still parsed and answered by
// httplib::Server::process_request.
//
// A worker serves one connection at a time. With keep-alive, an idle client would hold its worker
// for the whole keep-alive timeout while new connections wait in the queue (1,000 keep-alive
// clients on 8 workers: 244 answered in 30 s); so a connection that is idle while other
// connections wait for a worker is closed, as HTTP allows for idle keep-alive connections.
#include <atomic>
#include <cstddef>
#include <memory>

#include <httplib.h>

namespace gridlock::oracle::detail {

/// An httplib::Server whose connections are served by a buffered socket stream (see above).
/// Configure and run it like httplib::Server, with use_thread_pool() instead of new_task_queue.
class LeanHttpServer : public httplib::Server {
 public:
  /// Serve connections on `threads` workers, counting connections that wait for one.
  void use_thread_pool(std::size_t threads);
  /// After bind_to_port: lets the kernel queue SOMAXCONN connections instead of cpp-httplib's 5
  /// (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's library), so a burst of clients is not
  /// dropped and left to retry its connection after 1, 3, 7, 15 s. Returns false on failure.
  bool widen_listen_backlog();

 private:
  bool process_and_close_socket(socket_t sock) override;

  // Connections accepted but not yet taken by a worker.
  std::shared_ptr<std::atomic<int>> waiting_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace gridlock::oracle::detail
