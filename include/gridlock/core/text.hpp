#pragma once
/// @file
/// Small text helpers shared by the parsers of every library.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace gridlock {

/// The one whitespace rule of gridlock's text parsers: space, tab, carriage return, line feed,
/// vertical tab and form feed (what `std::isspace` accepts in the C locale, without its locale
/// dependence). A carriage return counts, so files with Windows line ends parse as Unix ones.
[[nodiscard]] constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/// `text` without leading and trailing whitespace (is_blank()). The view points into `text`.
[[nodiscard]] constexpr std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_blank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_blank(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

/// True when `a` and `b` are equal ignoring the case of ASCII letters (no locale): "Matrix" and
/// "matrix" are, "é" and "É" are not.
[[nodiscard]] constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

/// `text` as a number of type `T` (an integer type or double) when all of it is one, in the
/// `std::from_chars` syntax: decimal, no leading blanks, no '+', no "0x", nothing after the
/// number, and within `T`'s range (so "-1" is no unsigned number and "4294967296" no uint32_t).
/// A double may be written with an exponent ("2.5e9") and may be "inf" or "nan": callers that
/// need a finite number check std::isfinite(). Empty text is no number.
template <typename T>
[[nodiscard]] std::optional<T> parse_number(std::string_view text) noexcept {
  static_assert(std::is_integral_v<T> || std::is_same_v<T, double>, "an integer type or double");
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

/// parse_number() that also tells why there is no number: `out_of_range` is set when `text` starts
/// with a number outside `T`'s range ("4294967296" for uint32_t, "1e999" for double), whatever
/// follows it, so a caller can say "too large" rather than "not a number". Cleared otherwise.
template <typename T>
[[nodiscard]] std::optional<T> parse_number(std::string_view text, bool& out_of_range) noexcept {
  static_assert(std::is_integral_v<T> || std::is_same_v<T, double>, "an integer type or double");
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  out_of_range = ec == std::errc::result_out_of_range;
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

/// A number at the start of a text and the text after it (a unit, say).
template <typename T>
struct NumberPrefix {
  T value{};              ///< The number.
  std::string_view rest;  ///< Everything after the number; points into the text read.
};

/// The number of type `T` that `text` starts with, in parse_number()'s syntax, and what follows
/// it: "12.5us" gives {12.5, "us"}. Nothing when `text` does not start with a number or the number
/// is outside `T`'s range. For values with units ("4KiB", "2.5Gf", "10ms").
template <typename T>
[[nodiscard]] std::optional<NumberPrefix<T>> parse_number_prefix(std::string_view text) noexcept {
  static_assert(std::is_integral_v<T> || std::is_same_v<T, double>, "an integer type or double");
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{}) {
    return std::nullopt;
  }
  return NumberPrefix<T>{value, text.substr(static_cast<std::size_t>(ptr - text.data()))};
}

/// parse_number() for a 32-bit unsigned integer.
[[nodiscard]] inline std::optional<std::uint32_t> parse_u32(std::string_view text) noexcept {
  return parse_number<std::uint32_t>(text);
}

/// parse_number() for a 64-bit unsigned integer.
[[nodiscard]] inline std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept {
  return parse_number<std::uint64_t>(text);
}

/// parse_number() for an int (a leading '-' is allowed).
[[nodiscard]] inline std::optional<int> parse_int(std::string_view text) noexcept {
  return parse_number<int>(text);
}

/// parse_number() for a double (inf and nan included).
[[nodiscard]] inline std::optional<double> parse_double(std::string_view text) noexcept {
  return parse_number<double>(text);
}

/// The fields of `line` separated by runs of whitespace (is_blank()) and commas, without empty
/// fields: "1, 2,,3\r" gives {"1", "2", "3"}. For number lists where either separator is usual
/// (torus dimensions, sysfs counters, simulated load files). The views point into `line`.
[[nodiscard]] inline std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  const auto separator = [](char c) { return c == ',' || is_blank(c); };
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && separator(line[i])) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && !separator(line[i])) {
      ++i;
    }
    if (i > start) {
      out.push_back(line.substr(start, i - start));
    }
  }
  return out;
}

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

/// The fields of `line` separated by runs of blanks (spaces and tabs); no empty fields: "a \t b "
/// gives {"a", "b"}. The views point into `line`.
[[nodiscard]] inline std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
      ++i;
    }
    if (i > start) {
      out.push_back(line.substr(start, i - start));
    }
  }
  return out;
}

/// Appends `text` to `out` with the five XML special characters as entities (`&amp;`, `&lt;`,
/// `&gt;`, `&quot;`, `&apos;`), so the result is safe in element text and in attribute values of
/// either quote (SVG, SimGrid platforms, HTML). With `quotes` false only `&`, `<` and `>` are
/// replaced: enough for element text, and JSON put there (an SVG's metadata) stays readable.
inline void append_xml_escaped(std::string& out, std::string_view text, bool quotes = true) {
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += quotes ? "&quot;" : "\"";
        break;
      case '\'':
        out += quotes ? "&apos;" : "'";
        break;
      default:
        out += c;
    }
  }
}

/// `text` escaped as append_xml_escaped() does.
[[nodiscard]] inline std::string xml_escaped(std::string_view text, bool quotes = true) {
  std::string out;
  out.reserve(text.size());
  append_xml_escaped(out, text, quotes);
  return out;
}

/// `text` for roff (man pages): a backslash becomes `\e` and a '.' or '\'' that starts a line is
/// preceded by `\&`, so that neither reads as an escape or a request.
[[nodiscard]] inline std::string roff_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) {
      out += "\\&";
    }
    if (c == '\\') {
      out += "\\e";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

/// A command-line word (an option name) for roff: every '-' as `\-`, a real minus, so that
/// `--json` copied from a man page works in a shell; a backslash as `\e`.
[[nodiscard]] inline std::string roff_word(std::string_view word) {
  std::string out;
  for (const char c : word) {
    if (c == '-') {
      out += "\\-";
    } else if (c == '\\') {
      out += "\\e";
    } else {
      out += c;
    }
  }
  return out;
}

/// `text` with its ASCII letters in upper case (no locale; other bytes unchanged).
[[nodiscard]] inline std::string ascii_upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return text;
}

/// `text` without a leading UTF-8 byte-order mark (as some Windows editors write one), which is
/// not part of the text in any of the formats gridlock reads.
[[nodiscard]] inline std::string_view without_utf8_bom(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  return text.starts_with(kBom) ? text.substr(kBom.size()) : text;
}

/// `text` as it may appear inside an error message: bytes outside printable ASCII become `\xHH`,
/// and anything beyond `max_chars` input bytes is cut and marked with "...", so a corrupt or
/// binary input line cannot flood or garble the terminal.
[[nodiscard]] inline std::string printable_excerpt(std::string_view text, std::size_t max_chars = 60) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  const std::size_t n = text.size() < max_chars ? text.size() : max_chars;
  out.reserve(n + 8);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4U]);
      out.push_back(kHex[c & 0xFU]);
    }
  }
  if (text.size() > n) {
    out += "...";
  }
  return out;
}

/// Ascending whole numbers as ranges, `1-3, 5, 7-8` with `separator` ", " (dragonfly groups in
/// `gridlock topo`; CPUs of a NIC, "0-3,8" with ","): runs of consecutive numbers shortened.
template <typename T>
requires std::is_integral_v<T>
[[nodiscard]] std::string format_ranges(const std::vector<T>& sorted, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) {
      ++j;
    }
    if (!out.empty()) {
      out += separator;
    }
    out += std::to_string(sorted[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(sorted[j]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace gridlock
