#include "gridlock/oracle/client.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "detail/response.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::oracle {
namespace {

using Clock = std::chrono::steady_clock;

// cpp-httplib takes timeouts as seconds and microseconds; a timeout below a second (--timeout
// 200ms) is kept.
template <typename Setter>
void set_timeout(Setter&& set, double seconds) {
  const auto whole = static_cast<time_t>(seconds);
  const auto micro = static_cast<time_t>((seconds - static_cast<double>(whole)) * 1e6);
  set(whole, micro);
}

}  // namespace

struct Client::Impl {
  std::string host;  // As written in the URL (an IPv6 address in brackets), for messages.
  int port = 0;
  double timeout_s = 0;
  std::size_t max_response_bytes = 0;
  // The end of the whole conversation (set_total_timeout()); no bound when unset.
  std::optional<Clock::time_point> total_deadline;
  double total_timeout_s = 0;
  httplib::Client http;
  Impl(std::string h, int p, double timeout, std::size_t max_response)
      : host(std::move(h)),
        port(p),
        timeout_s(timeout),
        max_response_bytes(max_response),
        http(host.starts_with('[') ? host.substr(1, host.size() - 2) : host, port) {
    http.set_keep_alive(true);
    http.set_tcp_nodelay(true);
    // Per read and write; the deadline of the whole exchange is exchange()'s.
    set_timeout([this](time_t sec, time_t usec) { http.set_read_timeout(sec, usec); }, timeout_s);
    set_timeout([this](time_t sec, time_t usec) { http.set_write_timeout(sec, usec); }, timeout_s);
  }

  [[nodiscard]] std::string server() const { return fmt::format("http://{}:{}", host, port); }

  // cpp-httplib names its errors in one word ("Connection"); say what each means here.
  static std::string describe(httplib::Error error) {
    switch (error) {
      case httplib::Error::Connection:
        return "connection refused, or the host is unreachable";
      case httplib::Error::ConnectionTimeout:
        return "no answer to the connection within the timeout";
      case httplib::Error::Read:
        return "the connection broke or timed out while reading the answer";
      case httplib::Error::Write:
        return "the connection broke while sending the request";
      case httplib::Error::BindIPAddress:
        return "cannot bind the local address";
      default:
        return httplib::to_string(error);
    }
  }

  // One request and its answer, all within timeout_s and with a body of at most
  // max_response_bytes. cpp-httplib's timeouts apply to each read, so a server sending its answer
  // a byte at a time kept the client waiting for as long as it liked, and it kept any body it was
  // sent (an endless chunked answer grew `oracle query` to 8 GB). A watchdog thread stops the
  // exchange at the deadline (httplib::Client::stop() shuts the socket down, which is how it is
  // meant to be stopped from another thread), and the body is received here, counted as it comes.
  Json exchange(httplib::Request request, const std::string& what) {
    const auto now = Clock::now();
    auto deadline =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    bool total_bound = false;
    if (total_deadline && *total_deadline < deadline) {
      deadline = *total_deadline;
      total_bound = true;
    }
    const double left_s = std::chrono::duration<double>(deadline - now).count();
    if (left_s <= 0) {
      throw IoError(fmt::format(
          "no time left for {} to the oracle at {}: the earlier requests used the whole timeout of {} s; "
          "raise --timeout if the server is just slow",
          what, server(), total_timeout_s));
    }
    set_timeout([this](time_t sec, time_t usec) { http.set_connection_timeout(sec, usec); }, left_s);
    std::string body;
    bool too_large = false;
    request.response_handler = [&](const httplib::Response& response) {
      // A declared length over the limit is refused before any of the body is read.
      const std::string length = response.get_header_value("Content-Length");
      // A length too long for 64 bits is over any limit too.
      bool out_of_range = false;
      const auto declared = parse_number<std::uint64_t>(length, out_of_range);
      too_large = (declared && *declared > max_response_bytes) || out_of_range;
      return !too_large;
    };
    request.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
      if (size > max_response_bytes - body.size()) {
        too_large = true;
        return false;
      }
      body.append(data, size);
      return true;
    };
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;
    bool expired = false;
    std::thread watchdog([&] {
      std::unique_lock lock(mutex);
      if (!wake.wait_until(lock, deadline, [&] { return done; })) {
        expired = true;
        http.stop();
      }
    });
    const auto result = http.send(request);
    {
      const std::lock_guard lock(mutex);
      done = true;
    }
    wake.notify_one();
    watchdog.join();
    if (too_large) {
      throw IoError(fmt::format(
          "the answer of the oracle at {} to {} is larger than {} (the client's limit; raise it with "
          "--max-response)",
          server(), what, format_bytes(max_response_bytes)));
    }
    if (!result) {
      if (expired || Clock::now() >= deadline) {
        throw IoError(fmt::format(
            "no whole answer from the oracle at {} to {} within the timeout of {} s (connect, send and "
            "receive{}); is the server overloaded? (raise --timeout if it is just slow)",
            server(), what, total_bound ? total_timeout_s : timeout_s,
            total_bound ? ", all requests together" : ""));
      }
      throw IoError(
          fmt::format("cannot reach the oracle at {} ({}: {}); is 'gridlock oracle serve' running there?",
                      server(), what, describe(result.error())));
    }
    return detail::parse_response(result->status, body, server(), what);
  }

  Json get(const std::string& path_and_query) {
    httplib::Request request;
    request.method = "GET";
    request.path = path_and_query;
    return exchange(std::move(request), "GET " + path_and_query);
  }

  Json post(const std::string& path, const Json& body) {
    httplib::Request request;
    request.method = "POST";
    request.path = path;
    request.body = body.dump();
    request.set_header("Content-Type", "application/json");
    return exchange(std::move(request), "POST " + path);
  }
};

