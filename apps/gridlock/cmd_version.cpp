#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/version.hpp"

namespace gridlock::cli {

void add_version_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the gridlock version and git commit");
  cmd->callback([] { fmt::print("gridlock {} (commit {})\n", kVersion, kGitCommit); });
}

}  // namespace gridlock::cli
