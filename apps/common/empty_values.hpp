#pragma once
// An empty option value (`--network ''`, `--nodes ''`) is a mistake (an unset shell variable, a
// missing argument), not a request for the default: the commands that call this refuse it,
// naming the option, instead of running with a default the user never chose.

#include <initializer_list>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "gridlock/core/error.hpp"

namespace gridlock::cli {

/// Throws InputError naming the first option (or positional argument) of `cmd` given on the
/// command line with an empty value; options in `own_check` say it themselves, more precisely.
inline void refuse_empty_values(const CLI::App& cmd, std::initializer_list<std::string_view> own_check = {}) {
  for (const CLI::Option* option : cmd.get_options()) {
    // Flags take no value; options not given keep their defaults.
    if (option->count() == 0 || option->get_type_size() == 0) {
      continue;
    }
    bool skip = false;
    for (const std::string_view name : own_check) {
      skip = skip || option->get_name() == name;
    }
    if (skip) {
      continue;
    }
    for (const std::string& value : option->results()) {
      if (value.empty()) {
        throw InputError(fmt::format(
            "{} '': an empty value; give a value (see {} --help) or leave the option out for its default",
            option->get_name(), cmd.get_name()));
      }
    }
  }
}

}  // namespace gridlock::cli
