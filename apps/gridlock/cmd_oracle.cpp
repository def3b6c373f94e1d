// `gridlock oracle serve` (the resource oracle service) and `gridlock oracle query` (its client).
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX sigtimedwait

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/oracle/client.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/oracle/tables.hpp"
#include "gridlock/topo/spec.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct ServeArgs {
  std::string spec;
  std::string listen = "127.0.0.1:8600";
  std::vector<std::string> sources;
  std::string sim_rate = "2GB/s";
  std::string node;
  std::string poll = "1s";
  std::string duration = "0";
  std::string port_file;
  int threads = 4;
  std::size_t max_pairs = 100000;
  std::string max_body = "4MiB";
  unsigned counter_bits = 64;
  std::string xmit_wait_unit = "8B";
  double ib_tick_ns = 0;
  double retention_s = 600;
  bool allow_remote = false;
  unsigned max_connections = 1000;
  unsigned max_connections_per_address = 400;
  std::string request_timeout = "10s";
};

struct QueryArgs {
  std::string server = "http://127.0.0.1:8600";
  std::string what;
  std::vector<std::string> args;
  std::string metric = "bw";
  std::string reducer = "max";
  std::string window = "0";
  bool endpoints = false;
  bool undirected = false;
  bool json = false;
  std::size_t top = 10;
  std::string timeout = "10s";
  std::string max_response = "8MiB";
};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// HOST:PORT, or [IPV6]:PORT: an IPv6 address has colons of its own, so it goes in brackets.
std::pair<std::string, int> parse_listen(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw InputError(
        fmt::format("--listen '{}' must be HOST:PORT, e.g. 127.0.0.1:8600 (port 0 picks a free one)", text));
  }
  std::string host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') {
      throw InputError(fmt::format(
          "--listen '{}': an IPv6 address goes in brackets before the port, e.g. [::1]:8600", text));
    }
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    throw InputError(fmt::format(
        "--listen '{}': an IPv6 address goes in brackets before the port, e.g. [::1]:8600", text));
  }
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1) {
      port = -1;
    }
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535) {
    throw InputError(fmt::format("--listen '{}': the port must be 0..65535", text));
  }
  return {host, port};
}

// The port_xmit_wait unit of the command line (--ib-tick-ns, if given, is a unit in ns).
oracle::XmitWaitUnit xmit_wait_unit(const ServeArgs& args) {
  if (args.ib_tick_ns > 0) {
    oracle::XmitWaitUnit unit;
    unit.bytes = 0;
    unit.ns = args.ib_tick_ns;
    return unit;
  }
  return oracle::XmitWaitUnit::parse(args.xmit_wait_unit);
}

// Shortest --poll: sources are read in a loop, and a shorter period only burns CPU (LDMS samples
// every second or so, InfiniBand counters are read from sysfs).
constexpr double kMinPollS = 0.01;

