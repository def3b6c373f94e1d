#include "gridlock/bench/congest.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "detail/kernels.hpp"
#include "detail/mpi_util.hpp"
#include "detail/other_jobs.hpp"
#include "detail/run_setup.hpp"
#include "detail/split_launch.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/layout.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/gpcnet/roles.hpp"

namespace gridlock::bench {
namespace {

using gpcnet::CongestOptions;
using gpcnet::CongestReport;
using gpcnet::CongestStop;

// The last stop signal received (0: none). Set by the handler, read between batches.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) { g_stop_signal = signal; }

// SIGTERM, SIGINT and SIGUSR1 set g_stop_signal while a congest run lasts, on every rank: a
// launcher forwards them to every rank, and only rank 0 acts on them, so the others must not die
// of theirs first. SIGUSR1 because Open MPI's mpirun kills its ranks one second after it forwards
// SIGTERM (MCA odls_base_sigkill_timeout) but forwards SIGUSR1 alone.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    // The MPI library's own system calls go on after the handler rather than fail with EINTR.
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      installed_[i] = sigaction(kSignals[i], &action, &previous_[i]) == 0;
    }
  }
  ~StopSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      if (installed_[i]) {
        sigaction(kSignals[i], &previous_[i], nullptr);
      }
    }
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGTERM, SIGINT, SIGUSR1};
  std::array<struct sigaction, kSignals.size()> previous_{};
  std::array<bool, kSignals.size()> installed_{};
};

// Rank 0's stop decision, checked after every batch of its congestor: the stop file (and a split
// launch's rendezvous directory) is looked at at most every 50 ms (a stat per batch would cost a
// metadata server thousands of calls a second).
class StopRule {
 public:
  StopRule(const CongestOptions& options, double start, detail::SplitCongestors* split)
      : options_(options), start_(start), limit_s_(gpcnet::congest_time_limit_s(options)), split_(split) {}

  bool operator()() {
    const double now = MPI_Wtime();
    if (g_stop_signal != 0) {
      stop_ = CongestStop::kSignal;
      return true;
    }
    if (now - start_ >= limit_s_) {
      stop_ = CongestStop::kDuration;
      return true;
    }
    if (now - last_look_ < gpcnet::kRendezvousPollS) {
      return false;
    }
    last_look_ = now;
    std::error_code ec;
    if (!options_.stop_file.empty() && std::filesystem::exists(options_.stop_file, ec)) {
      stop_ = CongestStop::kStopFile;
      return true;
    }
    if (split_ != nullptr) {
      if (const std::optional<CongestStop> stop = split_->stop_now()) {
        stop_ = *stop;
        return true;
      }
    }
    return false;
  }
  [[nodiscard]] CongestStop stop() const noexcept { return stop_; }

 private:
  const CongestOptions& options_;
  double start_;
  double limit_s_;
  detail::SplitCongestors* split_;
  double last_look_ = -1;  // last look at the stop file and the rendezvous directory
  CongestStop stop_ = CongestStop::kDuration;
};

// Bytes per interval of one rank: a batch's bytes go to the interval its end falls in (a batch is
// `--congestor-check` iterations, milliseconds against a second's interval).
class IntervalBytes {
 public:
  IntervalBytes(double start, double interval_s, std::uint64_t bytes_per_iteration)
      : start_(start), interval_s_(interval_s), bytes_per_iteration_(bytes_per_iteration) {}

  void add(std::uint64_t iterations) {
    const double t = MPI_Wtime() - start_;
    const auto bin = static_cast<std::size_t>(std::max(0.0, t) / interval_s_);
    // Rank 0 stops the run at kMaxCongestIntervals intervals (congest_time_limit_s); batches that
    // end before the stop reaches this rank add to the last interval.
    const std::size_t at = std::min<std::size_t>(bin, gpcnet::kMaxCongestIntervals - 1);
    if (bytes_.size() <= at) {
      bytes_.resize(at + 1, 0.0);
    }
    bytes_[at] += static_cast<double>((iterations - counted_) * bytes_per_iteration_);
    counted_ = iterations;
  }
  [[nodiscard]] const std::vector<double>& bytes() const noexcept { return bytes_; }

 private:
  double start_;
  double interval_s_;
  std::uint64_t bytes_per_iteration_;
  std::uint64_t counted_ = 0;
  std::vector<double> bytes_;
};

