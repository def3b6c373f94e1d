#pragma once
// Empty text values for both command-line tools.
//
// An option or argument given an empty value (`--rankfile ''`, `--methods ''`, `--db ''`) used to
// act as if it had been left out: no rankfile was written, every method ran, the environment's
// database was not used. A value the user typed must either do what it says or be refused, so an
// empty value is an error unless the option is marked as accepting one.

#include <set>
#include <string>

#include <CLI/CLI.hpp>

namespace gridlock::cli {

/// The options marked with allow_empty().
inline std::set<const CLI::Option*>& empty_allowed_options() {
  static std::set<const CLI::Option*> options;
  return options;
}

/// Marks `option` as accepting an empty value (its meaning must be documented in its help);
/// returns it, for chaining.
inline CLI::Option* allow_empty(CLI::Option* option) {
  empty_allowed_options().insert(option);
  return option;
}

/// The message for an empty value, or nothing for any other value.
inline std::string check_not_empty_text(const std::string& text) {
  if (text.empty()) {
    return "an empty value is not allowed: give a value, or leave the option out for its default";
  }
  return {};
}

/// Adds check_not_empty_text to every text option and argument of `app` and its subcommands
/// (CLI11 names their type "TEXT", maybe followed by validators' descriptions) that is not marked
/// with allow_empty(). Call after all options are added.
inline void check_text_options(CLI::App& app) {
  static const CLI::Validator kNotEmpty(check_not_empty_text, "", "not empty");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_name().rfind("TEXT", 0) == 0 && option->get_expected_min() > 0 &&
        empty_allowed_options().count(option) == 0) {
      option->check(kNotEmpty);
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    check_text_options(*sub);
  }
}

}  // namespace gridlock::cli
