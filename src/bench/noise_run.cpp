#include "gridlock/bench/noise_run.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/layout.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/noise/measure_json.hpp"

namespace gridlock::bench {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::Options;

namespace {

// Values gathered per rank, in this order.
enum Field : std::size_t {
  kNode,
  kCpu,
  kTmin,
  kIterations,
  kMeasured,
  kDetours,
  kRate,
  kFraction,
  kMin,
  kMedian,
  kP99,
  kP999,
  kMax,
  kOutliers,
  kFractionNoOutliers,
  kTraceFailed,
  kFields
};

// The `index`-th CPU this process may run on (wrapping), or -1 if the mask cannot be read.
int nth_allowed_cpu(int index) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    return -1;
  }
  const int count = CPU_COUNT(&set);
  if (count <= 0) {
    return -1;
  }
  int want = index % count;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(static_cast<unsigned>(cpu), &set) != 0 && want-- == 0) {
      return cpu;
    }
  }
  return -1;
}

double median_of(std::vector<double> v) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

void flag_noise_outliers(NoiseReport& report, double mad_factor) {
  std::vector<double> fractions;
  fractions.reserve(report.nodes.size());
  for (const NoiseNodeRow& n : report.nodes) {
    fractions.push_back(n.noise_fraction);
  }
  report.median_noise_fraction = median_of(fractions);
  std::vector<double> deviations;
  deviations.reserve(fractions.size());
  for (const double f : fractions) {
    deviations.push_back(std::fabs(f - report.median_noise_fraction));
  }
  report.mad_noise_fraction = median_of(deviations);
  report.outlier_threshold = report.median_noise_fraction + mad_factor * report.mad_noise_fraction;
  for (NoiseNodeRow& n : report.nodes) {
    n.outlier = n.noise_fraction > report.outlier_threshold;
  }
}

