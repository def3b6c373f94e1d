#pragma once
// Strict unsigned options, and byte-size options converted as they are parsed, for both
// command-line tools.
//
// CLI11 2.1 converts unsigned options with strtoull(..., 0): "-1" wraps to 2^64 - 1, a value
// past 2^64 - 1 saturates silently, and "010" is octal. A user who types `--seed -1` or
// `-S -1` must hear about it, not run with a number they never gave.

#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::cli {

/// Accepts a plain decimal number that fits in 64 bits, and drops its leading zeros (CLI11 would
/// read "010" as octal 8); names the problem otherwise.
inline std::string check_unsigned_text(std::string& text) {
  if (text.empty()) {
    return "expected a non-negative whole number";
  }
  if (text.front() == '-') {
    return "'" + text + "' is negative; expected a non-negative whole number";
  }
  bool out_of_range = false;
  const auto value = parse_number<std::uint64_t>(text, out_of_range);
  if (out_of_range) {
    return "'" + text + "' is too large (at most 18446744073709551615)";
  }
  if (!value) {
    return "'" + text + "' is not a decimal whole number";
  }
  text = std::to_string(*value);
  return {};
}

/// Adds check_unsigned_text (as a transform: it may rewrite the text) to every option of `app` and its
/// subcommands whose value is an unsigned integer (CLI11 names their type "UINT", maybe followed by
/// validators). Call after all options are added.
inline void check_unsigned_options(CLI::App& app) {
  static const CLI::Validator kUnsigned(check_unsigned_text, "", "unsigned");
  for (CLI::Option* option : app.get_options()) {
    // The type name may carry validators' descriptions after it ("UINT:INT in [1 - 64]").
    if (option->get_type_name().rfind("UINT", 0) == 0) {
      option->transform(kUnsigned);
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    check_unsigned_options(*sub);
  }
}

/// Adds a byte-size option (`2KiB`, `4096`) of at most 4 GiB to `cmd`, converted into `target` as
/// CLI11 parses it (left unset when the option is not given); `default_text` is what --help shows.
/// Throws InputError naming the option for a malformed or larger value.
inline CLI::Option* add_byte_size_option(CLI::App& cmd, const std::string& name,
                                         std::optional<std::uint32_t>& target, const std::string& help,
                                         const std::string& default_text) {
  return cmd
      .add_option_function<std::string>(
          name,
          [&target, name](const std::string& text) {
            const std::uint64_t value = parse_byte_size(text, name);
            if (value > 0xFFFFFFFFU) {
              throw InputError(fmt::format("{} {} bytes: at most 4 GiB", name, value));
            }
            target = static_cast<std::uint32_t>(value);
          },
          help)
      ->default_str(default_text);
}

}  // namespace gridlock::cli
