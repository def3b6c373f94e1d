#pragma once
/// @file
/// Small text helpers shared by the parsers of every library.

#include <string_view>
#include <vector>

namespace gridlock {

/// Splits `text` on every `separator`, keeping empty fields: "a,,b" gives {"a", "", "b"} and ""
/// gives {""}. The views point into `text`.
[[nodiscard]] inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (;;) {
    const auto pos = text.find(separator, start);
    fields.push_back(
        text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) {
      return fields;
    }
    start = pos + 1;
  }
}

}  // namespace gridlock
