#include "gridlock/oracle/server.hpp"

#include <array>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>

#include "detail/bind_failure.hpp"
#include "detail/lean_http.hpp"
#include "detail/text.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/version.hpp"

namespace gridlock::oracle {
namespace {

// HOST:PORT as a user writes it back: IPv6 addresses in brackets.
std::string host_port(const std::string& host, int port) {
  return host.find(':') == std::string::npos ? fmt::format("{}:{}", host, port)
                                             : fmt::format("[{}]:{}", host, port);
}

// An error answer: HTTP status, machine-readable code, human message.
struct HttpError : std::runtime_error {
  HttpError(int status_code, std::string error_code, const std::string& message)
      : std::runtime_error(message), status(status_code), code(std::move(error_code)) {}
  int status;
  std::string code;
};

Json error_body(std::string_view code, std::string_view message) {
  return {{"error", {{"code", code}, {"message", message}}}};
}

void reply(httplib::Response& res, const Json& body, int status = 200) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

enum Endpoint : std::uint8_t {
  kHealth,
  kTopology,
  kNodes,
  kNode,
  kRoute,
  kLinks,
  kRouteMetrics,
  kMetricMatrix,
  kPrometheus,
  kOther,
  kEndpointCount
};
constexpr std::array<std::string_view, kEndpointCount> kEndpointNames{
    "/v1/health", "/v1/topology",      "/v1/nodes",         "/v1/nodes/{name}", "/v1/route",
    "/v1/links",  "/v1/route-metrics", "/v1/metric-matrix", "/metrics",         "other"};

double query_double(const httplib::Request& req, const char* name, double fallback) {
  if (!req.has_param(name)) {
    return fallback;
  }
  const auto text = req.get_param_value(name);
  const auto value = detail::to_double(text);
  if (!value || !std::isfinite(*value)) {
    throw HttpError(400, "bad_request", fmt::format("query parameter '{}={}' must be a number", name, text));
  }
  return *value;
}

// A true/false query parameter, `fallback` when absent. Anything else is refused rather than read
// as false: `endpoints=1` or `endpoints=yes` would otherwise quietly leave the endpoints out.
bool query_bool(const httplib::Request& req, const char* name, bool fallback) {
  if (!req.has_param(name)) {
    return fallback;
  }
  const auto text = req.get_param_value(name);
  if (text == "true" || text == "false") {
    return text == "true";
  }
  throw HttpError(
      400, "bad_request",
      fmt::format("query parameter '{}={}' must be true or false", name, printable_excerpt(text)));
}

std::string query_required(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) {
    throw HttpError(400, "bad_request", fmt::format("missing query parameter '{}'", name));
  }
  return req.get_param_value(name);
}

}  // namespace

struct Server::Impl {
  const Oracle& oracle;
  ServerOptions options;
  std::function<Json()> status;
  detail::LeanHttpServer http;
  std::array<std::atomic<std::uint64_t>, kEndpointCount> requests{};
  std::mutex errors_mutex;
  std::map<std::string, std::uint64_t> errors;
  // Every route as registered (filled by install(), read-only afterwards): the same list gives the
  // handlers and the Allow header of a 405, so a path or method cannot be added to one only.
  struct Route {
    std::regex pattern;  // as cpp-httplib matches it: std::regex_match on the path
    bool post = false;   // POST, else GET (cpp-httplib answers HEAD with the GET handler)
  };
  std::vector<Route> routes;

  Impl(const Oracle& o, ServerOptions opts, std::function<Json()> st)
      : oracle(o), options(std::move(opts)), status(std::move(st)) {}

  void count_error(const std::string& code) {
    const std::lock_guard lock(errors_mutex);
    ++errors[code];
  }

  topo::NodeId resolve_name(std::string_view name) const {
    const auto& t = oracle.topology();
    if (const auto id = t.find_node(name)) {
      return *id;
    }
    throw HttpError(404, "unknown_node",
                    fmt::format("unknown node '{}' (nodes are named like '{}')", printable_excerpt(name),
                                t.nodes().front().name));
  }

