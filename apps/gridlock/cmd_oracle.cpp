// `gridlock oracle serve` (the resource oracle service) and `gridlock oracle query` (its client).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
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
  const auto [host, port] = oracle::parse_listen(args.listen);
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
  // Before the server starts: its threads inherit the mask.
  oracle::block_stop_signals();
  oracle::Server server(service, options);
  const int bound = server.start();
  service.start();
  if (!args.port_file.empty()) {
    write_file_atomic(args.port_file, fmt::format("{}\n", bound));
  }
  fmt::print("gridlock oracle: serving {} on http://{}:{} ({}); stop with Ctrl-C\n", topology->spec(),
             oracle::url_host(host), bound, fmt::join(service.source_names(), ", "));
  std::fflush(stdout);
  oracle::wait_for_stop_signal(duration_s);
  service.stop();
  server.stop();
  fmt::print("gridlock oracle: stopped after {} requests\n", server.requests());
}

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
  oracle::check_query_name(args.what);
  oracle::Client client(args.server, timeout_s, max_response);
  fmt::print("{}", oracle::query_text(client, args.what, args.args, q, args.top, args.json));
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
