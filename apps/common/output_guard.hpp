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

/// The marks output_file() and output_directory() put on an option: validators that accept every
/// value, named so. The mark lives on the option, in its own CLI::App: a registry shared by the
/// process would, under SimGrid SMPI (every simulated rank's parser in one process), hold every
/// rank's options, including those of ranks that have already exited.
inline constexpr const char* kOutputFileMark = "gridlock-output-file";
inline constexpr const char* kOutputDirectoryMark = "gridlock-output-directory";

/// Puts the mark `name` on `option` (it changes neither the values nor the help); returns `option`.
inline CLI::Option* mark_option(CLI::Option* option, const char* name) {
  option->check(CLI::Validator([](const std::string&) { return std::string{}; }, std::string{}, name));
  return option;
}

/// Whether `option` carries the mark `name`.
inline bool has_mark(CLI::Option& option, const std::string& name) {
  // CLI11 2.1 offers no query that does not throw for a missing validator; this runs once per
  // option of a command line, not in a loop of any size.
  try {
    return option.get_validator(name) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

/// Marks `option` as naming a file the command writes; returns it, for chaining.
inline CLI::Option* output_file(CLI::Option* option) { return mark_option(option, kOutputFileMark); }

/// Marks `option` as naming a directory the command writes files into (gridlock-bench --csv-dir):
/// its value is not an input directory. Returns it, for chaining.
inline CLI::Option* output_directory(CLI::Option* option) {
  return mark_option(option, kOutputDirectoryMark);
}

/// The given options of `app` and its subcommands (and option groups) that carry the mark `name`,
/// as gridlock::check_outputs_not_inputs() takes them.
inline std::vector<OutputArgument> given_outputs(CLI::App& app, const std::string& name) {
  std::vector<OutputArgument> out;
  for (CLI::Option* option : app.get_options()) {
    if (option->count() > 0 && has_mark(*option, name)) {
      out.push_back({option->get_name(), option->results()});
    }
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    for (OutputArgument& output : given_outputs(*sub, name)) {
      out.push_back(std::move(output));
    }
  }
  return out;
}

/// gridlock::check_outputs_not_inputs() for the options of `app` marked with output_file() and
/// output_directory(): throws InputError when two outputs name one file or an output names an
/// input.
inline void check_outputs_not_inputs(CLI::App& app, const std::vector<std::string>& arguments,
                                     const std::vector<std::string>& not_paths = {}) {
  gridlock::check_outputs_not_inputs(arguments, given_outputs(app, kOutputFileMark),
                                     given_outputs(app, kOutputDirectoryMark), not_paths);
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
    check_outputs_not_inputs(app, arguments, given_subcommands(app));
  });
}

}  // namespace gridlock::cli
