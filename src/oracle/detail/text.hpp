#pragma once
// Small text helpers shared by the oracle sources (private).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridlock/core/text.hpp"

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

// The one whitespace rule and field splitter of core (gridlock/core/text.hpp).
using ::gridlock::split_fields;
using ::gridlock::trim;

inline std::optional<double> to_double(std::string_view text) { return parse_double(trim(text)); }

inline std::optional<std::uint64_t> to_u64(std::string_view text) { return parse_u64(trim(text)); }

}  // namespace gridlock::oracle::detail