namespace {

// Whether any two ranks of a host measure on one CPU (after pinning `cpu`), agreed over `world`:
// they would measure each other's work as noise. Rank 0 says so on stderr.
bool cpus_shared(const NodeLayout& layout, int cpu, MPI_Comm world) {
  int host_size = 1;
  GRIDLOCK_MPI(MPI_Comm_size(layout.host_comm(), &host_size));
  std::vector<int> host_cpus(static_cast<std::size_t>(host_size));
  GRIDLOCK_MPI(MPI_Allgather(&cpu, 1, MPI_INT, host_cpus.data(), 1, MPI_INT, layout.host_comm()));
  std::sort(host_cpus.begin(), host_cpus.end());
  int shared_here = 0;
  for (std::size_t i = 1; i < host_cpus.size(); ++i) {
    shared_here += host_cpus[i] >= 0 && host_cpus[i] == host_cpus[i - 1] ? 1 : 0;
  }
  int shared_anywhere = 0;
  GRIDLOCK_MPI(MPI_Allreduce(&shared_here, &shared_anywhere, 1, MPI_INT, MPI_MAX, world));
  if (layout.world_rank() == 0 && shared_anywhere != 0) {
    fmt::print(stderr,
               "gridlock-bench noise: warning: ranks share CPUs (more ranks than CPUs they may run on, on at "
               "least one host): they measure each other's work as noise; run at most one rank per core\n");
  }
  return shared_anywhere != 0;
}

// One rank's summary as the fields rank 0 gathers.
std::array<double, kFields> summary_fields(const NodeLayout& layout, int cpu, const noise::NoiseSummary& s,
                                           bool trace_failed) {
  std::array<double, kFields> mine{};
  mine[kNode] = static_cast<double>(layout.node_id());
  mine[kCpu] = cpu;
  mine[kTmin] = s.t_min_ns;
  mine[kIterations] = static_cast<double>(s.iterations);
  mine[kMeasured] = s.measured_s;
  mine[kDetours] = static_cast<double>(s.detours);
  mine[kRate] = s.detours_per_s;
  mine[kFraction] = s.noise_fraction;
  mine[kMin] = s.lengths_ns.min;
  mine[kMedian] = s.lengths_ns.median;
  mine[kP99] = s.lengths_ns.p99;
  mine[kP999] = s.lengths_ns.p99_9;
  mine[kMax] = s.lengths_ns.max;
  mine[kOutliers] = static_cast<double>(s.outliers);
  mine[kFractionNoOutliers] = s.noise_fraction_no_outliers;
  mine[kTraceFailed] = trace_failed ? 1.0 : 0.0;
  return mine;
}

// Rank `r`'s row from its gathered fields `f`.
NoiseRankRow rank_row(const double* f, int r, const NoiseRunOptions& options) {
  NoiseRankRow row;
  row.rank = r;
  row.node = static_cast<std::uint64_t>(f[kNode]);
  row.cpu = static_cast<int>(f[kCpu]);
  row.summary.t_min_ns = f[kTmin];
  row.summary.iterations = static_cast<std::uint64_t>(f[kIterations]);
  row.summary.measured_s = f[kMeasured];
  row.summary.sampling_rate_hz = f[kMeasured] > 0 ? f[kIterations] / f[kMeasured] : 0;
  row.summary.detours = static_cast<std::uint64_t>(f[kDetours]);
  row.summary.detours_per_s = f[kRate];
  row.summary.noise_fraction = f[kFraction];
  row.summary.lengths_ns.count = row.summary.detours;
  row.summary.lengths_ns.min = f[kMin];
  row.summary.lengths_ns.median = f[kMedian];
  row.summary.lengths_ns.p99 = f[kP99];
  row.summary.lengths_ns.p99_9 = f[kP999];
  row.summary.lengths_ns.max = f[kMax];
  row.summary.outlier_cutoff_ns = options.outlier_cutoff_ns;
  row.summary.outliers = static_cast<std::uint64_t>(f[kOutliers]);
  row.summary.noise_fraction_no_outliers = f[kFractionNoOutliers];
  return row;
}

// Adds a rank's figures to its node's (averaged over the node's ranks afterwards).
void add_to_node(NoiseNodeRow& node, const NoiseRankRow& row, const double* f) {
  ++node.ranks;
  node.noise_fraction += row.summary.noise_fraction;
  node.max_noise_fraction = std::max(node.max_noise_fraction, row.summary.noise_fraction);
  node.detours_per_s += row.summary.detours_per_s;
  // NaN (no detours) compares false and leaves the node's figures alone.
  if (f[kP99] > node.p99_detour_ns) {
    node.p99_detour_ns = f[kP99];
  }
  if (f[kMax] > node.max_detour_ns) {
    node.max_detour_ns = f[kMax];
  }
}

}  // namespace

