#pragma once
// The listening socket of the oracle's HTTP server, and why one could not be bound.

#include <string>

namespace gridlock::oracle::detail {

// Repeats the bind open_listen_socket attempts (getaddrinfo with AI_PASSIVE, SO_REUSEADDR, bind, listen)
// on `host`:`port` and says in words why it fails: a host that does not resolve, a port in use, an
// address that is not this machine's, a privileged port. Returns a generic reason if the retry
// succeeds (the address was taken only briefly).
[[nodiscard]] std::string bind_failure_reason(const std::string& host, int port);

// A non-blocking socket listening on `host`:`port` (the first address getaddrinfo gives that can
// be bound; SO_REUSEADDR, not SO_REUSEPORT, so a second server cannot share the port; backlog
// SOMAXCONN so a burst of clients is queued, not refused). Returns the descriptor and sets
// `bound_port`; -1 when nothing could be bound (see bind_failure_reason).
[[nodiscard]] int open_listen_socket(const std::string& host, int port, int& bound_port);

}  // namespace gridlock::oracle::detail
