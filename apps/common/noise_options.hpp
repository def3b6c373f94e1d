#pragma once
// The noise options both command-line tools take (--noise, --noise-periodic, --noise-random): one
// check that at most one is given and one hint for runs that need noise, so the tools say the same.

#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::cli {

/// What to add when a run needs noise and none was given.
inline constexpr std::string_view kHowToGiveNoise =
    "add --noise FILE, --noise-periodic FREQ:LENGTH or --noise-random RATE:LENGTH (e.g. --noise-periodic "
    "1000Hz:100us)";

/// Returns whether a noise option was given (an empty value is an option not given); throws
/// InputError naming them if more than one was.
inline bool noise_option_given(std::string_view trace, std::string_view periodic, std::string_view random) {
  std::vector<std::string_view> given;
  for (const auto& [name, value] : {std::pair{"--noise", trace}, std::pair{"--noise-periodic", periodic},
                                    std::pair{"--noise-random", random}}) {
    if (!value.empty()) {
      given.emplace_back(name);
    }
  }
  if (given.size() > 1) {
    throw InputError(fmt::format("give at most one of --noise, --noise-periodic and --noise-random (got {})",
                                 fmt::join(given, " and ")));
  }
  return !given.empty();
}

}  // namespace gridlock::cli
