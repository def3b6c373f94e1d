// The oracle client's reading of an answer (detail/response.hpp).
#include "detail/response.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::oracle::detail {
namespace {

// Most characters of a server's error code or message quoted in an error (it is not trusted to be
// short or printable).
constexpr std::size_t kMaxQuoted = 1000;

// A string member of an error object, or `fallback` (the server is not trusted to send strings).
std::string string_field(const Json& object, const char* key, const char* fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string()
             ? printable_excerpt(it->get_ref<const std::string&>(), kMaxQuoted)
             : std::string(fallback);
}

// A number of an answer, which must be finite. JSON text has no NaN or infinity (the parser
// refuses 1e999), so this guards the promise of parse_values() and parse_matrix() for any Json.
double finite_number(const Json& value, std::string_view server, std::string_view what) {
  if (!value.is_number()) {
    throw Error(fmt::format("the oracle at {} answered {} with a {} where a number belongs: {}", server, what,
                            value.type_name(), printable_excerpt(value.dump())));
  }
  const double number = value.get<double>();
  if (!std::isfinite(number)) {
    throw Error(fmt::format("the oracle at {} answered {} with a number that is not finite", server, what));
  }
  return number;
}

}  // namespace

Json parse_response(int status, std::string_view body, std::string_view server, std::string_view what) {
  Json json = Json::parse(body.begin(), body.end(), nullptr, false);
  // An oracle's errors are JSON {"error": {"code", "message"}}; anything else comes from some
  // other server (a proxy, another service on the port), and saying "the oracle" would mislead.
  const bool oracle_error =
      !json.is_discarded() && json.is_object() && json.contains("error") && json["error"].is_object();
  if (status < 200 || status > 299) {
    std::string text;
    if (oracle_error) {
      text = fmt::format("the oracle at {} answered {} with {}: {}", server, what,
                         string_field(json["error"], "code", "error"),
                         string_field(json["error"], "message", ""));
    } else {
      text = fmt::format(
          "the server at {} answered {} with HTTP {} and no oracle error; is it a gridlock oracle ('gridlock "
          "oracle serve')?",
          server, what, status);
    }
    if (status >= 400 && status < 500) {
      throw InputError(text);
    }
    throw Error(text);
  }
  if (json.is_discarded() || !json.is_object()) {
    throw Error(fmt::format(
        "the server at {} answered {} with a body that is {}; is it a gridlock oracle ('gridlock oracle "
        "serve')?",
        server, what,
        json.is_discarded() ? "not JSON" : fmt::format("a JSON {}, not an object", json.type_name())));
  }
  return json;
}

std::vector<double> parse_values(const Json& answer, std::size_t count, std::string_view server) {
  const auto it = answer.find("values");
  if (it == answer.end() || !it->is_array() || it->size() != count) {
    throw Error(
        fmt::format("the oracle at {} answered POST /v1/route-metrics without an array 'values' of {} "
                    "numbers, one per pair",
                    server, count));
  }
  std::vector<double> out;
  out.reserve(count);
  for (const auto& value : *it) {
    out.push_back(finite_number(value, server, "POST /v1/route-metrics"));
  }
  return out;
}

std::vector<double> parse_matrix(const Json& answer, std::size_t n, std::string_view server) {
  const auto it = answer.find("matrix");
  if (it == answer.end() || !it->is_array() || it->size() != n) {
    throw Error(fmt::format(
        "the oracle at {} answered POST /v1/metric-matrix without an array 'matrix' of {} rows, one per node",
        server, n));
  }
  std::vector<double> out;
  out.reserve(n * n);
  for (const auto& row : *it) {
    if (!row.is_array() || row.size() != n) {
      throw Error(fmt::format(
          "the oracle at {} answered POST /v1/metric-matrix with a row that is not an array of {} numbers",
          server, n));
    }
    for (const auto& value : row) {
      out.push_back(finite_number(value, server, "POST /v1/metric-matrix"));
    }
  }
  return out;
}

}  // namespace gridlock::oracle::detail
