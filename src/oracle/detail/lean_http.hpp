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
#include <httplib.h>

namespace gridlock::oracle::detail {

/// An httplib::Server whose connections are served by a buffered socket stream (see above).
/// Configure and run it exactly like httplib::Server.
class LeanHttpServer : public httplib::Server {
 private:
  bool process_and_close_socket(socket_t sock) override;
};

}  // namespace gridlock::oracle::detail
