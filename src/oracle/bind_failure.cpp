#include "detail/bind_failure.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <system_error>

#include <fmt/format.h>

namespace gridlock::oracle::detail {
namespace {

std::string describe_errno(int error, const std::string& host, int port) {
  switch (error) {
    case EADDRINUSE:
      return fmt::format("port {} is already in use on {} (another server is listening there)", port, host);
    case EADDRNOTAVAIL:
      return fmt::format("{} is not an address of this machine (use one of its own addresses, or 0.0.0.0)",
                         host);
    case EACCES:
      return fmt::format("ports below 1024 need privileges (CAP_NET_BIND_SERVICE); port {} was refused",
                         port);
    case EAFNOSUPPORT:
      return fmt::format("this machine does not support the address family of {} (IPv6 disabled?)", host);
    default:
      return std::error_code(error, std::generic_category()).message();
  }
}

using AddressList = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

// The addresses a listening socket on host:port may bind (every one when host is empty), or an
// empty list with getaddrinfo's code in `rc`.
AddressList passive_addresses(const std::string& host, int port, int& rc) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
  return AddressList(rc == 0 ? found : nullptr, &freeaddrinfo);
}

}  // namespace

std::string bind_failure_reason(const std::string& host, int port) {
  int rc = 0;
  const AddressList list = passive_addresses(host, port, rc);
  if (rc != 0) {
    return fmt::format("'{}' is neither an address nor a host name this machine can resolve ({})", host,
                       gai_strerror(rc));
  }
  std::string reason = "the address could not be bound";
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) {
      reason = describe_errno(errno, host, port);
      continue;
    }
    const int yes = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    const bool bound = bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 1) == 0;
    const int error = errno;
    close(fd);
    if (bound) {
      return "the address was busy for a moment but is free now; try again";
    }
    reason = describe_errno(error, host, port);
  }
  return reason;
}

int open_listen_socket(const std::string& host, int port, int& bound_port) {
  int rc = 0;
  const AddressList list = passive_addresses(host, port, rc);
  if (rc != 0) {
    return -1;
  }
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      continue;
    }
    const int yes = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      close(fd);
      continue;
    }
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) {
      close(fd);
      continue;
    }
    bound_port = local.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
                                             : ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    return fd;
  }
  return -1;
}

}  // namespace gridlock::oracle::detail
