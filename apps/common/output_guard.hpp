#pragma once
// One guard for both command-line tools: the options that name outputs, marked where they are
// added, and the check that none names an input, run before any work or write. The check itself is
// gridlock::core's (gridlock/core/output_guard.hpp).

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "gridlock/core/output_guard.hpp"

namespace gridlock::cli {

/// The options marked with output_file(), in the order they were added.
inline std::vector<const CLI::Option*>& output_options() {
  static std::vector<const CLI::Option*> options;
  return options;
}

/// Marks `option` as naming a file the command writes; returns it, for chaining.
inline CLI::Option* output_file(CLI::Option* option) {
  output_options().push_back(option);
  return option;
}

/// The options marked with output_directory(): directories a command writes into.
inline std::vector<const CLI::Option*>& output_directory_options() {
  static std::vector<const CLI::Option*> options;
  return options;
}

/// Marks `option` as naming a directory the command writes files into (gridlock-bench --csv-dir):
/// its value is not an input directory. Returns it, for chaining.
inline CLI::Option* output_directory(CLI::Option* option) {
  output_directory_options().push_back(option);
  return option;
}

/// The given output options among `options`, as gridlock::check_outputs_not_inputs() takes them.
inline std::vector<OutputArgument> given_outputs(const std::vector<const CLI::Option*>& options) {
  std::vector<OutputArgument> out;
  for (const CLI::Option* option : options) {
    if (option->count() > 0) {
      out.push_back({option->get_name(), option->results()});
    }
  }
  return out;
}

/// gridlock::check_outputs_not_inputs() for the options marked with output_file() and
/// output_directory(): throws InputError when an output names an input.
inline void check_outputs_not_inputs(const std::vector<std::string>& arguments,
                                     const std::vector<std::string>& not_paths = {}) {
  gridlock::check_outputs_not_inputs(arguments, given_outputs(output_options()),
                                     given_outputs(output_directory_options()), not_paths);
}

/// The names of the subcommands given on the command line of `app` (`schedule`, `info`): words of
/// the command line that are not paths, even where a directory of that name exists.
inline std::vector<std::string> given_subcommands(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands()) {
    names.push_back(sub->get_name());
    for (std::string& name : given_subcommands(*sub)) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

/// Runs check_outputs_not_inputs() on the command line `argv` once parsing is complete, before
/// any subcommand's callback. Call after every subcommand is added.
inline void guard_outputs(CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> arguments(argv + (argc > 0 ? 1 : 0), argv + argc);
  app.parse_complete_callback([&app, arguments = std::move(arguments)] {
    check_outputs_not_inputs(arguments, given_subcommands(app));
  });
}

}  // namespace gridlock::cli