NoiseReport run_noise(const NoiseRunOptions& options, MPI_Comm world) {
  Options layout_options;
  layout_options.virtual_nodes = options.virtual_nodes;
  layout_options.ranks_per_node = options.ranks_per_node;
  // Nodes only: the noise measurement does not slice by NIC, so no hwloc and no uneven-binding
  // refusal.
  layout_options.nics_per_node = 1;
  NodeLayout layout = NodeLayout::detect(world, layout_options);
  const int rank = layout.world_rank();

  // Output paths are checked before anything is measured and the verdict shared, so a bad path
  // ends every rank alike: the JSON on rank 0, which writes it; the traces on every rank, since
  // the directory may be node-local and missing or full on some node only.
  detail::agree_on_root(world, [&] {
    if (!options.json_path.empty()) {
      check_writable(options.json_path);
    }
  });
  detail::agree(world, [&] {
    if (!options.traces_dir.empty()) {
      check_writable(std::filesystem::path(options.traces_dir) / fmt::format("noise-rank{}.trace", rank));
    }
  });

  // Pin by the rank's index on its host, not on its (virtual) node: virtual nodes share a host.
  // Two ranks on one CPU measure each other's work as noise: say so (mpirun may have bound each
  // rank to its own core already, so what counts is the CPUs chosen, not the size of the mask).
  int host_rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(layout.host_comm(), &host_rank));
  noise::MeasureOptions mo = options.measure;
  mo.cpu = options.pin ? nth_allowed_cpu(host_rank) : -1;
  const bool shared_anywhere = cpus_shared(layout, mo.cpu, world);
  if (rank == 0 && !options.quiet && isatty(STDERR_FILENO) != 0) {
    fmt::print(stderr, "gridlock-bench noise: {} ranks on {} nodes measure for {} s...\n",
               layout.world_size(), layout.nodes(), mo.duration_s);
  }
  // Everybody starts together, so the measurements overlap in time.
  GRIDLOCK_MPI(MPI_Barrier(world));
  // Measuring (e.g. --timer tsc on a host without an invariant TSC) and writing a trace can fail on
  // some ranks only: agreed on before the next collective, so no rank waits in it for ever.
  std::optional<noise::Measurement> measured;
  noise::NoiseSummary s;
  detail::agree(world, [&] {
    measured = noise::measure(mo);
    s = noise::summarize(*measured, options.outlier_cutoff_ns);
  });
  noise::Measurement& m = *measured;

  Json context = base_context("gridlock-bench noise", schemas::kBenchNoise);
  context["mpi_library"] = detail::mpi_library_version();
  context["ranks"] = layout.world_size();
  context["nodes"] = layout.nodes();
  context["ranks_per_node"] = layout.ranks_per_node();
  context["virtual_nodes"] = layout.virtual_nodes();
  context["timer"] = m.timer.name();
  context["duration_s"] = mo.duration_s;
  context["threshold"] = mo.threshold;
  context["max_detours"] = mo.max_detours;
  context["pinned"] = options.pin;
  context["cpus_shared"] = shared_anywhere;
  context["outlier_cutoff_ns"] = options.outlier_cutoff_ns;
  context["outlier_rule"] =
      fmt::format("node noise fraction > median + {} x MAD over nodes", options.mad_factor);

  // A trace that cannot be written (the disk filled during the run) loses that trace only: the
  // rank says why on stderr, and rank 0 names it in the JSON; every summary is still gathered.
  bool trace_failed = false;
  try {
    if (!options.traces_dir.empty()) {
      Json trace_context = context;
      trace_context["rank"] = rank;
      trace_context["node"] = layout.node_name();
      trace_context["cpu"] = mo.cpu;
      trace_context["t_min_ns"] = m.t_min_ns;
      trace_context["detours_not_listed"] = m.detours_not_listed;
      m.trace.context = std::move(trace_context);
      noise::write_trace(std::filesystem::path(options.traces_dir) / fmt::format("noise-rank{}.trace", rank),
                         m.trace, noise::TraceFormat::kGridlock);
    }
  } catch (const std::exception& e) {
    trace_failed = true;
    fmt::print(stderr, "gridlock-bench noise: rank {}: warning: trace not written: {}\n", rank, e.what());
  }

  const std::array<double, kFields> mine = summary_fields(layout, mo.cpu, s, trace_failed);
  std::vector<double> all;
  if (rank == 0) {
    all.resize(static_cast<std::size_t>(layout.world_size()) * kFields);
  }
  GRIDLOCK_MPI(MPI_Gather(mine.data(), static_cast<int>(kFields), MPI_DOUBLE, all.data(),
                          static_cast<int>(kFields), MPI_DOUBLE, 0, world));
  const std::vector<std::string> names = layout.gather_node_names();
  NoiseReport report;
  if (rank != 0) {
    return report;
  }
  report.context = std::move(context);
  report.nodes.resize(layout.nodes());
  for (std::uint64_t n = 0; n < layout.nodes(); ++n) {
    report.nodes[n].node = n;
    report.nodes[n].name = n < names.size() ? names[n] : std::to_string(n);
  }
  for (int r = 0; r < layout.world_size(); ++r) {
    const double* f = &all[static_cast<std::size_t>(r) * kFields];
    NoiseRankRow row = rank_row(f, r, options);
    if (f[kTraceFailed] != 0) {
      report.trace_failed_ranks.push_back(r);
    }
    add_to_node(report.nodes.at(row.node), row, f);
    report.ranks.push_back(row);
  }
  for (NoiseNodeRow& node : report.nodes) {
    if (node.ranks > 0) {
      node.noise_fraction /= node.ranks;
      node.detours_per_s /= node.ranks;
    }
  }
  flag_noise_outliers(report, options.mad_factor);
  return report;
}