gpcnet::RoleLayout congest_roles(const CongestOptions& options, std::uint64_t nodes, std::uint64_t seed) {
  try {
    return gpcnet::RoleLayout::all_congestors(nodes, seed, options.base.congestors);
  } catch (const InputError& e) {
    // Every rank computes the same layout from the same numbers, so all of them throw.
    throw CollectiveError(e.what(), ExitCode::kUsage);
  }
}

// The other jobs' ranks on our nodes, counted by every node's first rank: a note for rank 0.
std::optional<std::string> other_jobs_note(const NodeLayout& layout, MPI_Comm world) {
  std::array<std::uint64_t, 2> mine{0, 0};  // ranks of other jobs, nodes with any
  if (layout.local_rank() == 0 && !layout.virtual_nodes()) {
    mine[0] = detail::other_job_ranks_here();
    mine[1] = mine[0] > 0 ? 1 : 0;
  }
  std::array<std::uint64_t, 2> total{0, 0};
  GRIDLOCK_MPI(MPI_Reduce(mine.data(), total.data(), 2, MPI_UINT64_T, MPI_SUM, 0, world));
  if (total[0] == 0) {
    return std::nullopt;
  }
  return fmt::format(
      "{} process{} of another MPI job run on {} of the {} nodes: the congestors share those nodes' cores, "
      "memory and NICs with it and load more than the network (run congest on other nodes than the "
      "application)",
      total[0], total[0] == 1 ? "" : "es", total[1], layout.nodes());
}

// Every rank's interval bytes summed per congestor type on rank 0: row t of the result is type t.
// `intervals` is ceil(run seconds / interval): a batch ends before its rank's stop, so no rank has
// more, and one whose batches ended early in the last interval has fewer (zeros).
std::vector<std::vector<double>> reduce_intervals(const std::vector<double>& mine, int my_type,
                                                  std::size_t types, std::uint64_t intervals,
                                                  MPI_Comm world) {
  intervals = std::max<std::uint64_t>(intervals, mine.size());
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &intervals, 1, MPI_UINT64_T, MPI_MAX, world));
  std::vector<double> local(types * intervals, 0.0);
  if (my_type >= 0) {
    std::copy(mine.begin(), mine.end(), local.begin() + static_cast<std::ptrdiff_t>(my_type * intervals));
  }
  std::vector<double> total(local.size(), 0.0);
  const int count = detail::to_count(local.size(), "congest intervals");
  if (count > 0) {
    GRIDLOCK_MPI(MPI_Reduce(local.data(), total.data(), count, MPI_DOUBLE, MPI_SUM, 0, world));
  }
  std::vector<std::vector<double>> rows(types);
  for (std::size_t t = 0; t < types; ++t) {
    rows[t].assign(total.begin() + static_cast<std::ptrdiff_t>(t * intervals),
                   total.begin() + static_cast<std::ptrdiff_t>((t + 1) * intervals));
  }
  return rows;
}

}  // namespace

