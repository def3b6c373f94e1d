#include "gridlock/bench/runner.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/kernels.hpp"
#include "detail/mpi_util.hpp"
#include "detail/run_setup.hpp"
#include "detail/split_launch.hpp"
#include "gridlock/bench/congest.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/layout.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/gpcnet/options_json.hpp"
#include "gridlock/gpcnet/results_json.hpp"
#include "gridlock/gpcnet/roles.hpp"

namespace gridlock::bench {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::CanaryResult;
using gpcnet::CanarySpec;
using gpcnet::congestor_key;
using gpcnet::CongestorResult;
using gpcnet::CongestorType;
using gpcnet::IdleWait;
using gpcnet::kRingStream;
using gpcnet::Mode;
using gpcnet::NodeRole;
using gpcnet::Options;
using gpcnet::PhaseResult;
using gpcnet::print_tables;
using gpcnet::Report;
using gpcnet::report_body;
using gpcnet::RoleLayout;
using gpcnet::validate;
using gpcnet::write_histogram_csvs;

namespace {

using detail::CanaryKernel;
using detail::Comm;
using detail::CongestorKernel;

// What one canary rank measured in one test.
struct LocalCanary {
  LogHistogram fine;
  double bulk_sum = 0;  // Sum over blocks of the block's per-iteration value.
  std::uint64_t bulk_blocks = 0;
  bool timed_out = false;
  double elapsed_s = 0;
};

// What one congestor rank achieved in one loaded test.
using LocalCongestor = detail::CongestorRun;

// Everything a rank needs during the run; built once after the layout is known.
struct RunState {
  const Options& options;
  MPI_Comm world;
  NodeLayout layout;
  RoleLayout roles;
  NodeRole role;
  std::uint64_t seed;
  bool seed_from_time;
  Comm group_comm;  // All ranks of this rank's role.
  Comm slice_comm;  // The i-th rank of every node of this role (PPort slice).
  int slice_rank = 0;
  int slice_size = 0;
  bool progress = false;
  double run_start = 0;
};

bool is_canary(const RunState& s) { return s.role.group == 0; }

std::optional<CongestorType> my_congestor(const RunState& s) {
  if (is_canary(s)) {
    return std::nullopt;
  }
  return s.roles.congestors().at(static_cast<std::size_t>(s.role.group) - 1);
}

// Output paths are checked on rank 0 before anything runs and the verdict is shared, so a bad
// path fails in a second, not after an hour of measurement.
void check_outputs(const Options& options, MPI_Comm world) {
  detail::agree_on_root(world, [&] {
    if (!options.json_path.empty()) {
      check_writable(options.json_path);
    }
    if (!options.csv_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options.csv_dir, ec);
      check_writable(std::filesystem::path(options.csv_dir) / "probe.csv");
    }
  });
}

RoleLayout make_roles(const Options& options, std::uint64_t nodes, std::uint64_t seed) {
  try {
    // A split launch's canary job runs canaries on every node; the congestors are another job's.
    return options.mode == Mode::kLoad && options.role == gpcnet::SplitRole::kBoth
               ? RoleLayout(nodes, seed, options.canary_fraction, options.congestors)
               : RoleLayout::all_canaries(nodes, seed);
  } catch (const InputError& e) {
    // Every rank computes the same layout from the same numbers, so all of them throw.
    throw CollectiveError(e.what(), ExitCode::kUsage);
  }
}

void progress(const RunState& s, const std::string& text) {
  if (s.progress && s.layout.world_rank() == 0) {
    fmt::print(stderr, "gridlock-bench: {}\n", text);
    std::fflush(stderr);
  }
}

// Listing 1 of the paper, with the timeout checked before every ring block by an allreduce
// over all canary ranks, so every rank stops after the same block and no empty collectives
// follow a timeout.
LocalCanary measure_canary(const RunState& s, const CanarySpec& spec, CanaryKernel& kernel,
                           double timeout_s) {
  LocalCanary r;
  const std::uint64_t ring_seed = derive_seed(s.seed, kRingStream);
  const auto size = static_cast<std::uint64_t>(s.slice_size);
  const auto me = static_cast<std::uint64_t>(s.slice_rank);
  const double start = MPI_Wtime();
  const auto& loop = spec.loop;
  for (std::uint64_t m = 0; m < loop.measurements && !r.timed_out; ++m) {
    for (std::uint64_t n = 0; n < loop.rings; ++n) {
      int late = MPI_Wtime() - start > timeout_s ? 1 : 0;
      GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &late, 1, MPI_INT, MPI_MAX, s.group_comm.get()));
      if (late != 0) {
        r.timed_out = true;
        break;
      }
      if (spec.rings == gpcnet::RingKind::kRandom) {
        // The same ring index gives the same ring in every pass (isolated and loaded).
        const auto nb = random_ring_neighbours(size, me, ring_seed, n);
        kernel.set_peers(static_cast<int>(nb.left), static_cast<int>(nb.right));
      } else if (spec.rings == gpcnet::RingKind::kNatural) {
        kernel.set_peers(static_cast<int>((me + size - 1) % size), static_cast<int>((me + 1) % size));
      }
      for (std::uint64_t w = 0; w < loop.warmup; ++w) {
        kernel.run();
      }
      // One timer read per iteration: each iteration's end is the next one's start, so the
      // bookkeeping costs one MPI_Wtime and one histogram record (docs/performance.md); a
      // sample includes the previous sample's record (a few ns), never a second timer call.
      const double bulk_start = MPI_Wtime();
      double previous = bulk_start;
      for (std::uint64_t i = 0; i < loop.iterations; ++i) {
        kernel.run();
        const double now = MPI_Wtime();
        r.fine.record(kernel.sample(now - previous));
        previous = now;
      }
      const double bulk = previous - bulk_start;
      r.bulk_sum += kernel.sample(bulk / static_cast<double>(loop.iterations));
      ++r.bulk_blocks;
    }
  }
  r.elapsed_s = MPI_Wtime() - start;
  return r;
}

