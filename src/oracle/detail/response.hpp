#pragma once
// The oracle client's reading of an answer, without a network (client.cpp; tests/fuzz/oracle_fuzz.cpp).
// An answer is not trusted: whatever a server sends becomes one of gridlock's errors, never a JSON
// library exception, a wrong-sized result or a non-finite value.
#include <cstddef>
#include <string_view>
#include <vector>

#include "gridlock/core/output.hpp"

namespace gridlock::oracle::detail {

// The JSON object of an answer with HTTP `status` and `body`, from `server` (`http://HOST:PORT`,
// for messages) to `what` (`GET /v1/health`). Throws InputError for a 4xx status, Error for any
// other status that is not 2xx or a body that is not a JSON object; an oracle's error object
// `{"error": {"code", "message"}}` is quoted in the message.
[[nodiscard]] Json parse_response(int status, std::string_view body, std::string_view server,
                                  std::string_view what);

// The `values` of a route-metrics answer: exactly `count` finite numbers, else Error.
[[nodiscard]] std::vector<double> parse_values(const Json& answer, std::size_t count,
                                               std::string_view server);

// The `matrix` of a metric-matrix answer, row-major: `n` rows of `n` finite numbers, else Error.
[[nodiscard]] std::vector<double> parse_matrix(const Json& answer, std::size_t n, std::string_view server);

}  // namespace gridlock::oracle::detail
