// libFuzzer target for the oracle client's reading of an answer (issue 36): the HTTP status and
// body a server sent, turned into the answer's JSON object or one of gridlock's errors, then the
// route-metrics values and the metric matrix read from it. A server is not trusted: no input may
// escape as another exception (a JSON library's type_error, say), and what is read must have the
// asked shape: exactly `count` finite values, an n x n matrix of finite values.
//
// Input: 2 bytes of status (little-endian, modulo 600), 1 byte of count (modulo 8, the pairs or
// matrix nodes asked for), then the body. Seed corpus: tests/fuzz/oracle-corpus.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "detail/response.hpp"
#include "gridlock/core/error.hpp"

namespace {

namespace detail = gridlock::oracle::detail;

void check_finite(const std::vector<double>& values, std::size_t expected) {
  if (values.size() != expected) {
    std::abort();
  }
  for (const double v : values) {
    if (!std::isfinite(v)) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kHeader = 3;
  if (size < kHeader) {
    return 0;
  }
  const unsigned status_bits = data[0] + (static_cast<unsigned>(data[1]) << 8U);
  const int status = static_cast<int>(status_bits % 600U);
  const std::size_t count = data[2] % 8U;
  const std::string_view body(reinterpret_cast<const char*>(data + kHeader), size - kHeader);
  constexpr std::string_view kServer = "http://127.0.0.1:8600";
  gridlock::Json answer;
  try {
    answer = detail::parse_response(status, body, kServer, "POST /v1/route-metrics");
  } catch (const gridlock::Error&) {
    return 0;
  }
  if (!answer.is_object() || status < 200 || status > 299) {
    std::abort();
  }
  try {
    check_finite(detail::parse_values(answer, count, kServer), count);
  } catch (const gridlock::Error&) {
  }
  try {
    check_finite(detail::parse_matrix(answer, count, kServer), count * count);
  } catch (const gridlock::Error&) {
  }
  return 0;
}
