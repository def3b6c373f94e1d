// `gridlock oracle serve` and `gridlock oracle query`: the parts of the commands that are the
// oracle's (the listen address, waiting for the stop signal, the queries and how their answers are
// shown).
#include <pthread.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX sigtimedwait

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <exception>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/oracle/client.hpp"
#include "gridlock/oracle/server.hpp"
#include "gridlock/oracle/tables.hpp"

namespace gridlock::oracle {
namespace {

constexpr std::string_view kQueries[] = {"health", "topology", "node", "route", "links", "metrics", "matrix"};

std::string indented(const Json& value) { return value.dump(2) + "\n"; }

void need(const std::vector<std::string>& args, std::size_t count, std::string_view usage) {
  if (args.size() != count) {
    throw InputError(fmt::format("usage: gridlock oracle query {}", usage));
  }
}

// `metrics SRC:DST...`: one value per pair, as a table or a JSON list.
std::string metrics_text(Client& client, const std::vector<std::string>& args, const MetricQuery& query,
                         bool json) {
  if (args.empty()) {
    throw InputError("usage: gridlock oracle query metrics [--metric bw] [--reducer max] SRC:DST...");
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& pair : args) {
    const auto colon = pair.find(':');
    if (colon == std::string::npos) {
      throw InputError(fmt::format("pair '{}' must be SRC:DST, e.g. nid00012:nid00038", pair));
    }
    pairs.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
  }
  const auto values = client.route_metrics(pairs, query);
  if (json) {
    Json out = Json::array();
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      out.push_back({{"src", pairs[i].first}, {"dst", pairs[i].second}, {"value", values[i]}});
    }
    return indented(out);
  }
  return metrics_table(pairs, query.metric, query.reducer, values);
}

// The signals that stop `gridlock oracle serve`.
sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

void block_stop_signals() {
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

void wait_for_stop_signal(double duration_s) {
  const sigset_t signals = stop_signals();
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
}

ListenAddress parse_listen(const std::string& text) {
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
  // std::stoi, as the option has always been read (leading blanks and a '+' are accepted).
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

std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

void check_query_name(std::string_view what) {
  if (std::find(std::begin(kQueries), std::end(kQueries), what) == std::end(kQueries)) {
    throw InputError(
        fmt::format("unknown query '{}': use health, topology, node, route, links, metrics or matrix", what));
  }
}

std::string query_text(Client& client, std::string_view what, const std::vector<std::string>& args,
                       const MetricQuery& query, std::size_t top, bool json) {
  check_query_name(what);
  if (what == "health") {
    need(args, 0, "health");
    return indented(client.health());
  }
  if (what == "topology") {
    need(args, 0, "topology");
    return indented(client.topology());
  }
  if (what == "node") {
    need(args, 1, "node NAME");
    return indented(client.node(args[0]));
  }
  if (what == "route") {
    need(args, 2, "route SRC DST");
    return indented(client.route(args[0], args[1], query.window_s));
  }
  if (what == "links") {
    need(args, 0, "links [--top N]");
    return indented(client.get(fmt::format("/v1/links?top={}&window_s={}", top, query.window_s)));
  }
  if (what == "metrics") {
    return metrics_text(client, args, query, json);
  }
  // matrix: the last name check_query_name() lets through.
  if (args.empty()) {
    throw InputError("usage: gridlock oracle query matrix [--metric bw] NODE...");
  }
  const auto values = client.metric_matrix(args, query);
  return matrix_table(args, query.metric, query.reducer, values);
}

}  // namespace gridlock::oracle
