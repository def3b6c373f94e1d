#include "gridlock/oracle/client.hpp"

#include <charconv>

#include <fmt/format.h>
#include <httplib.h>

#include "gridlock/core/error.hpp"

namespace gridlock::oracle {

struct Client::Impl {
  std::string host;  // As written in the URL (an IPv6 address in brackets), for messages.
  int port = 0;
  httplib::Client http;
  Impl(std::string h, int p, double timeout_s)
      : host(std::move(h)),
        port(p),
        http(host.starts_with('[') ? host.substr(1, host.size() - 2) : host, port) {
    http.set_keep_alive(true);
    http.set_tcp_nodelay(true);
    // Seconds and microseconds, so that a timeout below a second (--timeout 200ms) is kept.
    const auto whole = static_cast<time_t>(timeout_s);
    const auto micro = static_cast<time_t>((timeout_s - static_cast<double>(whole)) * 1e6);
    http.set_connection_timeout(whole, micro);
    http.set_read_timeout(whole, micro);
    http.set_write_timeout(whole, micro);
  }

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

  // A string member of an error object, or `fallback` (the server is not trusted to send strings).
  static std::string string_field(const Json& object, const char* key, const char* fallback) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
  }

  Json handle(const httplib::Result& result, std::string_view what) const {
    if (!result) {
      throw IoError(
          fmt::format("cannot reach the oracle at http://{}:{} ({}: {}); is 'gridlock oracle serve' "
                      "running there?",
                      host, port, what, describe(result.error())));
    }
    Json body = Json::parse(result->body, nullptr, false);
    // An oracle's errors are JSON {"error": {"code", "message"}}; anything else comes from some
    // other server (a proxy, another service on the port), and saying "the oracle" would mislead.
    const bool oracle_error =
        !body.is_discarded() && body.is_object() && body.contains("error") && body["error"].is_object();
    if (result->status >= 400) {
      std::string text;
      if (oracle_error) {
        text = fmt::format("the oracle at http://{}:{} answered {} with {}: {}", host, port, what,
                           string_field(body["error"], "code", "error"),
                           string_field(body["error"], "message", ""));
      } else {
        text = fmt::format(
            "the server at http://{}:{} answered {} with HTTP {} and no oracle error; is it a "
            "gridlock oracle ('gridlock oracle serve')?",
            host, port, what, result->status);
      }
      if (result->status < 500) {
        throw InputError(text);
      }
      throw Error(text);
    }
    if (body.is_discarded()) {
      throw Error(
          fmt::format("the server at http://{}:{} answered {} with a body that is not JSON; is it a gridlock "
                      "oracle ('gridlock oracle serve')?",
                      host, port, what));
    }
    return body;
  }
};

Client::Client(const std::string& url, double timeout_s) {
  if (!(timeout_s > 0) || timeout_s > 86400) {
    throw InputError(fmt::format("oracle client timeout {} s: must be above 0 and at most a day", timeout_s));
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
  int port = 0;
  if (colon == std::string_view::npos || colon == 0) {
    throw InputError(
        fmt::format("oracle URL '{}' must be http://HOST:PORT, e.g. http://127.0.0.1:8600", url));
  }
  const auto port_text = rest.substr(colon + 1);
  const auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || port < 1 || port > 65535) {
    throw InputError(fmt::format("oracle URL '{}': port '{}' must be 1..65535", url, port_text));
  }
  const std::string_view host = rest.substr(0, colon);
  // An IPv6 address has colons of its own, so it goes in brackets: http://[::1]:8600.
  if (host.starts_with('[') != host.ends_with(']') || host == "[]" ||
      (!host.starts_with('[') && host.find(':') != std::string_view::npos)) {
    throw InputError(fmt::format(
        "oracle URL '{}': an IPv6 address goes in brackets before the port, e.g. http://[::1]:8600", url));
  }
  impl_ = std::make_unique<Impl>(std::string(host), port, timeout_s);
}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

Json Client::get(const std::string& path_and_query) {
  return impl_->handle(impl_->http.Get(path_and_query), "GET " + path_and_query);
}

Json Client::post(const std::string& path, const Json& body) {
  return impl_->handle(impl_->http.Post(path, body.dump(), "application/json"), "POST " + path);
}

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
  return post("/v1/route-metrics", body).at("values").get<std::vector<double>>();
}

std::vector<double> Client::metric_matrix(const std::vector<std::string>& nodes, const MetricQuery& query) {
  Json body = query_json(query);
  body["nodes"] = nodes;
  const Json answer = post("/v1/metric-matrix", body);
  std::vector<double> out;
  for (const auto& row : answer.at("matrix")) {
    for (const auto& v : row) {
      out.push_back(v.get<double>());
    }
  }
  return out;
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
