#pragma once
// Small text helpers shared by the oracle sources (private).
#include <charconv>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gridlock::oracle::detail {

// How many problems a source describes in its status (`recent_problems`).
inline constexpr std::size_t kRecentProblems = 20;

// Appends `message` to a source's recent problems, dropping the oldest beyond kRecentProblems.
inline void note_problem(std::deque<std::string>& problems, std::string message) {
  problems.push_back(std::move(message));
  if (problems.size() > kRecentProblems) {
    problems.pop_front();
  }
}

// Splits on spaces, tabs and commas, dropping empty fields and carriage returns.
inline std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  const auto sep = [](char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; };
  while (i < line.size()) {
    while (i < line.size() && sep(line[i])) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && !sep(line[i])) {
      ++i;
    }
    if (i > start) {
      out.push_back(line.substr(start, i - start));
    }
  }
  return out;
}

inline std::string_view trim(std::string_view text) {
  while (!text.empty() &&
         (text.front() == ' ' || text.front() == '\t' || text.front() == '\r' || text.front() == '\n')) {
    text.remove_prefix(1);
  }
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

inline std::optional<double> to_double(std::string_view text) {
  text = trim(text);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

inline std::optional<std::uint64_t> to_u64(std::string_view text) {
  text = trim(text);
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace gridlock::oracle::detail