namespace {

// The JSON record of write_noise_outputs.
void write_noise_json(const NoiseRunOptions& options, const NoiseReport& report) {
  const auto finite = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json ranks = Json::array();
  for (const NoiseRankRow& r : report.ranks) {
    Json j = noise::summary_json(r.summary);
    j["rank"] = r.rank;
    j["node"] = r.node;
    j["cpu"] = r.cpu;
    ranks.push_back(std::move(j));
  }
  Json nodes = Json::array();
  for (const NoiseNodeRow& n : report.nodes) {
    nodes.push_back({{"node", n.node},
                     {"name", n.name},
                     {"ranks", n.ranks},
                     {"noise_fraction", n.noise_fraction},
                     {"max_noise_fraction", n.max_noise_fraction},
                     {"detours_per_s", n.detours_per_s},
                     {"p99_detour_ns", finite(n.p99_detour_ns)},
                     {"max_detour_ns", finite(n.max_detour_ns)},
                     {"outlier", n.outlier}});
  }
  Json warnings = Json::array();
  if (!report.trace_failed_ranks.empty()) {
    warnings.push_back(
        fmt::format("the traces of {} rank(s) could not be written (ranks {}); their summaries "
                    "are complete, and each rank's stderr says why",
                    report.trace_failed_ranks.size(), fmt::join(report.trace_failed_ranks, ",")));
  }
  write_json_file(options.json_path, report.context,
                  Json{{"median_noise_fraction", report.median_noise_fraction},
                       {"mad_noise_fraction", report.mad_noise_fraction},
                       {"outlier_threshold", report.outlier_threshold},
                       {"warnings", std::move(warnings)},
                       {"trace_failed_ranks", report.trace_failed_ranks},
                       {"nodes", std::move(nodes)},
                       {"ranks", std::move(ranks)}});
}

// Rank 0's part of write_noise_outputs: the file before anything is printed (a closed standard
// output must not lose it), then the table.
void print_and_write(const NoiseRunOptions& options, const NoiseReport& report) {
  if (!options.json_path.empty()) {
    write_noise_json(options, report);
  }
  // Durations in the one style of every table (docs/units.md); a node without detours has none.
  const auto duration = [](double ns) { return std::isfinite(ns) ? format_duration_s(ns * 1e-9) : "-"; };
  fmt::print("Noise per node ({} selfish detour, threshold {} x t_min, {} timer)\n",
             format_duration_s(report.context.value("duration_s", 0.0)),
             report.context.value("threshold", 0.0), report.context.value("timer", std::string("?")));
  fmt::print("| node | ranks | noise avg | noise max | detours/s | 99% detour | max detour | outlier |\n");
  fmt::print("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const NoiseNodeRow& n : report.nodes) {
    fmt::print("| {} | {} | {:.4f}% | {:.4f}% | {:.1f} | {} | {} | {} |\n", n.name, n.ranks,
               100 * n.noise_fraction, 100 * n.max_noise_fraction, n.detours_per_s, duration(n.p99_detour_ns),
               duration(n.max_detour_ns), n.outlier ? "OUTLIER" : "");
  }
  std::size_t flagged = 0;
  for (const NoiseNodeRow& n : report.nodes) {
    flagged += n.outlier ? 1 : 0;
  }
  fmt::print(
      "median noise fraction {:.4f}%, MAD {:.4f}%, outlier threshold {:.4f}% ({} x MAD): {} node(s) "
      "flagged\n",
      100 * report.median_noise_fraction, 100 * report.mad_noise_fraction, 100 * report.outlier_threshold,
      options.mad_factor, flagged);
}

}  // namespace

void write_noise_outputs(const NoiseRunOptions& options, const NoiseReport& report, MPI_Comm world) {
  detail::agree_on_root(world, [&] { print_and_write(options, report); });
}

}  // namespace gridlock::bench
