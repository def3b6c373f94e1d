#pragma once
// Man pages and bash completion generated from the CLI11 definitions the tools parse with, so the
// documentation cannot drift from the options (issue 28; docs/install.md). Both tools answer a
// hidden `TOOL --generate-docs DIR` before anything else (gridlock-bench before MPI_Init), and the
// build runs it to produce what `cmake --install` installs.

#include <filesystem>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace gridlock::cli {

/// The hidden first argument that asks a tool for its documentation.
inline constexpr std::string_view kGenerateDocsFlag = "--generate-docs";

/// The man page (roff, section 1) of `command`, a subcommand of `tool` at any depth or the tool's
/// root app; `path` names it as typed (`gridlock topo route`).
[[nodiscard]] std::string man_page(const CLI::App& command, const std::string& path);

/// A bash completion script for `tool`: subcommands, their options, and file names for values.
[[nodiscard]] std::string bash_completion(const CLI::App& root, const std::string& tool);

/// Writes DIR/man1/<tool>[-<sub>...].1 for the root and every subcommand, and
/// DIR/bash-completion/<tool>; returns the number of files written. Throws IoError.
std::size_t write_docs(const CLI::App& root, const std::string& tool, const std::filesystem::path& dir);

/// If argv is `TOOL --generate-docs DIR`, writes the documentation and returns the exit code to
/// return from main() (0, or a usage/IO error code after a message on stderr); otherwise -1.
[[nodiscard]] int generate_docs_if_asked(const CLI::App& root, const std::string& tool, int argc,
                                         const char* const* argv);

}  // namespace gridlock::cli
