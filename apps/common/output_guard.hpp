#pragma once
// One guard for both command-line tools: an output option naming a file that another argument
// also names (an input, or a second output) is refused before any work or write, so `gridlock
// sim --json S.goal S.goal` cannot destroy the schedule. Hard and symbolic links are caught:
// files are compared by device and inode (std::filesystem::equivalent).

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "gridlock/core/error.hpp"

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

/// The paths an argument may name: itself and what follows each '@', ':' or '=' in it or in one of
/// its comma-separated pieces (`@nodes.txt`, `matrix:m.csv`, `--json=r.json`, `torus:4x4,coords=F`).
inline std::vector<std::string> path_candidates(std::string_view argument) {
  std::vector<std::string> out{std::string(argument)};
  const auto add_suffixes = [&out](std::string_view piece) {
    out.emplace_back(piece);
    for (std::size_t i = 0; i < piece.size(); ++i) {
      if (piece[i] == '@' || piece[i] == ':' || piece[i] == '=') {
        out.emplace_back(piece.substr(i + 1));
      }
    }
  };
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = argument.find(',', start);
    add_suffixes(
        argument.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) {
      return out;
    }
    start = comma + 1;
  }
}

/// Throws InputError when a given output option names an existing regular file that an input
/// argument in `arguments` (the command line without the program name) also names. The values of
/// output options are not inputs (two outputs naming one file are check_distinct_outputs()'s
/// concern). Outputs that do not exist yet cannot be an input; devices and FIFOs (`/dev/null`,
/// `/dev/stdout`) are written in place, not replaced, and are left alone.
inline void check_outputs_not_inputs(const std::vector<std::string>& arguments) {
  namespace fs = std::filesystem;
  std::map<std::string, int> output_values;  // how many times each output value was given
  for (const CLI::Option* option : output_options()) {
    if (option->count() > 0) {
      for (const std::string& value : option->results()) {
        ++output_values[value];
      }
    }
  }
  std::vector<std::string> inputs;
  for (const std::string& argument : arguments) {
    const std::size_t eq = argument.find('=');
    const std::string value =
        argument.starts_with('-') && eq != std::string::npos ? argument.substr(eq + 1) : argument;
    if (const auto it = output_values.find(value); it != output_values.end() && it->second > 0) {
      --it->second;
      continue;
    }
    inputs.push_back(argument);
  }
  for (const CLI::Option* option : output_options()) {
    if (option->count() == 0) {
      continue;
    }
    for (const std::string& output : option->results()) {
      std::error_code ec;
      if (output.empty() || !fs::is_regular_file(output, ec)) {
        continue;
      }
      for (const std::string& input : inputs) {
        for (const std::string& candidate : path_candidates(input)) {
          if (!candidate.empty() && fs::equivalent(candidate, output, ec) && !ec) {
            throw InputError(
                fmt::format("{} '{}' is the input file '{}': writing it would destroy the input; give "
                            "another output file",
                            option->get_name(), output, candidate));
          }
        }
      }
    }
  }
}

/// Runs check_outputs_not_inputs() on the command line `argv` once parsing is complete, before
/// any subcommand's callback. Call after every subcommand is added.
inline void guard_outputs(CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> arguments(argv + (argc > 0 ? 1 : 0), argv + argc);
  app.parse_complete_callback([arguments = std::move(arguments)] { check_outputs_not_inputs(arguments); });
}

}  // namespace gridlock::cli