void run_serve(const ServeArgs& args) {
  const auto topology = topo::make_topology(args.spec);
  const auto [host, port] = parse_listen(args.listen);
  const double poll_s = parse_duration_seconds(args.poll, "--poll");
  const double duration_s = parse_duration_seconds(args.duration, "--duration");
  if (!(poll_s >= kMinPollS)) {
    throw InputError(fmt::format(
        "--poll {}: must be at least 10ms (how often the sources are read), e.g. --poll 1s", args.poll));
  }
  if (!(args.retention_s > 0) || !std::isfinite(args.retention_s)) {
    throw InputError(fmt::format(
        "--retention {}: must be a positive number of seconds (the history kept per link; with none "
        "every link would have no data), e.g. --retention 600",
        args.retention_s));
  }
  if (args.max_pairs == 0) {
    throw InputError(
        "--max-pairs 0: must be at least 1 (the most node pairs in one request), e.g. --max-pairs 100000");
  }
  const auto max_body = parse_byte_size(args.max_body, "--max-body");
  if (max_body == 0) {
    throw InputError(fmt::format(
        "--max-body {}: must be at least 1 byte (the largest request body accepted), e.g. --max-body 4MiB",
        args.max_body));
  }
  const double request_timeout_s = parse_duration_seconds(args.request_timeout, "--request-timeout");
  if (!(request_timeout_s >= 1 && request_timeout_s <= oracle::kMaxRequestTimeoutS) ||
      request_timeout_s != std::floor(request_timeout_s)) {
    throw InputError(fmt::format(
        "--request-timeout {}: must be whole seconds from 1s to {}s (the time a client has to send a "
        "whole request, header and body), e.g. --request-timeout 10s",
        args.request_timeout, oracle::kMaxRequestTimeoutS));
  }
  oracle::ServiceOptions service_options;
  service_options.sources = args.sources;
  service_options.source_options.sim_rate = args.sim_rate;
  service_options.source_options.counter_bits = args.counter_bits;
  service_options.source_options.xmit_wait = xmit_wait_unit(args);
  service_options.source_options.node = args.node;
  service_options.retention_s = args.retention_s;
  service_options.poll_s = poll_s;
  oracle::Service service(*topology, service_options);
  service.poll_once(now_seconds());
  oracle::ServerOptions options;
  options.host = host;
  options.port = port;
  options.threads = args.threads;
  options.max_pairs = args.max_pairs;
  options.max_body_bytes = max_body;
  options.max_connections = args.max_connections;
  options.max_connections_per_address = args.max_connections_per_address;
  options.request_timeout_s = static_cast<int>(request_timeout_s);  // whole seconds, checked above
  if (!args.allow_remote && !oracle::is_loopback_host(host)) {
    fmt::print(stderr,
               "gridlock oracle: warning: listening on {}, which is not a loopback address: anyone who can "
               "reach it can query the oracle (there is no authentication); pass --allow-remote if that is "
               "intended\n",
               host);
  }
  // Block SIGINT and SIGTERM in every thread (the server's inherit the mask); wait for them below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  oracle::Server server(service, options);
  const int bound = server.start();
  service.start();
  if (!args.port_file.empty()) {
    write_file_atomic(args.port_file, fmt::format("{}\n", bound));
  }
  const bool ipv6 = host.find(':') != std::string::npos;
  fmt::print("gridlock oracle: serving {} on http://{}{}{}:{} ({}); stop with Ctrl-C\n", topology->spec(),
             ipv6 ? "[" : "", host, ipv6 ? "]" : "", bound, fmt::join(service.source_names(), ", "));
  std::fflush(stdout);
  timespec timeout{};
  const bool forever = !(duration_s > 0);
  timeout.tv_sec = forever ? 0 : static_cast<time_t>(duration_s);
  timeout.tv_nsec = forever ? 0 : static_cast<long>((duration_s - std::floor(duration_s)) * 1e9);
  while (true) {
    const int got = forever ? sigwaitinfo(&signals, nullptr) : sigtimedwait(&signals, nullptr, &timeout);
    if (got > 0 || !forever || errno != EINTR) {
      break;
    }
  }
  service.stop();
  server.stop();
  fmt::print("gridlock oracle: stopped after {} requests\n", server.requests());
}

void print_json(const Json& value) { fmt::print("{}\n", value.dump(2)); }

oracle::MetricQuery make_query(const QueryArgs& args) {
  oracle::MetricQuery q;
  q.metric = oracle::parse_metric(args.metric);
  q.reducer = oracle::parse_reducer(args.reducer);
  q.window_s = parse_duration_seconds(args.window, "--window");
  q.endpoints = args.endpoints;
  q.undirected = args.undirected;
  return q;
}

// Longest --timeout of `oracle query`, as for `gridlock map --timeout`.
constexpr double kMaxQueryTimeoutS = 3600;

