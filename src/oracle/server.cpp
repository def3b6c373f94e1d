#include "gridlock/oracle/server.hpp"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/bind_failure.hpp"
#include "detail/text.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/version.hpp"
#include "gridlock/oracle/status_json.hpp"
#include "gridlock/topo/topology_json.hpp"

// libmicrohttpd (Debian libmicrohttpd-dev) serves HTTP: an event-driven server with the bounds
// this service needs built in (connections in total and per address, per-connection memory, an
// inactivity timeout) and a body handed over as it streams in, so an oversized one, chunked or
// not, is refused as soon as it passes the limit. What it does not bound, the time to send a whole
// header, a whole request (header and body) and to take the answer, is enforced here by a reaper
// thread (see Impl::reap).

namespace gridlock::oracle {
namespace {

using Clock = std::chrono::steady_clock;

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

// The default metric of every endpoint that takes one (docs/oracle.md): the live one.
constexpr const char* kDefaultMetric = "bw";

// One request as the handlers see it.
struct Request {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> args;  // query parameters, in order
  std::string body;

  [[nodiscard]] const std::string* arg(std::string_view name) const {
    for (const auto& [key, value] : args) {
      if (key == name) {
        return &value;
      }
    }
    return nullptr;
  }
  // Refuses a query parameter not in `known` (a misspelt `widnow_s` would otherwise be ignored).
  void only_args(std::initializer_list<std::string_view> known) const {
    std::set<std::string_view> seen;
    for (const auto& [key, value] : args) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (const auto name : known) {
          list += list.empty() ? std::string(name) : fmt::format(", {}", name);
        }
        throw HttpError(400, "bad_request",
                        fmt::format("unknown query parameter '{}' for {}: {}", printable_excerpt(key), path,
                                    list.empty() ? "it takes none" : "use " + list));
      }
      if (!seen.insert(key).second) {
        throw HttpError(400, "bad_request", fmt::format("query parameter '{}' is given twice", key));
      }
    }
  }
};

struct Response {
  int status = 200;
  std::string body;
  const char* content_type = "application/json";
  std::string allow;
};

void reply(Response& res, const Json& body, int status = 200) {
  res.status = status;
  res.body = body.dump();
}

double query_double(const Request& req, const char* name, double fallback) {
  const auto* text = req.arg(name);
  if (text == nullptr) {
    return fallback;
  }
  const auto value = detail::to_double(*text);
  if (!value || !std::isfinite(*value)) {
    throw HttpError(400, "bad_request",
                    fmt::format("query parameter '{}={}' must be a number", name, printable_excerpt(*text)));
  }
  return *value;
}

// A true/false query parameter, `fallback` when absent. Anything else is refused rather than read
// as false: `endpoints=1` or `endpoints=yes` would otherwise quietly leave the endpoints out.
bool query_bool(const Request& req, const char* name, bool fallback) {
  const auto* text = req.arg(name);
  if (text == nullptr) {
    return fallback;
  }
  if (*text == "true" || *text == "false") {
    return *text == "true";
  }
  throw HttpError(
      400, "bad_request",
      fmt::format("query parameter '{}={}' must be true or false", name, printable_excerpt(*text)));
}

std::string query_required(const Request& req, const char* name) {
  const auto* text = req.arg(name);
  if (text == nullptr) {
    throw HttpError(400, "bad_request", fmt::format("missing query parameter '{}'", name));
  }
  return *text;
}

// Where a connection is in its current exchange; each phase has its own deadline (Impl::reap).
enum class Phase : std::uint8_t {
  kHeader,     // waiting for a request, or receiving its header: header_timeout_s (or keep-alive)
  kBody,       // header received, body arriving: request_timeout_s from the request's first line
  kAnswering,  // answer queued: request_timeout_s to take it
};