  topo::NodeId resolve(const Json& value) const {
    const auto& t = oracle.topology();
    if (value.is_string()) {
      return resolve_name(value.get_ref<const std::string&>());
    }
    if (value.is_number_unsigned()) {
      const auto id = value.get<std::uint64_t>();
      if (id < t.nodes().size()) {
        return static_cast<topo::NodeId>(id);
      }
      throw HttpError(404, "unknown_node",
                      fmt::format("node index {} is out of range 0..{}", id, t.nodes().size() - 1));
    }
    throw HttpError(400, "bad_request", "a node must be a name (string) or an index (non-negative integer)");
  }

  // Field `name` of a request body as T (std::string, double or bool), `fallback` when absent. A
  // wrong type names the field and both types, instead of the JSON library's exception text.
  template <typename T>
  static T body_field(const Json& body, const char* name, T fallback) {
    const auto it = body.find(name);
    if (it == body.end()) {
      return fallback;
    }
    bool ok = false;
    std::string_view expected;
    if constexpr (std::is_same_v<T, std::string>) {
      ok = it->is_string();
      expected = "a string";
    } else if constexpr (std::is_same_v<T, double>) {
      ok = it->is_number();
      expected = "a number";
    } else {
      static_assert(std::is_same_v<T, bool>);
      ok = it->is_boolean();
      expected = "true or false";
    }
    if (!ok) {
      throw HttpError(400, "bad_request",
                      fmt::format("field '{}' must be {}, not a JSON {} ({})", name, expected,
                                  it->type_name(), printable_excerpt(it->dump())));
    }
    return it->get<T>();
  }

  static MetricQuery query_from_json(const Json& body) {
    MetricQuery q;
    try {
      q.metric = parse_metric(body_field(body, "metric", std::string("hops")));
      q.reducer = parse_reducer(body_field(body, "reducer", std::string("max")));
    } catch (const InputError& e) {
      throw HttpError(400, "bad_request", e.what());
    }
    q.window_s = body_field(body, "window_s", 0.0);
    q.endpoints = body_field(body, "endpoints", false);
    q.undirected = body_field(body, "undirected", false);
    return q;
  }