void run_query(const QueryArgs& args) {
  const double timeout_s = parse_duration_seconds(args.timeout, "--timeout");
  if (!(timeout_s >= 0.001) || timeout_s > kMaxQueryTimeoutS) {
    throw InputError(fmt::format(
        "--timeout {}: must be between 1ms and 1h (the whole exchange with the oracle), e.g. --timeout 10s",
        args.timeout));
  }
  const auto max_response = parse_byte_size(args.max_response, "--max-response");
  if (max_response < oracle::kMinResponseBytes || max_response > oracle::kMaxResponseBytes) {
    throw InputError(
        fmt::format("--max-response {}: must be between 1KiB and 4GiB (the largest answer accepted), e.g. "
                    "--max-response 8MiB",
                    args.max_response));
  }
  // Every option is checked before the first request: a bad --metric or query name is the user's
  // mistake, and was reported as "cannot reach the oracle" when no server was running.
  const oracle::MetricQuery q = make_query(args);
  static constexpr std::string_view kQueries[] = {"health", "topology", "node",  "route",
                                                  "links",  "metrics",  "matrix"};
  if (std::find(std::begin(kQueries), std::end(kQueries), args.what) == std::end(kQueries)) {
    throw InputError(fmt::format(
        "unknown query '{}': use health, topology, node, route, links, metrics or matrix", args.what));
  }
  oracle::Client client(args.server, timeout_s, max_response);
  const auto need = [&](std::size_t count, const char* usage) {
    if (args.args.size() != count) {
      throw InputError(fmt::format("usage: gridlock oracle query {}", usage));
    }
  };
  if (args.what == "health") {
    need(0, "health");
    print_json(client.health());
  } else if (args.what == "topology") {
    need(0, "topology");
    print_json(client.topology());
  } else if (args.what == "node") {
    need(1, "node NAME");
    print_json(client.node(args.args[0]));
  } else if (args.what == "route") {
    need(2, "route SRC DST");
    print_json(client.route(args.args[0], args.args[1], q.window_s));
  } else if (args.what == "links") {
    need(0, "links [--top N]");
    print_json(client.get(fmt::format("/v1/links?top={}&window_s={}", args.top, q.window_s)));
  } else if (args.what == "metrics") {
    if (args.args.empty()) {
      throw InputError("usage: gridlock oracle query metrics [--metric bw] [--reducer max] SRC:DST...");
    }
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& pair : args.args) {
      const auto colon = pair.find(':');
      if (colon == std::string::npos) {
        throw InputError(fmt::format("pair '{}' must be SRC:DST, e.g. nid00012:nid00038", pair));
      }
      pairs.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
    }
    const auto values = client.route_metrics(pairs, q);
    if (args.json) {
      Json out = Json::array();
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        out.push_back({{"src", pairs[i].first}, {"dst", pairs[i].second}, {"value", values[i]}});
      }
      print_json(out);
      return;
    }
    fmt::print("{}", oracle::metrics_table(pairs, q.metric, q.reducer, values));
  } else {  // matrix: the query's name was checked against kQueries before the first request
    if (args.args.empty()) {
      throw InputError("usage: gridlock oracle query matrix [--metric bw] NODE...");
    }
    const auto values = client.metric_matrix(args.args, q);
    fmt::print("{}", oracle::matrix_table(args.args, q.metric, q.reducer, values));
  }
}

}  // namespace