CongestReport run_congest(const CongestOptions& options, MPI_Comm world) {
  const gpcnet::Options& base = options.base;
  gpcnet::validate(base);
  // From here on a stop signal stops the run instead of killing the rank; the start line below
  // says so (tests wait for it).
  const StopSignals signals;
  GRIDLOCK_MPI(MPI_Barrier(world));
  NodeLayout layout = NodeLayout::detect(world, base);
  const int rank = layout.world_rank();
  const auto [seed, seed_from_time] = detail::agree_on_seed(base.seed, world, rank);
  const gpcnet::RoleLayout roles = congest_roles(options, layout.nodes(), seed);
  detail::agree_on_root(world, [&] {
    for (const std::string& path : {base.json_path, options.csv_path}) {
      if (!path.empty()) {
        check_writable(path);
      }
    }
  });
  // A split launch's congestor job (`load --role congestors`): the canary job starts and stops it.
  std::unique_ptr<detail::SplitCongestors> split;
  if (base.role == gpcnet::SplitRole::kCongestors) {
    split = std::make_unique<detail::SplitCongestors>(base, world);
  }
  const gpcnet::NodeRole role = roles.role_of(layout.node_id());
  const int rpn = layout.ranks_per_node();
  detail::RoleComms comms =
      detail::split_role_comms(world, role.group, role.position, rpn, layout.slice_position());
  const int my_type = role.group - 1;
  std::unique_ptr<detail::CongestorKernel> kernel;
  // One slice at a time: RMA windows of slices made by one split collide in Open MPI 4.1.
  detail::create_in_turn(world, role.group * rpn + layout.slice_position(), roles.group_count() * rpn, [&] {
    kernel = detail::make_congestor_kernel(roles.congestors().at(static_cast<std::size_t>(my_type)), base,
                                           comms.slice.get());
  });

  CongestReport report;
  report.interval_s = options.interval_s;
  const std::optional<std::string> shared = other_jobs_note(layout, world);
  if (rank == 0) {
    report.context = detail::run_context("gridlock-bench congest", schemas::kBenchCongest, base, layout, seed,
                                         seed_from_time);
    report.context["duration_s"] = options.duration_s;
    report.context["stop_file"] = options.stop_file;
    report.context["interval_s"] = options.interval_s;
    if (shared) {
      report.notes.push_back(*shared);
      fmt::print(stderr, "gridlock-bench: warning: {}\n", *shared);
    }
    if (!base.quiet) {
      fmt::print(stderr, "gridlock-bench congest: {} nodes x {} ranks, seed {}; {}{}{}{}\n", layout.nodes(),
                 rpn, seed, options.duration_s > 0 ? fmt::format("for {} s", options.duration_s) : "",
                 options.duration_s > 0 && !options.stop_file.empty() ? ", " : "",
                 options.stop_file.empty() ? "" : fmt::format("until {} exists", options.stop_file),
                 split
                     ? fmt::format("from the start to the stop of the canary job in {}", base.rendezvous_dir)
                     : "");
      std::fflush(stderr);
    }
  }

  // Warm-up before the common start, so that the first interval holds as much load as the others.
  for (std::uint64_t w = 0; w < base.congestor_warmup; ++w) {
    kernel->run();
  }
  if (split) {
    Json about{{"congestors", Json::array()}, {"nodes", layout.nodes()}, {"ranks", layout.world_size()}};
    for (const gpcnet::CongestorType type : roles.congestors()) {
      about["congestors"].push_back(gpcnet::congestor_key(type));
    }
    split->await_start(std::move(about));
  }
  // A common origin for the intervals: every rank leaves this barrier within its latency.
  GRIDLOCK_MPI(MPI_Barrier(world));
  const double start = MPI_Wtime();
  if (split) {
    split->running();
  }
  IntervalBytes intervals(start, options.interval_s, kernel->bytes_per_iteration());
  StopRule stop_rule(options, start, split.get());
  detail::CongestorHooks hooks;
  hooks.on_batch = [&intervals](std::uint64_t iterations) { intervals.add(iterations); };
  hooks.stop_now = [&stop_rule] { return stop_rule(); };
  // Warmed up above. No timeout: rank 0's rule is the only end (kMaxRunSeconds bounds a forgotten run).
  const detail::CongestorRun run = detail::drive_congestor(
      *kernel, world, comms.slice.get(), 0, base.congestor_check, gpcnet::kMaxRunSeconds, hooks);
  double seconds = MPI_Wtime() - start;
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, world));

  const std::vector<gpcnet::CongestorResult> totals =
      detail::reduce_congestor_runs(roles.congestors(), my_type, run, world);
  const auto whole = static_cast<std::uint64_t>(std::ceil(seconds / options.interval_s));
  const std::vector<std::vector<double>> rows =
      reduce_intervals(intervals.bytes(), my_type, roles.congestors().size(),
                       std::min<std::uint64_t>(whole, gpcnet::kMaxCongestIntervals), world);
  detail::add_peak_rss(report.context, world, rank);
  if (rank == 0) {
    report.stop = stop_rule.stop();
    report.seconds = seconds;
    for (std::size_t t = 0; t < totals.size(); ++t) {
      gpcnet::CongestSeries s;
      s.totals = totals[t];
      s.nodes = roles.group_size(static_cast<int>(t) + 1);
      s.interval_bytes = rows[t];
      report.congestors.push_back(std::move(s));
    }
    report.context["run_s"] = seconds;
  }
  if (split) {
    split->done(report);
  }
  return report;
}

void write_congest_outputs(const CongestOptions& options, const CongestReport& report, MPI_Comm world) {
  detail::agree_on_root(world, [&] {
    // The files before anything is printed: a closed standard output must not lose them.
    if (!options.base.json_path.empty()) {
      write_json_file(options.base.json_path, report.context, gpcnet::congest_body(report));
    }
    if (!options.csv_path.empty()) {
      write_file_atomic(options.csv_path, gpcnet::congest_csv(report));
    }
    gpcnet::print_congest_tables(report, stdout);
    std::fflush(stdout);
    if (!report.error.empty()) {
      // A split launch whose canary job was lost: the files are written, the run failed.
      throw Error(report.error);
    }
  });
}

}  // namespace gridlock::bench
