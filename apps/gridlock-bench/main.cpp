// gridlock-bench: canaries alone and beside congestors (GPCNeT-style), over MPI.
// main() parses the command line on every rank, runs gridlock::bench, and maps errors to exit
// codes: errors all ranks see alike (CollectiveError; local steps are agreed on with
// detail::agree) end with MPI_Finalize, any other failure of one rank aborts the job so nothing
// hangs.
#include <mpi.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli_docs.hpp"
#include "cli_numbers.hpp"
#include "cli_text.hpp"
#include "exit_status.hpp"
#include "gridlock/bench/congest.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/launcher.hpp"
#include "gridlock/bench/noise_run.hpp"
#include "gridlock/bench/options_text.hpp"
#include "gridlock/bench/runner.hpp"
#include "gridlock/bench/sim_replicas.hpp"
#include "gridlock/bench/spmv.hpp"
#include "gridlock/bench/sweep.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/version.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "options.hpp"
#include "output_guard.hpp"

namespace {

using gridlock::ExitCode;
using gridlock::to_int;
namespace gb = gridlock::bench;
namespace gpcnet = gridlock::gpcnet;
namespace bc = gridlock::bench_cli;

// docs_only: `gridlock-bench --generate-docs DIR`, before and without MPI_Init (cli_docs.hpp).
int run(int argc, char** argv, int rank, int thread_level, bool docs_only) {
  CLI::App app{"gridlock-bench: measure network congestion with canaries and congestors (GPCNeT method)"};
  app.require_subcommand(1);
  gpcnet::Options network_options;
  network_options.mode = gpcnet::Mode::kNetwork;
  gpcnet::Options load_options;
  load_options.mode = gpcnet::Mode::kLoad;
  gpcnet::OptionsText network_text;
  gpcnet::OptionsText load_text;
  auto* network = app.add_subcommand("network",
                                     "Every node runs the canaries (random-ring latency and bandwidth, "
                                     "RMA, natural ring, allreduce, alltoall)");
  auto* load = app.add_subcommand("load",
                                  "Canaries on a fraction of the nodes, alone and beside congestors on the "
                                  "rest; reports Congestion Impact");
  bc::add_common_options(*network, network_options, network_text, false);
  bc::add_common_options(*load, load_options, load_text, true);
  gpcnet::CongestOptions congest_options;
  gpcnet::OptionsText congest_base_text;
  gpcnet::CongestText congest_text;
  CLI::App* congest = bc::add_congest_command(app, congest_options, congest_base_text, congest_text);
  gb::NoiseRunOptions noise_options;
  gb::NoiseRunText noise_text;
  auto* noise = app.add_subcommand(
      "noise",
      "Every rank measures system noise (selfish detour) on its own core at the same time; "
      "per-node table with outlier nodes");
  bc::add_noise_options(*noise, noise_options, noise_text);
  gb::SimReplicasOptions replicas_options;
  bc::SimReplicasText replicas_text;
  auto* replicas = app.add_subcommand(
      "sim-replicas", "Monte-Carlo noise study of `gridlock sim --replicas`, replicas spread over the ranks");
  bc::add_sim_replicas_options(*replicas, replicas_options, replicas_text);
  gb::SpmvOptions spmv_options;
  gb::SpmvText spmv_text;
  auto* spmv = app.add_subcommand(
      "spmv",
      "Distributed 7-point-stencil SpMV on a multivector (CG-style iterations), as launched or remapped in "
      "the application (rankfile, or Scotch on network metrics)");
  bc::add_spmv_options(*spmv, spmv_options, spmv_text);
  gb::SweepOptions sweep_options;
  gb::SweepText sweep_text;
  auto* sweep = app.add_subcommand(
      "sweep",
      "MPI performance over message sizes: ping-pong and streaming bandwidth by hop class, one-sided "
      "put/get, collectives over communicator sizes (ReproMPI method); JSON for `gridlock model`");
  bc::add_sweep_options(*sweep, sweep_options, sweep_text);
  gridlock::cli::check_unsigned_options(app);
  gridlock::cli::check_text_options(app);
  app.set_version_flag("--version",
                       fmt::format("gridlock-bench {} (commit {})", gridlock::kVersion, gridlock::kGitCommit),
                       "Print the gridlock version and git commit, and exit");
  if (docs_only) {
    return gridlock::cli::generate_docs_if_asked(app, "gridlock-bench", argc, argv);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parses the same arguments; only rank 0 speaks.
    if (rank == 0) {
      return app.exit(e) == 0 ? 0 : to_int(ExitCode::kUsage);
    }
    return e.get_exit_code() == 0 ? 0 : to_int(ExitCode::kUsage);
  }
  gridlock::cli::check_outputs_not_inputs(app, std::vector<std::string>(argv + 1, argv + argc),
                                          gridlock::cli::given_subcommands(app));
  // Another MPI family's launcher would start N one-rank jobs that each measure alone.
  gb::check_launcher();
  if (replicas->parsed()) {
    // The conversion reads --loggops-from's fit on every rank: agreed, so one rank failing ends all.
    gb::agree_on_options(MPI_COMM_WORLD,
                         [&] { bc::finish_sim_replicas_options(replicas_options, replicas_text, rank); });
    // Worker threads never call MPI, but below MPI_THREAD_FUNNELED the standard allows no other
    // thread in the process at all.
    if (replicas_options.threads > 1 && thread_level < MPI_THREAD_FUNNELED) {
      if (rank == 0) {
        fmt::print(stderr,
                   "gridlock-bench: note: this MPI library provides no thread support (MPI_THREAD_SINGLE); "
                   "running 1 thread per rank instead of {} (--threads)\n",
                   replicas_options.threads);
      }
      replicas_options.threads = 1;
    }
    gb::run_sim_replicas(replicas_options, MPI_COMM_WORLD);
    return 0;
  }
  if (spmv->parsed()) {
    gb::finish_spmv_options(spmv_options, spmv_text, bc::given_options(*spmv));
    const gb::SpmvReport report = gb::run_spmv(spmv_options, MPI_COMM_WORLD);
    gb::write_spmv_outputs(spmv_options, report, MPI_COMM_WORLD);
    return 0;
  }
  if (sweep->parsed()) {
    gb::finish_sweep_options(sweep_options, sweep_text, bc::given_options(*sweep));
    const gb::SweepReport report = gb::run_sweep(sweep_options, MPI_COMM_WORLD);
    gb::write_sweep_outputs(sweep_options, report, MPI_COMM_WORLD);
    return report.failed > 0 ? gb::kSweepFailedExitCode : 0;
  }
  if (congest->parsed()) {
    gpcnet::finish_congest_options(congest_options, congest_base_text, congest_text,
                                   bc::given_options(*congest));
    const gpcnet::CongestReport report = gb::run_congest(congest_options, MPI_COMM_WORLD);
    gb::write_congest_outputs(congest_options, report, MPI_COMM_WORLD);
    return 0;
  }
  if (noise->parsed()) {
    gb::finish_noise_run_options(noise_options, noise_text);
    const gb::NoiseReport report = gb::run_noise(noise_options, MPI_COMM_WORLD);
    gb::write_noise_outputs(noise_options, report, MPI_COMM_WORLD);
    return 0;
  }
  gpcnet::Options& options = network->parsed() ? network_options : load_options;
  gpcnet::finish_options(options, network->parsed() ? network_text : load_text,
                         bc::given_options(network->parsed() ? *network : *load));
  gb::run_and_write(options, MPI_COMM_WORLD, thread_level);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The documentation comes from the option definitions alone: no MPI, so the build can run it.
  if (argc > 1 && std::string_view(argv[1]) == gridlock::cli::kGenerateDocsFlag) {
    try {
      return run(argc, argv, 0, MPI_THREAD_SINGLE, true);
    } catch (...) {
      const gridlock::cli::ExitStatus status =
          gridlock::cli::exit_status_of(std::current_exception(), "gridlock-bench");
      fmt::print(stderr, "{}\n", status.message);
      return status.code;
    }
  }
  // sim-replicas runs worker threads beside the main thread, which alone calls MPI: FUNNELED.
  // Every other subcommand measures, and asks for SINGLE: with Open MPI 4.1 FUNNELED alone adds
  // about 50 ns to a shared-memory round trip (bench/bare_pingpong.cpp, BARE_PINGPONG_FUNNELED).
  // A split launch (load --role ... --rendezvous DIR) keeps its heartbeat in a thread that calls no
  // MPI: FUNNELED too.
  const bool split_launch = argc > 1 && std::string_view(argv[1]) == "load" &&
                            std::any_of(argv + 2, argv + argc, [](const char* arg) {
                              return std::string_view(arg).starts_with("--rendezvous");
                            });
  const bool needs_threads = (argc > 1 && std::string_view(argv[1]) == "sim-replicas") || split_launch;
  int thread_level = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, needs_threads ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE, &thread_level) !=
      MPI_SUCCESS) {
    fmt::print(stderr,
               "gridlock-bench: error: MPI_Init_thread failed; is the program started with mpiexec?\n");
    return to_int(ExitCode::kMpi);
  }
  // Errors come back as return codes, so they are reported with context instead of aborting. If
  // that cannot be set, every later MPI error would abort the job without a word: stop here.
  int rank = 0;
  if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) {
    fmt::print(stderr,
               "gridlock-bench: error: MPI_Comm_set_errhandler or MPI_Comm_rank failed on MPI_COMM_WORLD; "
               "the MPI library is not usable here\n");
    MPI_Abort(MPI_COMM_WORLD, to_int(ExitCode::kMpi));
    return to_int(ExitCode::kMpi);
  }
  int rc = 0;
  // Errors every rank meets together (agreed ones, option conversion): rank 0 alone speaks.
  const auto collective = [&rank, &rc] {
    const gridlock::cli::ExitStatus status =
        gridlock::cli::exit_status_of(std::current_exception(), "gridlock-bench");
    if (rank == 0) {
      fmt::print(stderr, "{}\n", status.message);
    }
    rc = status.code;
  };
  try {
    rc = run(argc, argv, rank, thread_level, false);
  } catch (const gb::CollectiveError&) {
    collective();
  } catch (const gridlock::InputError&) {
    collective();
  } catch (...) {
    // One rank alone: its peers may wait for it in a collective, so the job ends here.
    const gridlock::cli::ExitStatus status =
        gridlock::cli::exit_status_of(std::current_exception(), fmt::format("gridlock-bench: rank {}", rank));
    fmt::print(stderr, "{}\n", status.message);
    MPI_Abort(MPI_COMM_WORLD, status.code);
    return status.code;
  }
  if (MPI_Finalize() != MPI_SUCCESS) {
    fmt::print(stderr, "gridlock-bench: rank {}: error: MPI_Finalize failed\n", rank);
    return rc != 0 ? rc : to_int(ExitCode::kMpi);
  }
  return rc;
}