  static Json parse_body(const httplib::Request& req) {
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded()) {
      throw HttpError(400, "invalid_json", "the request body is not valid JSON");
    }
    if (!body.is_object()) {
      throw HttpError(400, "bad_request", "the request body must be a JSON object");
    }
    return body;
  }

  // Runs a handler, turning every exception into a JSON error; counts the request.
  template <typename Fn>
  httplib::Server::Handler wrap(Endpoint endpoint, Fn fn) {
    return [this, endpoint, fn](const httplib::Request& req, httplib::Response& res) {
      ++requests[endpoint];
      try {
        fn(req, res);
      } catch (const HttpError& e) {
        count_error(e.code);
        reply(res, error_body(e.code, e.what()), e.status);
      } catch (const InputError& e) {
        count_error("bad_request");
        reply(res, error_body("bad_request", e.what()), 400);
      } catch (const std::exception& e) {
        count_error("internal");
        reply(res, error_body("internal", e.what()), 500);
      }
    };
  }

  // Registers a GET (and HEAD) route and adds it to `routes`.
  template <typename Fn>
  void on_get(const char* pattern, Endpoint endpoint, Fn fn) {
    http.Get(pattern, wrap(endpoint, std::move(fn)));
    routes.push_back(Route{std::regex(pattern), false});
  }

  // Registers a POST route and adds it to `routes`.
  template <typename Fn>
  void on_post(const char* pattern, Endpoint endpoint, Fn fn) {
    http.Post(pattern, wrap(endpoint, std::move(fn)));
    routes.push_back(Route{std::regex(pattern), true});
  }

  // The methods a known path answers (the value of an Allow header), or empty for an unknown path.
  // cpp-httplib answers a known path asked with another method 404, as if it did not exist.
  std::string allowed_methods(const std::string& path) const {
    bool get = false;
    bool post = false;
    for (const auto& route : routes) {
      if (std::regex_match(path, route.pattern)) {
        (route.post ? post : get) = true;
      }
    }
    if (get) {
      return post ? "GET, HEAD, POST" : "GET, HEAD";
    }
    return post ? "POST" : "";
  }

  Json health() const {
    const auto stats = oracle.store().stats();
    const auto snap = oracle.snapshot(0);
    Json out{{"status", "ok"},
             {"service", "gridlock-oracle"},
             {"version", std::string(kVersion)},
             {"topology", oracle.topology().spec()},
             {"time_s", snap->now_s},
             {"store",
              {{"intervals", stats.intervals},
               {"rejected", stats.rejected},
               {"counter_wraps", stats.counter_wraps},
               {"counter_resets", stats.counter_resets}}}};
    out["sources"] = status ? status() : Json::array();
    return out;
  }

  std::string prometheus() {
    const auto stats = oracle.store().stats();
    std::string out;
    out += "# HELP gridlock_oracle_requests_total Requests answered, by path.\n";
    out += "# TYPE gridlock_oracle_requests_total counter\n";
    for (std::size_t i = 0; i < kEndpointCount; ++i) {
      out += fmt::format("gridlock_oracle_requests_total{{path=\"{}\"}} {}\n", kEndpointNames[i],
                         requests[i].load());
    }
    out += "# HELP gridlock_oracle_errors_total Error answers, by code.\n";
    out += "# TYPE gridlock_oracle_errors_total counter\n";
    {
      const std::lock_guard lock(errors_mutex);
      for (const auto& [code, count] : errors) {
        out += fmt::format("gridlock_oracle_errors_total{{code=\"{}\"}} {}\n", code, count);
      }
    }
    out += "# HELP gridlock_oracle_store_intervals_total Link intervals stored.\n";
    out += "# TYPE gridlock_oracle_store_intervals_total counter\n";
    out += fmt::format("gridlock_oracle_store_intervals_total {}\n", stats.intervals);
    out += "# HELP gridlock_oracle_store_rejected_total Link intervals rejected as invalid.\n";
    out += "# TYPE gridlock_oracle_store_rejected_total counter\n";
    out += fmt::format("gridlock_oracle_store_rejected_total {}\n", stats.rejected);
    out += "# HELP gridlock_oracle_counter_events_total Counter wrap-arounds and resets seen by sources.\n";
    out += "# TYPE gridlock_oracle_counter_events_total counter\n";
    out += fmt::format("gridlock_oracle_counter_events_total{{event=\"wrap\"}} {}\n", stats.counter_wraps);
    out += fmt::format("gridlock_oracle_counter_events_total{{event=\"reset\"}} {}\n", stats.counter_resets);
    const auto snap = oracle.snapshot(0);
    const auto& t = oracle.topology();
    out += "# HELP gridlock_oracle_link_used_bw_percent Used bandwidth of a network link, newest interval.\n";
    out += "# TYPE gridlock_oracle_link_used_bw_percent gauge\n";
    std::string stalls =
        "# HELP gridlock_oracle_link_stall_percent Stalled time of a network link, newest interval.\n"
        "# TYPE gridlock_oracle_link_stall_percent gauge\n";
    for (std::size_t i = 0; i < snap->links.size(); ++i) {
      const auto& m = snap->links[i];
      if (!m.has_data) {
        continue;
      }
      const auto label = t.link_name(static_cast<topo::LinkId>(i));
      out += fmt::format("gridlock_oracle_link_used_bw_percent{{link=\"{}\"}} {}\n", label, m.used_bw_pct);
      stalls += fmt::format("gridlock_oracle_link_stall_percent{{link=\"{}\"}} {}\n", label, m.stall_pct);
    }
    return out + stalls;
  }

  void install() {
    http.set_payload_max_length(options.max_body_bytes);
    http.set_read_timeout(options.timeout_s, 0);
    http.set_write_timeout(options.timeout_s, 0);
    http.set_keep_alive_timeout(options.keep_alive_s);
    http.set_keep_alive_max_count(1000);
    http.set_tcp_nodelay(true);
    // cpp-httplib's default sets SO_REUSEPORT, which lets a second server bind the same port and
    // silently steal half the connections; SO_REUSEADDR alone still allows a quick restart.
    http.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    const int threads = std::max(1, options.threads);
    http.use_thread_pool(static_cast<std::size_t>(threads));
    http.set_exception_handler(
        [this](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
          count_error("internal");
          reply(res, error_body("internal", "internal error while answering the request"), 500);
        });
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) {
        return;
      }
      const std::string allow = res.status == 404 ? allowed_methods(req.path) : std::string();
      if (res.status == 413) {
        count_error("too_large");
        reply(
            res,
            error_body("too_large", fmt::format("request body larger than {} bytes", options.max_body_bytes)),
            413);
      } else if (!allow.empty()) {
        ++requests[kOther];
        count_error("method_not_allowed");
        res.set_header("Allow", allow);
        reply(res,
              error_body("method_not_allowed",
                         fmt::format("{} is not allowed on '{}': use {} (see docs/oracle.md)", req.method,
                                     req.path, allow)),
              405);
      } else if (res.status == 404) {
        ++requests[kOther];
        count_error("not_found");
        reply(res, error_body("not_found", fmt::format("no such path '{}': see docs/oracle.md", req.path)),
              404);
      } else {
        count_error("http_error");
        // Statuses set by the HTTP layer before any handler ran: say what usually causes them.
        const char* why = res.status == 400   ? ": the request could not be read (a POST needs a "
                                                "Content-Length header or a chunked body)"
                          : res.status == 414 ? ": the request line is too long"
                          : res.status == 413 ? ": the request body is too large"
                                              : "";
        reply(res, error_body("http_error", fmt::format("HTTP status {}{}", res.status, why)), res.status);
      }
    });
    // First: cpp-httplib tries the patterns (std::regex) in order, and this is the latency-critical
    // one-pair query (the patterns are anchored and disjoint, so the order changes no answer).
    on_get("/v1/route-metrics", kRouteMetrics, [this](const httplib::Request& req, httplib::Response& res) {
      // No JSON document in between (it took about 10 µs of the one-pair latency); the answer is
      // the same text as reply() would give. parse_* throw InputError: 400 "bad_request".
      MetricQuery q;
      q.metric = parse_metric(req.has_param("metric") ? req.get_param_value("metric") : "hops");
      q.reducer = parse_reducer(req.has_param("reducer") ? req.get_param_value("reducer") : "max");
      q.window_s = query_double(req, "window_s", 0);
      q.endpoints = query_bool(req, "endpoints", false);
      q.undirected = query_bool(req, "undirected", false);
      const auto src = resolve_name(query_required(req, "src"));
      const auto dst = resolve_name(query_required(req, "dst"));
      const auto values = oracle.route_metrics({{src, dst}}, q);
      res.set_content(fmt::format(R"({{"metric":"{}","reducer":"{}","value":{}}})", to_string(q.metric),
                                  to_string(q.reducer), Json(values[0]).dump()),
                      "application/json");
    });
    on_get("/v1/health", kHealth,
           [this](const httplib::Request&, httplib::Response& res) { reply(res, health()); });
    on_get("/v1/topology", kTopology, [this](const httplib::Request&, httplib::Response& res) {
      reply(res, oracle.topology().summary());
    });
    on_get("/v1/nodes", kNodes, [this](const httplib::Request&, httplib::Response& res) {
      const auto& t = oracle.topology();
      Json list = Json::array();
      for (const auto& node : t.nodes()) {
        list.push_back({{"name", node.name},
                        {"router", t.routers()[node.router].name},
                        {"coords", t.routers()[node.router].coords}});
      }
      reply(res, {{"nodes", std::move(list)}});
    });
    on_get(R"(/v1/nodes/([^/]+))", kNode, [this](const httplib::Request& req, httplib::Response& res) {
      const auto& t = oracle.topology();
      const auto id = resolve(Json(req.matches[1].str()));
      const auto& node = t.nodes()[id];
      reply(res, {{"name", node.name},
                  {"id", id},
                  {"router", t.routers()[node.router].name},
                  {"coords", t.routers()[node.router].coords}});
    });
    on_get("/v1/route", kRoute, [this](const httplib::Request& req, httplib::Response& res) {
      const auto src = resolve(Json(query_required(req, "src")));
      const auto dst = resolve(Json(query_required(req, "dst")));
      reply(res, oracle.route_detail(src, dst, query_double(req, "window_s", 0)));
    });
    on_get("/v1/links", kLinks, [this](const httplib::Request& req, httplib::Response& res) {
      const double top = query_double(req, "top", 10);
      if (top < 0 || top > 1e6) {
        throw HttpError(400, "bad_request", "'top' must be between 0 and 1000000");
      }
      reply(res,
            {{"links", oracle.top_links(static_cast<std::size_t>(top), query_double(req, "window_s", 0))}});
    });
    on_post("/v1/route-metrics", kRouteMetrics, [this](const httplib::Request& req, httplib::Response& res) {
      const Json body = parse_body(req);
      const auto q = query_from_json(body);
      const auto it = body.find("pairs");
      if (it == body.end() || !it->is_array()) {
        throw HttpError(400, "bad_request", "'pairs' must be an array of [src, dst] pairs");
      }
      if (it->size() > options.max_pairs) {
        throw HttpError(413, "too_large",
                        fmt::format("{} pairs requested; the limit is {}", it->size(), options.max_pairs));
      }
      std::vector<std::pair<topo::NodeId, topo::NodeId>> pairs;
      pairs.reserve(it->size());
      for (const auto& pair : *it) {
        if (!pair.is_array() || pair.size() != 2) {
          throw HttpError(400, "bad_request", "every pair must be a two-element array [src, dst]");
        }
        pairs.emplace_back(resolve(pair[0]), resolve(pair[1]));
      }
      reply(res, {{"metric", to_string(q.metric)},
                  {"reducer", to_string(q.reducer)},
                  {"window_s", q.window_s},
                  {"values", oracle.route_metrics(pairs, q)}});
    });
    on_post("/v1/metric-matrix", kMetricMatrix, [this](const httplib::Request& req, httplib::Response& res) {
      const Json body = parse_body(req);
      const auto q = query_from_json(body);
      const auto it = body.find("nodes");
      if (it == body.end() || !it->is_array()) {
        throw HttpError(400, "bad_request", "'nodes' must be an array of node names or indices");
      }
      if (it->size() > options.max_matrix_nodes) {
        throw HttpError(
            413, "too_large",
            fmt::format("{} nodes requested; the limit is {}", it->size(), options.max_matrix_nodes));
      }
      std::vector<topo::NodeId> nodes;
      for (const auto& node : *it) {
        nodes.push_back(resolve(node));
      }
      const auto values = oracle.metric_matrix(nodes, q);
      Json matrix = Json::array();
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        matrix.push_back(
            std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(i * nodes.size()),
                                values.begin() + static_cast<std::ptrdiff_t>((i + 1) * nodes.size())));
      }
      Json names = Json::array();
      for (const auto id : nodes) {
        names.push_back(oracle.topology().nodes()[id].name);
      }
      reply(res, {{"metric", to_string(q.metric)},
                  {"reducer", to_string(q.reducer)},
                  {"nodes", std::move(names)},
                  {"matrix", std::move(matrix)}});
    });
    on_get("/metrics", kPrometheus, [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(prometheus(), "text/plain; version=0.0.4");
    });
  }
};