// Per TCP connection: its phase and when that phase's time runs out.
struct Connection {
  int fd = -1;
  // The client's address (family and bytes), for the per-address limit.
  std::string address;
  // Opened past the address's limit: it may ask for /v1/health only, and is closed after it.
  bool health_only = false;
  Phase phase = Phase::kHeader;
  Clock::time_point deadline;
  // When the current request's first line arrived (it bounds the whole request).
  Clock::time_point request_start;
};

// Per request: the body read so far.
struct RequestState {
  std::string body;
  bool answered = false;
  // On a connection past its address's limit (Connection::health_only): closed after the answer.
  bool health_only = false;
};

// Decodes %XX escapes in place, as libmicrohttpd's default does, except %00: a NUL would end the
// C string MHD hands over, so `/v1/nodes/a%00b` would be answered as `/v1/nodes/a`. It stays
// `%00`, and the request fails with the name as sent.
std::size_t unescape_keeping_nul(void* /*cls*/, MHD_Connection* /*connection*/, char* text) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  };
  char* out = text;
  for (const char* in = text; *in != '\0'; ++in) {
    if (*in == '%' && in[1] != '\0' && in[2] != '\0') {
      const int high = hex(in[1]);
      const int low = hex(in[2]);
      if (high >= 0 && low >= 0 && (high != 0 || low != 0)) {
        *out++ = static_cast<char>(high * 16 + low);
        in += 2;
        continue;
      }
    }
    *out++ = *in;
  }
  *out = '\0';
  return static_cast<std::size_t>(out - text);
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "ip6-localhost") {
    return true;
  }
  in_addr v4{};
  const std::string text(host);
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24U) == 127U;
  }
  in6_addr v6{};
  return inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

struct Server::Impl {
  const Oracle& oracle;
  ServerOptions options;
  std::function<std::vector<SourceHealth>()> status;
  MHD_Daemon* daemon = nullptr;
  std::array<std::atomic<std::uint64_t>, kEndpointCount> requests{};
  std::mutex errors_mutex;
  std::map<std::string, std::uint64_t> errors;

  // Open connections, for the header-time reaper. A Connection is erased when MHD reports the
  // connection closed, which it does before closing the descriptor, so `fd` is valid while listed.
  std::mutex connections_mutex;
  std::unordered_map<MHD_Connection*, Connection> connections;
  // Open connections per client address (Connection::address).
  std::unordered_map<std::string, unsigned> per_address;
  std::mutex reaper_mutex;
  std::condition_variable reaper_wake;
  bool stopping = false;
  std::thread reaper;
  std::atomic<std::uint64_t> header_timeouts{0};
  std::atomic<std::uint64_t> request_timeouts{0};