// Listing 2 of the paper, shared with `spmv --congest` (detail::drive_congestor).
LocalCongestor drive_congestor(const RunState& s, CongestorKernel& kernel, double timeout_s) {
  return detail::drive_congestor(kernel, s.world, s.slice_comm.get(), s.options.congestor_warmup,
                                 s.options.congestor_check, timeout_s);
}

// Rank 0 decides how long the next test may run, so the decision is the same everywhere.
// Returns nullopt when the deadline has passed.
std::optional<double> test_budget(const RunState& s) {
  double budget = s.options.test_timeout_s;
  if (s.layout.world_rank() == 0 && s.options.deadline_s > 0) {
    budget = std::min(budget, s.options.deadline_s - (MPI_Wtime() - s.run_start));
  }
  GRIDLOCK_MPI(MPI_Bcast(&budget, 1, MPI_DOUBLE, 0, s.world));
  if (budget <= 0) {
    return std::nullopt;
  }
  return budget;
}

CanaryResult reduce_results(const RunState& s, const CanarySpec& spec, const LocalCanary& local,
                            const LocalCongestor& congestor, const std::vector<CongestorType>& active) {
  CanaryResult result;
  const bool canary = is_canary(s);
  const LogHistogram pooled = detail::reduce_histogram(local.fine, s.world, 0);

  // Bulk per-rank means: sum and count to average them, min and -max in one MPI_MIN.
  const double rank_mean =
      local.bulk_blocks > 0 ? local.bulk_sum / static_cast<double>(local.bulk_blocks) : std::nan("");
  const bool has_mean = canary && std::isfinite(rank_mean);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::array<double, 3> sums{has_mean ? rank_mean : 0.0, has_mean ? 1.0 : 0.0, canary ? 1.0 : 0.0};
  std::array<double, 3> mins{has_mean ? rank_mean : kInf, has_mean ? -rank_mean : kInf, 0.0};
  std::array<double, 3> maxes{canary ? static_cast<double>(local.bulk_blocks) : 0.0,
                              local.timed_out ? 1.0 : 0.0, local.elapsed_s};
  std::array<double, 3> sums_total{};
  std::array<double, 3> mins_total{};
  std::array<double, 3> maxes_total{};
  GRIDLOCK_MPI(MPI_Reduce(sums.data(), sums_total.data(), 3, MPI_DOUBLE, MPI_SUM, 0, s.world));
  GRIDLOCK_MPI(MPI_Reduce(mins.data(), mins_total.data(), 3, MPI_DOUBLE, MPI_MIN, 0, s.world));
  GRIDLOCK_MPI(MPI_Reduce(maxes.data(), maxes_total.data(), 3, MPI_DOUBLE, MPI_MAX, 0, s.world));

  // Congestor throughput, one entry per configured type; only the active ones are reported.
  const auto mine = my_congestor(s);
  const std::vector<CongestorResult> congestors =
      detail::reduce_congestor_runs(s.roles.congestors(), mine ? s.role.group - 1 : -1, congestor, s.world);

  if (s.layout.world_rank() != 0) {
    return result;
  }
  result.key = spec.key;
  result.title = spec.title;
  result.units = spec.units;
  result.better = spec.better;
  result.histogram = pooled;
  result.fine = summarize(pooled);
  result.bulk_mean = sums_total[1] > 0 ? sums_total[0] / sums_total[1] : std::nan("");
  result.bulk_min = sums_total[1] > 0 ? mins_total[0] : std::nan("");
  result.bulk_max = sums_total[1] > 0 ? -mins_total[1] : std::nan("");
  result.ranks = static_cast<std::uint64_t>(sums_total[2]);
  result.blocks_completed = static_cast<std::uint64_t>(maxes_total[0]);
  result.blocks_planned = spec.loop.measurements * spec.loop.rings;
  result.timed_out = maxes_total[1] > 0;
  result.elapsed_s = maxes_total[2];
  for (const CongestorResult& c : congestors) {
    if (std::find(active.begin(), active.end(), c.type) != active.end()) {
      result.congestors.push_back(c);
    }
  }
  return result;
}

