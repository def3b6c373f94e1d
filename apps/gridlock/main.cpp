// `gridlock`: serial tools (simulation, schedules, topology, oracle, models). Parses the command
// line, runs the chosen subcommand, and maps errors to documented exit codes.
#include <exception>
#include <new>
#include <system_error>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli_docs.hpp"
#include "cli_numbers.hpp"
#include "closed_stdout.hpp"
#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/version.hpp"
#include "output_guard.hpp"

int main(int argc, char** argv) {
  // A closed standard output ends a command through its failed writes, after its files are
  // written, never through SIGPIPE in the middle of one (closed_stdout.hpp).
  gridlock::cli::ignore_sigpipe();
  CLI::App app{"gridlock: induce, measure, model and simulate congestion and noise in HPC networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       fmt::format("gridlock {} (commit {})", gridlock::kVersion, gridlock::kGitCommit),
                       "Print the gridlock version and git commit, and exit");
  gridlock::cli::add_version_command(app);
  gridlock::cli::add_topo_command(app);
  gridlock::cli::add_oracle_command(app);
  gridlock::cli::add_sim_commands(app);
  gridlock::cli::add_noise_command(app);
  gridlock::cli::add_map_command(app);
  gridlock::cli::add_model_command(app);
  gridlock::cli::add_history_command(app);
  gridlock::cli::add_predict_command(app);
  gridlock::cli::add_report_command(app);
  gridlock::cli::check_unsigned_options(app);
  if (const int rc = gridlock::cli::generate_docs_if_asked(app, "gridlock", argc, argv); rc >= 0) {
    return rc;
  }
  gridlock::cli::guard_outputs(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help; every real parse error becomes the usage exit code.
    const int rc = app.exit(e);
    return rc == 0 ? 0 : gridlock::to_int(gridlock::ExitCode::kUsage);
  } catch (const gridlock::Error& e) {
    fmt::print(stderr, "gridlock: error: {}\n", e.what());
    return gridlock::to_int(e.exit_code());
  } catch (const std::system_error& e) {
    if (gridlock::cli::is_broken_pipe(e)) {
      gridlock::cli::exit_as_closed_pipe();
    }
    fmt::print(stderr, "gridlock: internal error: {}\n", e.what());
    return gridlock::to_int(gridlock::ExitCode::kInternal);
  } catch (const std::bad_alloc&) {
    // Not a bug: the input asks for more than the machine (or the job's limit) gives.
    fmt::print(stderr, "gridlock: error: {}\n", gridlock::kOutOfMemoryMessage);
    return gridlock::to_int(gridlock::ExitCode::kRuntimeFailure);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gridlock: internal error: {}\n", e.what());
    return gridlock::to_int(gridlock::ExitCode::kInternal);
  }
  return gridlock::cli::finish_stdout(0, "gridlock");
}