Client::Client(const std::string& url, double timeout_s, std::size_t max_response_bytes) {
  if (!(timeout_s > 0) || timeout_s > 86400) {
    throw InputError(fmt::format("oracle client timeout {} s: must be above 0 and at most a day", timeout_s));
  }
  if (max_response_bytes < kMinResponseBytes || max_response_bytes > kMaxResponseBytes) {
    throw InputError(fmt::format("oracle client answer limit {}: must be 1 KiB to 4 GiB",
                                 format_bytes(max_response_bytes)));
  }
  std::string_view rest(url);
  if (const auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    if (rest.substr(0, scheme) != "http") {
      // The oracle serves plain HTTP only; left alone, "https://" became part of the host name.
      throw InputError(fmt::format(
          "oracle URL '{}': {}:// is not supported, the oracle serves plain HTTP; use http://HOST:PORT, e.g. "
          "http://127.0.0.1:8600",
          url, rest.substr(0, scheme)));
    }
    rest.remove_prefix(scheme + 3);
  }
  while (!rest.empty() && rest.back() == '/') {
    rest.remove_suffix(1);
  }
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    throw InputError(
        fmt::format("oracle URL '{}' must not have a path ('{}'): give http://HOST:PORT only, e.g. "
                    "http://127.0.0.1:8600; the "
                    "client adds /v1/... itself",
                    url, rest.substr(slash)));
  }
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    throw InputError(
        fmt::format("oracle URL '{}' must be http://HOST:PORT, e.g. http://127.0.0.1:8600", url));
  }
  const auto port_text = rest.substr(colon + 1);
  const int port = parse_int(port_text).value_or(0);
  if (port < 1 || port > 65535) {
    throw InputError(fmt::format("oracle URL '{}': port '{}' must be 1..65535", url, port_text));
  }
  const std::string_view host = rest.substr(0, colon);
  // An IPv6 address has colons of its own, so it goes in brackets: http://[::1]:8600.
  if (host.starts_with('[') != host.ends_with(']') || host == "[]" ||
      (!host.starts_with('[') && host.find(':') != std::string_view::npos)) {
    throw InputError(fmt::format(
        "oracle URL '{}': an IPv6 address goes in brackets before the port, e.g. http://[::1]:8600", url));
  }
  impl_ = std::make_unique<Impl>(std::string(host), port, timeout_s, max_response_bytes);
}

void Client::set_total_timeout(double seconds) {
  if (!(seconds > 0) || seconds > 86400) {
    throw InputError(
        fmt::format("oracle client total timeout {} s: must be above 0 and at most a day", seconds));
  }
  impl_->total_timeout_s = seconds;
  impl_->total_deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

Json Client::get(const std::string& path_and_query) { return impl_->get(path_and_query); }

Json Client::post(const std::string& path, const Json& body) { return impl_->post(path, body); }

Json Client::node(const std::string& name) { return get("/v1/nodes/" + url_encode(name)); }

Json Client::route(const std::string& src, const std::string& dst, double window_s) {
  return get(fmt::format("/v1/route?src={}&dst={}&window_s={}", url_encode(src), url_encode(dst), window_s));
}

namespace {
Json query_json(const MetricQuery& query) {
  return {{"metric", to_string(query.metric)},
          {"reducer", to_string(query.reducer)},
          {"window_s", query.window_s},
          {"endpoints", query.endpoints},
          {"undirected", query.undirected}};
}
}  // namespace

std::vector<double> Client::route_metrics(const std::vector<std::pair<std::string, std::string>>& pairs,
                                          const MetricQuery& query) {
  Json body = query_json(query);
  Json list = Json::array();
  for (const auto& [src, dst] : pairs) {
    list.push_back({src, dst});
  }
  body["pairs"] = std::move(list);
  return detail::parse_values(post("/v1/route-metrics", body), pairs.size(), impl_->server());
}

std::vector<double> Client::metric_matrix(const std::vector<std::string>& nodes, const MetricQuery& query) {
  Json body = query_json(query);
  body["nodes"] = nodes;
  return detail::parse_matrix(post("/v1/metric-matrix", body), nodes.size(), impl_->server());
}

std::string url_encode(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out;
}

}  // namespace gridlock::oracle
