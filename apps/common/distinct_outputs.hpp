#pragma once
// One check for both command-line tools: two output options naming one file would leave only the
// one written last.

#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::cli {

/// Throws InputError if two of `outputs` (option name, path; an empty path is an option not given)
/// name the same file, e.g. `--json r.json --csv ./r.json`.
inline void check_distinct_outputs(
    std::initializer_list<std::pair<std::string_view, std::string_view>> outputs) {
  for (auto a = outputs.begin(); a != outputs.end(); ++a) {
    for (auto b = a + 1; b != outputs.end(); ++b) {
      if (!a->second.empty() && !b->second.empty() &&
          std::filesystem::absolute(a->second).lexically_normal() ==
              std::filesystem::absolute(b->second).lexically_normal()) {
        throw InputError(fmt::format("{} and {} both write '{}': give them different files", a->first,
                                     b->first, a->second));
      }
    }
  }
}

}  // namespace gridlock::cli
