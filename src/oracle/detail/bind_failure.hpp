#pragma once
// Why a listening socket could not be bound: cpp-httplib reports only that binding failed.

#include <string>

namespace gridlock::oracle::detail {

// Repeats the bind cpp-httplib attempts (getaddrinfo with AI_PASSIVE, SO_REUSEADDR, bind, listen)
// on `host`:`port` and says in words why it fails: a host that does not resolve, a port in use, an
// address that is not this machine's, a privileged port. Returns a generic reason if the retry
// succeeds (the address was taken only briefly).
[[nodiscard]] std::string bind_failure_reason(const std::string& host, int port);

}  // namespace gridlock::oracle::detail
