#include "gridlock/bench/sim_replicas.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/sim/replica_report.hpp"
#include "gridlock/sim/replica_report_json.hpp"
#include "gridlock/sim/replicas.hpp"

namespace gridlock::bench {

MpiReplicaRunner::MpiReplicaRunner(MPI_Comm world, unsigned threads) : world_(world), threads_(threads) {
  GRIDLOCK_MPI(MPI_Comm_rank(world, &rank_));
  GRIDLOCK_MPI(MPI_Comm_size(world, &size_));
  sim::check_thread_count(threads);
}

std::vector<std::uint64_t> MpiReplicaRunner::run(const sim::Schedule& schedule,
                                                 const sim::SimOptions& options,
                                                 const sim::ReplicaConfig& config, std::uint64_t begin,
                                                 std::uint64_t end) {
  const std::uint64_t k = end - begin;
  const auto share = [&](int r) {
    return begin + k * static_cast<std::uint64_t>(r) / static_cast<std::uint64_t>(size_);
  };
  std::vector<int> counts(static_cast<std::size_t>(size_));
  std::vector<int> displs(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    counts[static_cast<std::size_t>(r)] = detail::to_count(share(r + 1) - share(r), "replicas per rank");
    displs[static_cast<std::size_t>(r)] = detail::to_count(share(r) - begin, "replicas");
  }
  sim::ReplicaConfig c = config;
  c.threads = threads_;
  std::vector<std::uint64_t> mine;
  detail::agree(world_,
                [&] { mine = sim::run_replicas(schedule, options, c, share(rank_), share(rank_ + 1)); });
  std::vector<std::uint64_t> all(rank_ == 0 ? k : 0);
  GRIDLOCK_MPI(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                           counts.data(), displs.data(), MPI_UINT64_T, 0, world_));
  return all;
}

void MpiReplicaRunner::every_process(const std::function<void()>& step) { detail::agree(world_, step); }

void MpiReplicaRunner::reporting_process(const std::function<void()>& step) {
  detail::agree_on_root(world_, step);
}

std::string MpiReplicaRunner::where() const {
  return fmt::format("over {} ranks, {} thread{} each", size_, threads_, threads_ == 1 ? "" : "s");
}

void agree_on_options(MPI_Comm world, const std::function<void()>& step) { detail::agree(world, step); }

void run_sim_replicas(const SimReplicasOptions& options, MPI_Comm world) {
  if (options.study.program.empty() || options.study.scales.empty() || options.study.replicas == 0) {
    throw CollectiveError("sim-replicas needs --program SPEC, --ranks N1,N2,... and --replicas K (K >= 1)",
                          ExitCode::kUsage);
  }
  MpiReplicaRunner runner(world, options.threads);
  // Every rank validates the study and reads a noise trace itself; a trace missing or bad on any
  // rank ends all ranks alike.
  std::optional<sim::ReplicaStudy> study;
  detail::agree(world, [&] { study.emplace(options.study); });
  // Output paths are checked on rank 0 and the verdict shared, before anything runs.
  detail::agree_on_root(world, [&] {
    for (const std::string& path : {options.json_path, options.csv_path, options.svg_path}) {
      if (!path.empty()) {
        check_writable(path);
      }
    }
  });
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_size(world, &size));
  Json context = sim::study_context("gridlock-bench sim-replicas", study->spec(), study->pattern());
  context["mpi_ranks"] = size;
  context["mpi_library"] = detail::mpi_library_version();
  sim::ConsoleReplicaReporter console(stdout);
  const bool progress = runner.reports() && !options.quiet && isatty(STDERR_FILENO) != 0;
  if (progress) {
    console.on_scale_started = [](std::uint32_t ranks) { fmt::print(stderr, "{} ranks...\n", ranks); };
  }
  std::vector<std::unique_ptr<sim::ReplicaReporter>> files = sim::file_reporters(
      options.json_path, options.csv_path, options.svg_path, context,
      sim::study_title(options.study.program, options.study.noise, study->pattern(), options.study.cosched));
  std::vector<sim::ReplicaReporter*> reporters{&console};
  for (const auto& f : files) {
    reporters.push_back(f.get());
  }
  (void)study->run(runner, reporters);
}

}  // namespace gridlock::bench