// One canary test in one state: isolated (no active congestors) or loaded.
CanaryResult run_test(const RunState& s, const CanarySpec& spec, CanaryKernel* canary_kernel,
                      CongestorKernel* congestor_kernel, const std::vector<CongestorType>& active) {
  const auto budget = test_budget(s);
  if (!budget) {
    CanaryResult skipped;
    skipped.key = spec.key;
    skipped.title = spec.title;
    skipped.units = spec.units;
    skipped.better = spec.better;
    skipped.fine = summarize(LogHistogram{});
    skipped.skipped = true;
    skipped.blocks_planned = spec.loop.measurements * spec.loop.rings;
    return skipped;
  }
  const bool loaded = !active.empty();
  LocalCanary local;
  LocalCongestor congestor;
  const auto mine = my_congestor(s);
  const bool my_type_active = mine && std::find(active.begin(), active.end(), *mine) != active.end();
  const IdleWait how = s.options.idle_wait;
  if (is_canary(s)) {
    if (loaded) {
      detail::wait_for_congestors(s.world, how);
    }
    local = measure_canary(s, spec, *canary_kernel, *budget);
    if (loaded) {
      detail::measure_done(s.world, how);
    }
  } else if (my_type_active) {
    // Congestors outlast the canaries: they stop on the canaries' signal, and on their own only
    // if that signal is far overdue.
    congestor = drive_congestor(s, *congestor_kernel, 3.0 * *budget + 10.0);
  } else if (loaded) {
    detail::wait_for_congestors(s.world, how);
    detail::measure_done(s.world, how);
  }
  // Idle ranks (every congestor in the isolated phase) wait here while the canaries measure, as
  // --idle-wait says: by default in a blocking barrier, as GPCNeT's do.
  detail::idle_barrier(s.world, how);
  return reduce_results(s, spec, local, congestor, active);
}

Json make_context(const RunState& s) {
  return detail::run_context("gridlock-bench", schemas::kBench, s.options, s.layout, s.seed,
                             s.seed_from_time);
}

}  // namespace

// Rank 0: the roles' nodes and the canaries' first ring in the report, and the run's first lines
// on stdout (version, nodes, seed, roles).
void describe_run(Report& report, const RunState& s, const std::vector<std::string>& names) {
  const Options& options = s.options;
  const std::uint64_t seed = s.seed;
  const bool seed_from_time = s.seed_from_time;
  const int rpn = s.layout.ranks_per_node();
  for (int g = 0; g < s.roles.group_count(); ++g) {
    std::vector<std::string> role_nodes;
    for (const auto id : s.roles.nodes_of(g)) {
      role_nodes.push_back(names.at(id));
    }
    report.roles.emplace_back(s.roles.group_name(g), std::move(role_nodes));
  }
  // Slice ranks are positions in the canary group (node ids in network mode).
  const auto canary_nodes = s.roles.nodes_of(0);
  const auto ring = random_ring_order(canary_nodes.size(), derive_seed(seed, kRingStream), 0);
  for (std::uint64_t i = 0; i < ring.size(); ++i) {
    const std::uint64_t member = ring.at(i);
    report.canary_ring0.push_back(
        names.at(options.mode == Mode::kNetwork ? member : canary_nodes.at(member)));
  }
  std::string summary;
  for (int g = 0; g < s.roles.group_count(); ++g) {
    summary += fmt::format("{}{} {}", g == 0 ? "" : ", ", s.roles.group_name(g), s.roles.group_size(g));
  }
  fmt::print("gridlock-bench {} {} (commit {}): {} nodes x {} ranks per node{}; seed {}{}\n",
             gpcnet::mode_key(options.mode), report.context["gridlock_version"].get<std::string>(),
             report.context["git_commit"].get<std::string>(), s.layout.nodes(), rpn,
             s.layout.virtual_nodes() ? " (virtual nodes)" : "", seed,
             seed_from_time ? " (from the clock; repeat with --seed)" : "");
  fmt::print("NICs per node: {} ({}{}), PPort {} rank{} per NIC{}\n", s.layout.nics(), s.layout.nic_source(),
             s.layout.nic_names().empty() ? "" : fmt::format(": {}", fmt::join(s.layout.nic_names(), ", ")),
             s.layout.ranks_per_nic(), s.layout.ranks_per_nic() == 1 ? "" : "s",
             s.layout.nics_even() ? "" : " (uneven, --allow-uneven)");
  fmt::print("roles (nodes): {}\n", summary);
  std::fflush(stdout);
}

