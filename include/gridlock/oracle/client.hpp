#pragma once
/// @file
/// C++ client of the oracle service. One client holds one keep-alive connection; it is not
/// thread-safe (use one client per thread).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/oracle/oracle.hpp"

namespace gridlock::oracle {

/// Talks to `gridlock oracle serve`.
class Client {
 public:
  /// `url` is `http://HOST:PORT` or `HOST:PORT` (a trailing `/` is fine). Throws InputError on a
  /// malformed URL, another scheme (`https://`: the oracle serves plain HTTP) or a path (`/v1`).
  explicit Client(const std::string& url, double timeout_s = 10);
  /// Closes the connection.
  ~Client();
  Client(const Client&) = delete;             ///< Not copyable.
  Client& operator=(const Client&) = delete;  ///< Not copyable.
  Client(Client&&) noexcept;                  ///< Movable.
  Client& operator=(Client&&) noexcept;       ///< Movable.

  /// GET a path (with query string); returns the JSON body. Throws IoError when the server
  /// cannot be reached, InputError for a 4xx answer and Error for a 5xx answer (with the server's
  /// code and message).
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

/// Percent-encodes a query-string value.
[[nodiscard]] std::string url_encode(std::string_view text);

}  // namespace gridlock::oracle
