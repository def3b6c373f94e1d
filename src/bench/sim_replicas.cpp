#include "gridlock/bench/sim_replicas.hpp"

#include <unistd.h>

#include <vector>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/params_json.hpp"
#include "gridlock/sim/replicas.hpp"

namespace gridlock::bench {

void run_sim_replicas(const SimReplicasOptions& options, MPI_Comm world) {
  int rank = 0;
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &rank));
  GRIDLOCK_MPI(MPI_Comm_size(world, &size));
  // Every rank parses the same options, so input errors arise on all ranks alike.
  const std::vector<std::uint32_t> scales = sim::parse_scales(options.ranks);
  if (options.program.empty() || scales.empty() || options.replicas == 0) {
    throw CollectiveError("sim-replicas needs --program SPEC, --ranks N1,N2,... and --replicas K (K >= 1)",
                          ExitCode::kUsage);
  }
  sim::check_replica_count(options.replicas);
  // The program at every scale (unknown steps, a root beyond the ranks) before anything is printed.
  for (const std::uint32_t ranks : scales) {
    sim::check_program(options.program, ranks, options.seed);
  }
  // Output paths are checked on rank 0 and the verdict shared, before anything runs.
  detail::agree_on_root(world, [&] {
    for (const std::string& path : {options.json_path, options.csv_path, options.svg_path}) {
      if (!path.empty()) {
        check_writable(path);
      }
    }
  });
  // Every rank reads a noise trace itself; a trace missing or bad on any rank ends all ranks alike.
  noise::DetourPattern pattern;
  detail::agree(world, [&] {
    pattern = noise::make_pattern(options.noise, derive_seed(options.seed, sim::kNoiseSeedStream + 1));
  });
  sim::SimOptions sim_options;
  sim_options.params = options.params;
  sim::ReplicaConfig config;
  config.pattern = &pattern;
  config.seed = derive_seed(options.seed, sim::kNoiseSeedStream);
  config.cosched = options.cosched;
  config.threads = options.threads;

  const std::uint64_t k = options.replicas;
  const auto share = [&](int r) {
    return k * static_cast<std::uint64_t>(r) / static_cast<std::uint64_t>(size);
  };
  std::vector<int> counts(static_cast<std::size_t>(size));
  std::vector<int> displs(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = detail::to_count(share(r + 1) - share(r), "replicas per rank");
    displs[static_cast<std::size_t>(r)] = detail::to_count(share(r), "replicas");
  }
  const bool progress = rank == 0 && !options.quiet && isatty(STDERR_FILENO) != 0;
  Json results = Json::array();
  std::vector<sim::ScaleResult> studied;
  if (rank == 0) {
    fmt::print("noise: {}, {}; seed {}; {} replicas per scale over {} ranks\n",
               noise::describe(options.noise, pattern), options.cosched ? "co-scheduled" : "unsynchronised",
               options.seed, k, size);
    fmt::print("{}", sim::scale_table_header());
  }
  for (const std::uint32_t ranks : scales) {
    if (progress) {
      fmt::print(stderr, "{} ranks...\n", ranks);
    }
    // Every local step that can fail (a deadlock, simulated time overflowing, memory) is agreed on
    // before the next collective: a rank that failed alone would leave the others waiting in it.
    // The noiseless run (rank 0's, for the table) comes before the replicas, so a stuck schedule
    // is reported before any replica runs.
    sim::Schedule schedule;
    detail::agree(world, [&] { schedule = sim::generate(options.program, ranks, options.seed); });
    std::uint64_t clean_ps = 0;
    detail::agree_on_root(world, [&] {
      const sim::SimResult clean = sim::simulate(schedule, sim_options);
      if (!clean.complete) {
        throw InputError(sim::stuck_report(clean));
      }
      clean_ps = clean.max_finish.ps;
    });
    std::vector<std::uint64_t> mine;
    detail::agree(world, [&] {
      mine = sim::run_replicas(schedule, sim_options, config, share(rank), share(rank + 1));
    });
    std::vector<std::uint64_t> all(rank == 0 ? k : 0);
    GRIDLOCK_MPI(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                             counts.data(), displs.data(), MPI_UINT64_T, 0, world));
    if (rank != 0) {
      continue;
    }
    studied.push_back(sim::ScaleResult{ranks, clean_ps, std::move(all)});
    fmt::print("{}", sim::scale_table_row(studied.back()));
    results.push_back(sim::scale_json(studied.back()));
  }
  // The summary and the outputs are rank 0's; a failure there (a full disk) still ends every rank
  // alike, with the exit code of the error, instead of aborting the job.
  detail::agree_on_root(world, [&] {
    const sim::NoiseBottleneck bottleneck = sim::find_noise_bottleneck(studied, options.bottleneck_threshold);
    fmt::print("{}\n", sim::describe(bottleneck));
    Json context = base_context("gridlock-bench sim-replicas", "gridlock.sim.replicas", 2);
    context["program"] = options.program;
    context["seed"] = options.seed;
    context["replicas"] = k;
    context["mpi_ranks"] = size;
    context["mpi_library"] = detail::mpi_library_version();
    context["network_scale"] = options.network_scale;
    context["loggops"] = sim::params_json(options.params);
    context["noise"] = sim::noise_json(options.noise, pattern, options.seed, options.cosched);
    if (!options.csv_path.empty()) {
      CsvWriter csv(context, sim::scale_csv_columns());
      for (const sim::ScaleResult& scale : studied) {
        csv.add_row(sim::scale_csv_row(scale));
      }
      csv.write(options.csv_path);
    }
    if (!options.json_path.empty()) {
      write_json_file(
          options.json_path, context,
          Json{{"scales", std::move(results)}, {"noise_bottleneck", sim::bottleneck_json(bottleneck)}});
    }
    if (!options.svg_path.empty()) {
      const std::string title = sim::study_title(options.program, options.noise, pattern, options.cosched);
      write_file_atomic(options.svg_path, sim::study_boxplot_svg(studied, context, title));
    }
  });
}

}  // namespace gridlock::bench