// The test phases: isolated baselines, then loaded with every congestor (`congestors`: the
// options' or, in a split launch, the congestor job's), then one type at a time.
std::vector<std::pair<std::string, std::vector<CongestorType>>> test_phases(
    const Options& options, const std::vector<CongestorType>& congestors) {
  std::vector<std::pair<std::string, std::vector<CongestorType>>> phases{{"isolated", {}}};
  if (options.mode == Mode::kLoad) {
    phases.emplace_back("loaded", congestors);
    if (options.each_congestor) {
      for (const auto type : options.congestors) {
        phases.emplace_back(fmt::format("loaded:{}", congestor_key(type)), std::vector<CongestorType>{type});
      }
    }
  }
  return phases;
}

Report run_benchmark(const Options& options, MPI_Comm world) {
  validate(options);
  GRIDLOCK_MPI(MPI_Barrier(world));
  const double setup_start = MPI_Wtime();
  NodeLayout layout = NodeLayout::detect(world, options);
  const int rank = layout.world_rank();
  const auto [seed, seed_from_time] = detail::agree_on_seed(options.seed, world, rank);
  RoleLayout roles = make_roles(options, layout.nodes(), seed);
  check_outputs(options, world);
  std::unique_ptr<detail::SplitCanaries> split;
  if (options.role == gpcnet::SplitRole::kCanaries) {
    split = std::make_unique<detail::SplitCanaries>(options, world);
  }

  const NodeRole role = roles.role_of(layout.node_id());
  // In network mode slices follow node order, so the natural ring is the node order.
  const std::uint64_t position = options.mode == Mode::kNetwork ? layout.node_id() : role.position;
  const int rpn = layout.ranks_per_node();
  // Slices by place in the node's slice order (by NIC, then local rank): slice i keeps to one NIC.
  detail::RoleComms comms =
      detail::split_role_comms(world, role.group, position, rpn, layout.slice_position());
  const int slice_rank = comms.slice.rank();
  const int slice_size = comms.slice.size();
  RunState s{options, world,          std::move(layout),      std::move(roles),      role,
             seed,    seed_from_time, std::move(comms.group), std::move(comms.slice)};
  s.slice_rank = slice_rank;
  s.slice_size = slice_size;
  s.progress = !options.quiet && (options.verbose || ::isatty(STDERR_FILENO) != 0);

  const std::vector<CanarySpec> specs = gpcnet::canary_specs(options);
  std::vector<std::unique_ptr<CanaryKernel>> canary_kernels;
  std::unique_ptr<CongestorKernel> congestor_kernel;
  // One slice at a time: RMA windows of slices made by one split collide in Open MPI 4.1.
  detail::create_in_turn(
      world, role.group * rpn + s.layout.slice_position(), s.roles.group_count() * rpn, [&] {
        if (is_canary(s)) {
          for (const auto& spec : specs) {
            canary_kernels.push_back(detail::make_canary_kernel(spec, options, s.slice_comm.get()));
          }
        } else if (const auto type = my_congestor(s)) {
          congestor_kernel = detail::make_congestor_kernel(*type, options, s.slice_comm.get());
        }
      });

  // Set-up ends when every rank has its communicators and kernels (windows included).
  GRIDLOCK_MPI(MPI_Barrier(world));
  const double setup_s = MPI_Wtime() - setup_start;

  Report report;
  report.mode = options.mode;
  report.average = options.average;
  int host_size = 1;
  GRIDLOCK_MPI(MPI_Comm_size(s.layout.host_comm(), &host_size));
  report.one_host = host_size == s.layout.world_size() && s.layout.world_size() > 1;
  const std::vector<std::string> names = s.layout.gather_node_names();
  if (rank == 0) {
    report.context = make_context(s);
    report.context["setup_s"] = setup_s;
    report.context["one_host"] = report.one_host;
    describe_run(report, s, names);
  }
  std::vector<CongestorType> congestors = options.congestors;
  if (split) {
    congestors = split->open(Json{{"nodes", s.layout.nodes()}, {"ranks", s.layout.world_size()}});
  }

  const auto phases = test_phases(options, congestors);
  const std::size_t total_tests = phases.size() * specs.size();
  std::size_t test_number = 0;
  s.run_start = MPI_Wtime();
  for (const auto& [label, active] : phases) {
    if (split && !active.empty() && !split->start_load()) {
      break;  // The congestor job is gone: no loaded phase (the report says why).
    }
    PhaseResult phase{label, active, {}};
    for (std::size_t i = 0; i < specs.size(); ++i) {
      ++test_number;
      progress(s, fmt::format("[{}/{}] {}: {} ...", test_number, total_tests, label, specs[i].title));
      CanaryResult result = run_test(s, specs[i], is_canary(s) ? canary_kernels[i].get() : nullptr,
                                     congestor_kernel.get(), active);
      if (rank == 0) {
        progress(s, fmt::format("[{}/{}] {}: {}: {}", test_number, total_tests, label, specs[i].title,
                                result.skipped
                                    ? "skipped (deadline)"
                                    : fmt::format("{} samples in {:.2f} s{}", result.fine.count,
                                                  result.elapsed_s, result.timed_out ? " (timed out)" : "")));
        phase.canaries.push_back(std::move(result));
      }
    }
    if (split && !active.empty()) {
      split->finish_load();
    }
    if (rank == 0) {
      report.phases.push_back(std::move(phase));
    }
  }
  if (split) {
    split->fill(report);
  }
  detail::add_peak_rss(report.context, world, rank);
  if (rank == 0) {
    report.context["run_s"] = MPI_Wtime() - setup_start;
  }
  return report;
}