  Impl(const Oracle& o, ServerOptions opts, std::function<std::vector<SourceHealth>()> st)
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
      q.metric = parse_metric(body_field(body, "metric", std::string(kDefaultMetric)));
      q.reducer = parse_reducer(body_field(body, "reducer", std::string("max")));
    } catch (const InputError& e) {
      throw HttpError(400, "bad_request", e.what());
    }
    q.window_s = body_field(body, "window_s", 0.0);
    q.endpoints = body_field(body, "endpoints", false);
    q.undirected = body_field(body, "undirected", false);
    return q;
  }

  // The body as a JSON object whose fields are all in `known`.
  static Json parse_body(const Request& req, std::initializer_list<std::string_view> known) {
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded()) {
      throw HttpError(400, "invalid_json", "the request body is not valid JSON");
    }
    if (!body.is_object()) {
      throw HttpError(400, "bad_request", "the request body must be a JSON object");
    }
    for (const auto& [key, value] : body.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (const auto name : known) {
          list += list.empty() ? std::string(name) : fmt::format(", {}", name);
        }
        throw HttpError(400, "bad_request",
                        fmt::format("unknown field '{}' in the body of {}: use {}", printable_excerpt(key),
                                    req.path, list));
      }
    }
    return body;
  }

  Json health() {
    const auto stats = oracle.store().stats();
    const auto snap = oracle.snapshot(0);
    Json out{{"status", "ok"},
             {"service", "gridlock-oracle"},
             {"version", std::string(kVersion)},
             {"topology", oracle.topology().spec()},
             {"connections", open_connections()},
             {"header_timeouts", header_timeouts.load()},
             {"request_timeouts", request_timeouts.load()},
             {"time_s", snap->now_s},
             {"store",
              {{"intervals", stats.intervals},
               {"rejected", stats.rejected},
               {"counter_wraps", stats.counter_wraps},
               {"counter_resets", stats.counter_resets}}}};
    out["sources"] = status ? to_json(status()) : Json::array();
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

  std::size_t open_connections() {
    const std::lock_guard lock(connections_mutex);
    return connections.size();
  }

  // --- handlers -------------------------------------------------------------------------------

  void route_metrics_one(const Request& req, Response& res) const {
    req.only_args({"src", "dst", "metric", "reducer", "window_s", "endpoints", "undirected"});
    // No JSON document in between (it took about 10 µs of the one-pair latency); the answer is
    // the same text as reply() would give. parse_* throw InputError: 400 "bad_request".
    MetricQuery q;
    const auto* metric = req.arg("metric");
    const auto* reducer = req.arg("reducer");
    q.metric = parse_metric(metric != nullptr ? *metric : kDefaultMetric);
    q.reducer = parse_reducer(reducer != nullptr ? *reducer : "max");
    q.window_s = query_double(req, "window_s", 0);
    q.endpoints = query_bool(req, "endpoints", false);
    q.undirected = query_bool(req, "undirected", false);
    const auto src = resolve_name(query_required(req, "src"));
    const auto dst = resolve_name(query_required(req, "dst"));
    const auto values = oracle.route_metrics({{src, dst}}, q);
    res.body = fmt::format(R"({{"metric":"{}","reducer":"{}","value":{}}})", to_string(q.metric),
                           to_string(q.reducer), Json(values[0]).dump());
  }

  // The request's `field`, which must be an array (400 otherwise) of at most `limit` elements (413:
  // the limit is the server's, not the client's mistake in form).
  static Json::const_iterator required_array(const Json& body, const char* field, const char* of,
                                             std::size_t limit) {
    const auto it = body.find(field);
    if (it == body.end() || !it->is_array()) {
      throw HttpError(400, "bad_request", fmt::format("field '{}' must be an array {}", field, of));
    }
    if (it->size() > limit) {
      throw HttpError(413, "too_large",
                      fmt::format("{} {} requested; the limit is {}", it->size(), field, limit));
    }
    return it;
  }

  void route_metrics_batch(const Request& req, Response& res) const {
    req.only_args({});
    const Json body = parse_body(req, {"pairs", "metric", "reducer", "window_s", "endpoints", "undirected"});
    const auto q = query_from_json(body);
    const auto it = required_array(body, "pairs", "of [src, dst] pairs", options.max_pairs);
    std::vector<std::pair<topo::NodeId, topo::NodeId>> pairs;
    pairs.reserve(it->size());
    for (const auto& pair : *it) {
      if (!pair.is_array() || pair.size() != 2) {
        throw HttpError(400, "bad_request",
                        "field 'pairs': every pair must be a two-element array [src, dst]");
      }
      pairs.emplace_back(resolve(pair[0]), resolve(pair[1]));
    }
    reply(res, {{"metric", to_string(q.metric)},
                {"reducer", to_string(q.reducer)},
                {"window_s", q.window_s},
                {"values", oracle.route_metrics(pairs, q)}});
  }

  void metric_matrix(const Request& req, Response& res) const {
    req.only_args({});
    const Json body = parse_body(req, {"nodes", "metric", "reducer", "window_s", "endpoints", "undirected"});
    const auto q = query_from_json(body);
    const auto it = required_array(body, "nodes", "of node names or indices", options.max_matrix_nodes);
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
  }

  Json node_json(topo::NodeId id, bool with_id) const {
    const auto& t = oracle.topology();
    const auto& node = t.nodes()[id];
    Json out{{"name", node.name}};
    if (with_id) {
      out["id"] = id;
    }
    out["router"] = t.routers()[node.router].name;
    out["coords"] = t.routers()[node.router].coords;
    return out;
  }

  // Routes a request; throws HttpError for an unknown path or a method the path does not take.
  void dispatch(const Request& req, Response& res) {
    const bool get = req.method == "GET" || req.method == "HEAD";
    const bool post = req.method == "POST";
    const auto need = [&](Endpoint endpoint, bool allowed, const char* allow) {
      ++requests[endpoint];
      if (!allowed) {
        res.allow = allow;
        throw HttpError(405, "method_not_allowed",
                        fmt::format("{} is not allowed on '{}': use {} (see docs/oracle.md)",
                                    printable_excerpt(req.method), req.path, allow));
      }
    };
    const auto& path = req.path;
    if (path == "/v1/route-metrics") {
      need(kRouteMetrics, get || post, "GET, HEAD, POST");
      if (get) {
        route_metrics_one(req, res);
      } else {
        route_metrics_batch(req, res);
      }
    } else if (path == "/v1/health") {
      need(kHealth, get, "GET, HEAD");
      req.only_args({});
      reply(res, health());
    } else if (path == "/v1/topology") {
      need(kTopology, get, "GET, HEAD");
      req.only_args({});
      reply(res, topo::to_json(oracle.topology().summary()));
    } else if (path == "/v1/nodes") {
      need(kNodes, get, "GET, HEAD");
      req.only_args({});
      Json list = Json::array();
      for (std::size_t i = 0; i < oracle.topology().nodes().size(); ++i) {
        list.push_back(node_json(static_cast<topo::NodeId>(i), false));
      }
      reply(res, {{"nodes", std::move(list)}});
    } else if (path.starts_with("/v1/nodes/") && path.size() > 10 &&
               path.find('/', 10) == std::string::npos) {
      need(kNode, get, "GET, HEAD");
      req.only_args({});
      reply(res, node_json(resolve(Json(path.substr(10))), true));
    } else if (path == "/v1/route") {
      need(kRoute, get, "GET, HEAD");
      req.only_args({"src", "dst", "window_s"});
      const auto src = resolve(Json(query_required(req, "src")));
      const auto dst = resolve(Json(query_required(req, "dst")));
      reply(res, oracle.route_detail(src, dst, query_double(req, "window_s", 0)));
    } else if (path == "/v1/links") {
      need(kLinks, get, "GET, HEAD");
      req.only_args({"top", "window_s"});
      const double top = query_double(req, "top", 10);
      if (top < 0 || top > 1e6) {
        throw HttpError(400, "bad_request", "'top' must be between 0 and 1000000");
      }
      reply(res,
            {{"links", oracle.top_links(static_cast<std::size_t>(top), query_double(req, "window_s", 0))}});
    } else if (path == "/v1/metric-matrix") {
      need(kMetricMatrix, post, "POST");
      metric_matrix(req, res);
    } else if (path == "/metrics") {
      need(kPrometheus, get, "GET, HEAD");
      req.only_args({});
      res.body = prometheus();
      res.content_type = "text/plain; version=0.0.4";
    } else {
      ++requests[kOther];
      throw HttpError(404, "not_found",
                      fmt::format("no such path '{}': see docs/oracle.md", printable_excerpt(path)));
    }
  }

  // Answers a request, turning every exception into a JSON error.
  Response answer(const Request& req) {
    Response res;
    try {
      dispatch(req, res);
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
    return res;
  }

  // --- libmicrohttpd glue -----------------------------------------------------------------------

  static MHD_Result send(MHD_Connection* connection, const Response& res, bool close = false) {
    MHD_Response* response = MHD_create_response_from_buffer(
        res.body.size(), const_cast<char*>(res.body.data()), MHD_RESPMEM_MUST_COPY);
    if (response == nullptr) {
      return MHD_NO;
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, res.content_type);
    if (close) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
    }
    if (!res.allow.empty()) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, res.allow.c_str());
    }
    const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(res.status), response);
    MHD_destroy_response(response);
    return queued;
  }

  MHD_Result too_large(MHD_Connection* connection, RequestState& state, bool streaming) {
    state.answered = true;
    state.body.clear();
    state.body.shrink_to_fit();
    count_error("too_large");
    Response res;
    reply(res,
          error_body("too_large", fmt::format("request body larger than {} bytes (the server's --max-body)",
                                              options.max_body_bytes)),
          413);
    if (!streaming) {
      return send(connection, res);
    }
    // libmicrohttpd 0.9.75 accepts a response only before the body or after all of it; to refuse
    // a body that passes the limit while it streams in (a chunked 300 MB body) without reading
    // the rest, the 413 is written on the socket here and the connection is closed (MHD_NO).
    // The answer is a few hundred bytes: the socket's send buffer, empty at this point, takes it.
    const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != nullptr) {
      const std::string text = fmt::format(
          "HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
          "Connection: close\r\n\r\n{}",
          res.body.size(), res.body);
      (void)::send(info->connect_fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::shutdown(info->connect_fd, SHUT_WR);
    }
    return MHD_NO;
  }

  MHD_Result on_request(MHD_Connection* connection, const char* url, const char* method,
                        const char* upload_data, std::size_t* upload_size, void** request_cls) {
    auto* state = static_cast<RequestState*>(*request_cls);
    if (state == nullptr) {
      // The whole header has arrived: from now on the request's deadline applies, which counts
      // from its first line, so that a body trickling in cannot hold the connection for longer.
      bool health_only = false;
      {
        const std::lock_guard lock(connections_mutex);
        const auto it = connections.find(connection);
        if (it != connections.end()) {
          it->second.phase = Phase::kBody;
          it->second.deadline = it->second.request_start + std::chrono::seconds(options.request_timeout_s);
          health_only = it->second.health_only;
        }
      }
      state = new RequestState;  // NOLINT(cppcoreguidelines-owning-memory): freed in on_completed
      *request_cls = state;
      if (health_only) {
        state->health_only = true;
        const std::string_view verb = method;
        if (std::string_view(url) != "/v1/health" || (verb != "GET" && verb != "HEAD")) {
          // Refused before any body is read; the connection closes after the answer.
          state->answered = true;
          count_error("too_many_connections");
          Response res;
          reply(res,
                error_body("too_many_connections",
                           fmt::format("more than {} connections from your address (the server's "
                                       "--max-connections-per-address); only /v1/health is answered "
                                       "on further ones: close some and retry",
                                       options.max_connections_per_address)),
                429);
          return send(connection, res, true);
        }
      }
      const char* length =
          MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
      if (length != nullptr) {
        const auto declared = detail::to_double(length);
        if (!declared || *declared > static_cast<double>(options.max_body_bytes)) {
          return too_large(connection, *state, false);
        }
      }
      // Let MHD read the body (answering `Expect: 100-continue`), if any.
      return MHD_YES;
    }
    if (*upload_size != 0) {
      if (!state->answered) {
        if (state->body.size() + *upload_size > options.max_body_bytes) {
          *upload_size = 0;
          return too_large(connection, *state, true);
        }
        state->body.append(upload_data, *upload_size);
      }
      *upload_size = 0;
      return MHD_YES;
    }
    if (state->answered) {
      return MHD_YES;
    }
    state->answered = true;
    {
      // The request is whole; its answer must be taken within the same time again (a client that
      // reads a large answer a byte at a time holds the connection no longer than one sending).
      const std::lock_guard lock(connections_mutex);
      const auto it = connections.find(connection);
      if (it != connections.end()) {
        it->second.phase = Phase::kAnswering;
        it->second.deadline = Clock::now() + std::chrono::seconds(options.request_timeout_s);
      }
    }
    Request req;
    req.method = method;
    req.path = url;
    req.body = std::move(state->body);
    MHD_get_connection_values(
        connection, MHD_GET_ARGUMENT_KIND,
        [](void* cls, MHD_ValueKind, const char* key, const char* value) -> MHD_Result {
          static_cast<Request*>(cls)->args.emplace_back(key, value == nullptr ? "" : value);
          return MHD_YES;
        },
        &req);
    return send(connection, answer(req), state->health_only);
  }

  void on_completed(MHD_Connection* connection, void** request_cls) {
    delete static_cast<RequestState*>(*request_cls);  // NOLINT(cppcoreguidelines-owning-memory)
    *request_cls = nullptr;
    const std::lock_guard lock(connections_mutex);
    const auto it = connections.find(connection);
    if (it != connections.end()) {
      it->second.phase = Phase::kHeader;
      it->second.deadline =
          Clock::now() + std::chrono::seconds(std::max(options.header_timeout_s, options.keep_alive_s));
    }
  }

  // A request's first line has arrived (libmicrohttpd's URI log callback): its whole-request time
  // starts. The header deadline stays in force until the header is complete.
  void on_request_line(MHD_Connection* connection) {
    const auto now = Clock::now();
    const std::lock_guard lock(connections_mutex);
    const auto it = connections.find(connection);
    if (it != connections.end()) {
      it->second.request_start = now;
      it->second.deadline =
          std::min(it->second.deadline, now + std::chrono::seconds(options.request_timeout_s));
    }
  }

  void on_connection(MHD_Connection* connection, MHD_ConnectionNotificationCode code) {
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      Connection c;
      c.fd = info != nullptr ? info->connect_fd : -1;
      c.address = address_key(connection);
      c.request_start = Clock::now();
      c.deadline = c.request_start + std::chrono::seconds(options.header_timeout_s);
      const std::lock_guard lock(connections_mutex);
      // libmicrohttpd refuses an address's connections past the limit plus the health reserve;
      // the reserve's connections are marked here.
      c.health_only = ++per_address[c.address] > options.max_connections_per_address;
      connections[connection] = std::move(c);
    } else {
      const std::lock_guard lock(connections_mutex);
      const auto it = connections.find(connection);
      if (it != connections.end()) {
        const auto count = per_address.find(it->second.address);
        if (count != per_address.end() && --count->second == 0) {
          per_address.erase(count);
        }
        connections.erase(it);
      }
    }
  }

  // The client's address as a key: its family and address bytes (the port left out).
  static std::string address_key(MHD_Connection* connection) {
    const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == nullptr || info->client_addr == nullptr) {
      return {};
    }
    const sockaddr* address = info->client_addr;
    if (address->sa_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);  // NOLINT: the family says so
      return {reinterpret_cast<const char*>(&v4->sin_addr), sizeof v4->sin_addr};  // NOLINT: bytes
    }
    if (address->sa_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);  // NOLINT: the family says so
      return std::string(1, '6') +
             std::string(reinterpret_cast<const char*>(&v6->sin6_addr), sizeof v6->sin6_addr);  // NOLINT
    }
    return {};
  }

  // Closes connections whose phase has run out of time (see Phase). libmicrohttpd's own timeout
  // counts from the last byte received, so a client sending its header, or a body of 100,000
  // bytes, one byte a second would never time out, and 400 such clients made the service
  // unreachable. Shutting the socket down makes MHD's next read or write fail and close the
  // connection itself.
  void reap() {
    std::unique_lock lock(reaper_mutex);
    while (!reaper_wake.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping; })) {
      const auto now = Clock::now();
      const std::lock_guard guard(connections_mutex);
      for (auto& [connection, c] : connections) {
        if (c.fd >= 0 && now > c.deadline) {
          shutdown(c.fd, SHUT_RDWR);
          c.fd = -1;
          ++(c.phase == Phase::kHeader ? header_timeouts : request_timeouts);
        }
      }
    }
  }
};

