// `gridlock`: serial tools (simulation, schedules, topology, oracle, models). Parses the command
// line, runs the chosen subcommand, and maps errors to documented exit codes.
#include <exception>
#include <system_error>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli_docs.hpp"
#include "cli_numbers.hpp"
#include "cli_text.hpp"
#include "closed_stdout.hpp"
#include "commands.hpp"
#include "exit_status.hpp"
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
  gridlock::cli::check_text_options(app);
  if (const int rc = gridlock::cli::generate_docs_if_asked(app, "gridlock", argc, argv); rc >= 0) {
    return rc;
  }
  gridlock::cli::guard_outputs(app, argc, argv);
  // Every exception that ends a command is mapped to its message and exit code in one place.
  const auto report = [](const std::exception_ptr& error) {
    const gridlock::cli::ExitStatus status = gridlock::cli::exit_status_of(error, "gridlock");
    fmt::print(stderr, "{}\n", status.message);
    return status.code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 returns 0 for --help; every real parse error becomes the usage exit code.
    const int rc = app.exit(e);
    return rc == 0 ? 0 : gridlock::to_int(gridlock::ExitCode::kUsage);
  } catch (const std::system_error& e) {
    // A write to a closed stdout (`gridlock ... | head`) ends the process quietly, as SIGPIPE would
    // have; the result files were written before anything was printed.
    if (gridlock::cli::is_broken_pipe(e)) {
      gridlock::cli::exit_as_closed_pipe();
    }
    return report(std::current_exception());
  } catch (...) {
    return report(std::current_exception());
  }
  return gridlock::cli::finish_stdout(0, "gridlock");
}