namespace {

// Rank 0's part of write_outputs.
void print_and_write(const Options& options, const Report& report) {
  // The files before anything is printed: a closed standard output (`mpirun ... | head`) must not
  // lose them. The main record first: an output that fails after it (a histogram directory that
  // filled up) loses only itself, and the run still ends with its error.
  if (!options.json_path.empty()) {
    write_json_file(options.json_path, report.context, report_body(report));
  }
  std::size_t csv_files = 0;
  if (!options.csv_dir.empty()) {
    csv_files = write_histogram_csvs(report, options.csv_dir).size();
  }
  print_tables(report, stdout);
  if (!options.json_path.empty()) {
    fmt::print("results: {}\n", options.json_path);
  }
  if (!options.csv_dir.empty()) {
    fmt::print("histograms: {} CSV files in {}\n", csv_files, options.csv_dir);
  }
  std::fflush(stdout);
}

}  // namespace

void write_outputs(const Options& options, const Report& report, MPI_Comm world) {
  detail::agree_on_root(world, [&] {
    print_and_write(options, report);
    if (!report.split_error.empty()) {
      // A split launch whose congestor job was lost: the files are written, the run failed.
      throw Error(report.split_error);
    }
  });
}

void run_and_write(const Options& options, MPI_Comm world, int thread_level) {
  if (options.role != gpcnet::SplitRole::kBoth && thread_level < MPI_THREAD_FUNNELED) {
    throw InputError(
        "this MPI library provides no thread support (MPI_THREAD_SINGLE), but a split launch's rank 0 "
        "keeps a heartbeat file in a thread of its own: use an MPI library with MPI_THREAD_FUNNELED");
  }
  if (options.role == gpcnet::SplitRole::kCongestors) {
    // The congestor job of a split launch is a congest run that the canary job starts and stops.
    const gpcnet::CongestOptions split = gpcnet::split_congestor_options(options);
    const gpcnet::CongestReport report = run_congest(split, world);
    write_congest_outputs(split, report, world);
    return;
  }
  const Report report = run_benchmark(options, world);
  write_outputs(options, report, world);
}

}  // namespace gridlock::bench