Server::Server(const Oracle& oracle, ServerOptions options, std::function<std::vector<SourceHealth>()> status)
    : impl_(std::make_unique<Impl>(oracle, std::move(options), std::move(status))) {}

Server::Server(const Service& service, ServerOptions options)
    : Server(service.oracle(), std::move(options), [&service] { return service.status(); }) {}

Server::~Server() { stop(); }

int Server::start() {
  if (impl_->daemon != nullptr) {
    return port_;
  }
  const auto& o = impl_->options;
  if (o.request_timeout_s < 1 || o.request_timeout_s > kMaxRequestTimeoutS) {
    throw InputError(fmt::format("request timeout {} s: must be 1 to {} s (--request-timeout)",
                                 o.request_timeout_s, kMaxRequestTimeoutS));
  }
  int bound = 0;
  const int fd = detail::open_listen_socket(o.host, o.port, bound);
  if (fd < 0) {
    throw IoError(
        fmt::format("cannot listen on {}: {}; choose another with --listen HOST:PORT (port 0 picks a "
                    "free one, IPv6 addresses go in brackets: [::1]:8600)",
                    host_port(o.host, o.port), detail::bind_failure_reason(o.host, o.port)));
  }
  auto* impl = impl_.get();
  const MHD_AccessHandlerCallback handler = [](void* cls, MHD_Connection* connection, const char* url,
                                               const char* method, const char*, const char* upload_data,
                                               std::size_t* upload_size, void** request_cls) {
    return static_cast<Impl*>(cls)->on_request(connection, url, method, upload_data, upload_size,
                                               request_cls);
  };
  const MHD_RequestCompletedCallback completed = [](void* cls, MHD_Connection* connection, void** request_cls,
                                                    MHD_RequestTerminationCode) {
    static_cast<Impl*>(cls)->on_completed(connection, request_cls);
  };
  const MHD_NotifyConnectionCallback notify = [](void* cls, MHD_Connection* connection, void**,
                                                 MHD_ConnectionNotificationCode code) {
    static_cast<Impl*>(cls)->on_connection(connection, code);
  };
  // Its result becomes the request's first *request_cls, which must stay null (see on_request).
  using UriLogCallback = void* (*)(void*, const char*, MHD_Connection*);
  const UriLogCallback request_line = [](void* cls, const char*, MHD_Connection* connection) -> void* {
    static_cast<Impl*>(cls)->on_request_line(connection);
    return nullptr;
  };
  // The header must fit in the connection's memory pool with room for reading the body.
  const std::size_t memory = std::max<std::size_t>(2 * o.max_header_bytes, 16U << 10U);
  impl->daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO | MHD_USE_ITC, 0, nullptr, nullptr,
      handler, impl, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_THREAD_POOL_SIZE,
      static_cast<unsigned>(std::max(1, o.threads)), MHD_OPTION_CONNECTION_LIMIT, o.max_connections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, o.max_connections_per_address + kHealthConnectionsPerAddress,
      MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(std::max(1, std::max(o.header_timeout_s, o.keep_alive_s))),
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory, MHD_OPTION_NOTIFY_COMPLETED, completed, impl,
      MHD_OPTION_NOTIFY_CONNECTION, notify, impl, MHD_OPTION_URI_LOG_CALLBACK, request_line, impl,
      MHD_OPTION_UNESCAPE_CALLBACK, &unescape_keeping_nul, nullptr, MHD_OPTION_END);
  if (impl->daemon == nullptr) {
    close(fd);
    throw IoError(fmt::format("cannot start the HTTP server on {} (libmicrohttpd refused its options)",
                              host_port(o.host, bound)));
  }
  impl->stopping = false;
  impl->reaper = std::thread([impl] { impl->reap(); });
  port_ = bound;
  return port_;
}

void Server::stop() {
  auto* impl = impl_.get();
  if (impl->daemon == nullptr) {
    return;
  }
  {
    const std::lock_guard lock(impl->reaper_mutex);
    impl->stopping = true;
  }
  impl->reaper_wake.notify_all();
  impl->reaper.join();
  const int fd = MHD_quiesce_daemon(impl->daemon);
  MHD_stop_daemon(impl->daemon);
  impl->daemon = nullptr;
  if (fd >= 0) {
    close(fd);
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