Server::Server(const Oracle& oracle, ServerOptions options, std::function<Json()> status)
    : impl_(std::make_unique<Impl>(oracle, std::move(options), std::move(status))) {
  impl_->install();
}

Server::~Server() { stop(); }

int Server::start() {
  if (thread_.joinable()) {
    return port_;
  }
  auto& http = impl_->http;
  const auto& o = impl_->options;
  if (o.port == 0) {
    port_ = http.bind_to_any_port(o.host);
  } else {
    port_ = http.bind_to_port(o.host, o.port) ? o.port : -1;
  }
  if (port_ > 0 && !http.widen_listen_backlog()) {
    http.stop();
    port_ = -1;
  }
  if (port_ <= 0) {
    port_ = 0;
    throw IoError(
        fmt::format("cannot listen on {}: {}; choose another with --listen HOST:PORT (port 0 picks a "
                    "free one, IPv6 addresses go in brackets: [::1]:8600)",
                    host_port(o.host, o.port), detail::bind_failure_reason(o.host, o.port)));
  }
  thread_ = std::thread([&http] { http.listen_after_bind(); });
  // Wait until the accept loop runs, so that stop() right after start() cannot be missed.
  for (int i = 0; i < 5000 && !http.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port_;
}

void Server::stop() {
  if (thread_.joinable()) {
    impl_->http.stop();
    thread_.join();
  }
}

std::uint64_t Server::requests() const noexcept {
  std::uint64_t total = 0;
  for (const auto& count : impl_->requests) {
    total += count.load();
  }
  return total;
}

}  // namespace gridlock::oracle