void add_oracle_command(CLI::App& app) {
  auto* oracle_cmd =
      app.add_subcommand("oracle", "The resource oracle: routes joined with live link metrics");
  oracle_cmd->require_subcommand(1);

  const auto serve_args = std::make_shared<ServeArgs>();
  auto* serve =
      oracle_cmd->add_subcommand("serve", "Serve route metrics over HTTP/JSON (see docs/oracle.md)");
  serve->add_option("spec", serve_args->spec, "Topology spec, e.g. torus:2x2x8")->required();
  serve->add_option("--listen", serve_args->listen, "HOST:PORT to bind (port 0: any free port)")
      ->capture_default_str();
  serve->add_option(
      "--source", serve_args->sources,
      "Metric source (repeatable): sim[:paper|:none|:MATRIX_FILE], ldms:FILE_OR_DIR, sysfs[:ROOT]; "
      "default sim:paper on the paper's torus:2x2x8, else sim:none");
  serve->add_option("--sim-rate", serve_args->sim_rate, "Rate of each flow of sim:paper")
      ->capture_default_str();
  serve->add_option("--node", serve_args->node,
                    "sysfs source: this node's name in the topology (default: host name)");
  serve->add_option("--poll", serve_args->poll, "How often sources are read")->capture_default_str();
  serve->add_option("--duration", serve_args->duration, "Stop after this long (0: until SIGINT/SIGTERM)")
      ->capture_default_str();
  output_file(serve->add_option("--port-file", serve_args->port_file,
                                "Write the bound port to this file (atomically; not an input file)"));
  serve->add_flag("--allow-remote", serve_args->allow_remote,
                  "Listening on a non-loopback address is intended (no warning)");
  serve->add_option("--max-connections", serve_args->max_connections, "Open connections in total")
      ->capture_default_str()
      ->check(CLI::Range(1U, 100000U));
  serve
      ->add_option("--max-connections-per-address", serve_args->max_connections_per_address,
                   "Open connections from one client address")
      ->capture_default_str()
      ->check(CLI::Range(1U, 100000U));
  serve
      ->add_option("--request-timeout", serve_args->request_timeout,
                   "Time a client has to send a whole request (header and body) from its first line, "
                   "and again to take the answer (1s to 300s)")
      ->capture_default_str();
  serve->add_option("--threads", serve_args->threads, "Event-loop threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve->add_option("--max-pairs", serve_args->max_pairs, "Most pairs per request")->capture_default_str();
  serve->add_option("--max-body", serve_args->max_body, "Largest request body")->capture_default_str();
  serve->add_option("--counter-bits", serve_args->counter_bits, "Width of raw counters (wrap detection)")
      ->capture_default_str()
      ->check(CLI::Range(8U, 64U));
  auto* unit_option =
      serve
          ->add_option("--ib-xmit-wait-unit", serve_args->xmit_wait_unit,
                       "What one InfiniBand port_xmit_wait increment stands for: bytes the port could have "
                       "sent (8B on NVIDIA Quantum switches; Tick+1 from perfquery -c) or a time (4ns)")
          ->capture_default_str();
  serve
      ->add_option("--ib-tick-ns", serve_args->ib_tick_ns,
                   "Same as --ib-xmit-wait-unit <value>ns: nanoseconds per port_xmit_wait increment")
      // A bounded range: CLI11's PositiveNumber would print the whole range of a double.
      ->check(CLI::Range(1e-3, 1e9))
      ->excludes(unit_option);
  serve->add_option("--retention", serve_args->retention_s, "Seconds of history kept per link")
      ->capture_default_str();
  serve->callback([serve_args] { run_serve(*serve_args); });

  const auto query_args = std::make_shared<QueryArgs>();
  auto* query = oracle_cmd->add_subcommand("query",
                                           "Ask a running oracle: health, topology, node, route, links, "
                                           "metrics, matrix");
  query
      ->add_option("what", query_args->what,
                   "health | topology | node NAME | route SRC DST | links | "
                   "metrics SRC:DST... | matrix NODE...")
      ->required();
  query->add_option("args", query_args->args, "Arguments of the query");
  query->add_option("--server", query_args->server, "Oracle URL")->capture_default_str();
  query->add_option("--metric", query_args->metric, "hops | bw | stalls")->capture_default_str();
  query->add_option("--reducer", query_args->reducer, "max | sum | min")->capture_default_str();
  query->add_option("--window", query_args->window, "Averaging window (0: newest sample)")
      ->capture_default_str();
  query->add_option("--top", query_args->top, "links: how many")->capture_default_str();
  query->add_flag("--endpoints", query_args->endpoints, "Include the injection and ejection links");
  query->add_flag("--undirected", query_args->undirected, "Larger of SRC->DST and DST->SRC");
  query->add_flag("--json", query_args->json, "metrics: print JSON");
  query
      ->add_option("--timeout", query_args->timeout,
                   "Deadline of the whole exchange with the oracle: connect, send, receive")
      ->capture_default_str();
  query->add_option("--max-response", query_args->max_response, "Largest answer accepted")
      ->capture_default_str();
  query->callback([query_args] { run_query(*query_args); });
}

}  // namespace gridlock::cli
