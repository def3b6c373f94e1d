#pragma once
/// @file
/// C++ client of the oracle service. One client holds one keep-alive connection; it is not
/// thread-safe (use one client per thread). Every request has a deadline for the whole exchange
/// and a largest answer it accepts (docs/oracle.md, "C++ client").
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/oracle/oracle.hpp"

namespace gridlock::oracle {

/// Largest answer a Client accepts unless told otherwise (`oracle query --max-response`): 8 MiB.
inline constexpr std::size_t kDefaultMaxResponseBytes = std::size_t{8} << 20U;
/// Smallest limit of an answer's size a Client takes: 1 KiB.
inline constexpr std::size_t kMinResponseBytes = std::size_t{1} << 10U;
/// Largest limit of an answer's size a Client takes: 4 GiB.
inline constexpr std::size_t kMaxResponseBytes = std::size_t{4} << 30U;

/// Talks to `gridlock oracle serve`.
class Client {
 public:
  /// `url` is `http://HOST:PORT` or `HOST:PORT` (a trailing `/` is fine). Throws InputError on a
  /// malformed URL, another scheme (`https://`: the oracle serves plain HTTP) or a path (`/v1`),
  /// a timeout outside (0, 1 day] or a size limit outside kMinResponseBytes..kMaxResponseBytes.
  /// Each request must be answered whole, from connecting to the last byte, within `timeout_s`,
  /// with an answer body of at most `max_response_bytes`; else it fails with an IoError.
  explicit Client(const std::string& url, double timeout_s = 10,
                  std::size_t max_response_bytes = kDefaultMaxResponseBytes);
  /// Closes the connection.
  ~Client();
  Client(const Client&) = delete;             ///< Not copyable.
  Client& operator=(const Client&) = delete;  ///< Not copyable.
  Client(Client&&) noexcept;                  ///< Movable.
  Client& operator=(Client&&) noexcept;       ///< Movable.

  /// From now on, every request of this client together must be answered within `seconds` (each
  /// one still within the client's own timeout): one deadline over several requests, so that a
  /// caller's `--timeout` bounds its whole conversation with the oracle (gridlock map makes two
  /// requests). Throws InputError for a value outside (0, 1 day].
  void set_total_timeout(double seconds);

  /// GET a path (with query string); returns the JSON body (an object). Throws IoError when the
  /// server cannot be reached, answers too slowly or too much, InputError for a 4xx answer and
  /// Error for any other answer that is not a 2xx JSON object (with the server's code and message).
  [[nodiscard]] Json get(const std::string& path_and_query);
  /// POST a JSON body; errors as for get().
  [[nodiscard]] Json post(const std::string& path, const Json& body);

  /// `GET /v1/health`.
  [[nodiscard]] Json health() { return get("/v1/health"); }
  /// `GET /v1/topology`.
  [[nodiscard]] Json topology() { return get("/v1/topology"); }
  /// `GET /v1/nodes/<name>`: router and coordinates of a node.
  [[nodiscard]] Json node(const std::string& name);
  /// `GET /v1/route`: the links between two nodes with their metrics.
  [[nodiscard]] Json route(const std::string& src, const std::string& dst, double window_s = 0);
  /// `POST /v1/route-metrics`: one value per pair.
  [[nodiscard]] std::vector<double> route_metrics(
      const std::vector<std::pair<std::string, std::string>>& pairs, const MetricQuery& query);
  /// `POST /v1/metric-matrix`: row-major n x n values.
  [[nodiscard]] std::vector<double> metric_matrix(const std::vector<std::string>& nodes,
                                                  const MetricQuery& query);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Throws InputError unless `what` is a query `gridlock oracle query` knows: health, topology,
/// node, route, links, metrics or matrix (checked before the first request).
void check_query_name(std::string_view what);

/// Asks `client` what `gridlock oracle query WHAT ARGS...` asks and returns what the command
/// prints: the answer as indented JSON (health, topology, node, route, and links with its `top`
/// busiest), a table of one value per SRC:DST pair (metrics; with `json` a JSON list of
/// src, dst and value) or of the node matrix (matrix), each ending in a newline. Throws
/// InputError with the command's usage when `args` do not fit `what`, before any request.
[[nodiscard]] std::string query_text(Client& client, std::string_view what,
                                     const std::vector<std::string>& args, const MetricQuery& query,
                                     std::size_t top, bool json);

/// Percent-encodes a query-string value.
[[nodiscard]] std::string url_encode(std::string_view text);

}  // namespace gridlock::oracle
