// gridlock-bench: canaries alone and beside congestors (GPCNeT-style), over MPI.
// main() parses the command line on every rank, runs gridlock::bench, and maps errors to exit
// codes: errors all ranks see alike (CollectiveError; local steps are agreed on with
// detail::agree) end with MPI_Finalize, any other failure of one rank aborts the job so nothing
// hangs.
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli_docs.hpp"
#include "cli_numbers.hpp"
#include "cli_text.hpp"
#include "distinct_outputs.hpp"
#include "exit_status.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/launcher.hpp"
#include "gridlock/bench/noise_run.hpp"
#include "gridlock/bench/runner.hpp"
#include "gridlock/bench/sim_replicas.hpp"
#include "gridlock/bench/spmv.hpp"
#include "gridlock/bench/sweep.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/core/version.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/noise/timer.hpp"
#include "gridlock/sim/replicas.hpp"
#include "noise_options.hpp"
#include "output_guard.hpp"
#include "sim_options.hpp"

namespace {

// Bounds of --virtual-nodes and --ranks-per-node (far above any machine; CLI11's own
// PositiveNumber would print the whole range of a double).
constexpr int kMaxNodes = 10'000'000;

using gridlock::ExitCode;
using gridlock::to_int;
namespace gb = gridlock::bench;
namespace gpcnet = gridlock::gpcnet;

// Upper bounds of the other numeric options (docs/limits.md), checked before any rank allocates or
// loops: far above useful runs, low enough that counts cannot wrap when summed or multiplied.
// --*-measurements x --*-rings (blocks planned) stays below 2^64 with room; a run of 10^8
// measurements is how the MPI tests make a test run into --test-timeout.
constexpr std::uint64_t kMaxLoopMeasurements = 1'000'000'000;  // --*-measurements
constexpr std::uint64_t kMaxLoopRings = 1'000'000;             // --*-rings
constexpr std::uint64_t kMaxLoopIterations = 1'000'000'000;    // --*-iterations, --*-warmup, congestor counts
constexpr double kMaxRunSeconds = 7 * 86400.0;                 // --test-timeout, --deadline: a week
constexpr std::uint64_t kMaxDetours = 100'000'000;             // noise --max-detours: 1.6 GB of detours
constexpr double kMaxNoiseFactor = 1e6;                        // noise --threshold, --mad-factor
constexpr std::uint64_t kMaxRanksPerStep = 1U << 31U;          // sweep --ranks-per-step

// Throws InputError naming `option` unless `value` is at most `most`.
void check_at_most(std::uint64_t value, std::uint64_t most, const std::string& option) {
  if (value > most) {
    throw gridlock::InputError(fmt::format("{} {}: give at most {}", option, value, most));
  }
}

void check_loop_bounds(const gpcnet::LoopCounts& loop, const char* name) {
  check_at_most(loop.measurements, kMaxLoopMeasurements, fmt::format("--{}-measurements", name));
  check_at_most(loop.rings, kMaxLoopRings, fmt::format("--{}-rings", name));
  check_at_most(loop.iterations, kMaxLoopIterations, fmt::format("--{}-iterations", name));
  check_at_most(loop.warmup, kMaxLoopIterations, fmt::format("--{}-warmup", name));
}

// String-valued options converted after parsing, so units can be given ("128KiB", "500ms").
struct TextOptions {
  std::string congestors = "a2a,p2p-incast,rma-incast,rma-bcast";
  std::string latency_size = "8";
  std::string bandwidth_size = "128KiB";
  std::string allreduce_size = "8";
  std::string alltoall_size = "4KiB";
  std::string congestor_size = "4KiB";
  std::string allreduce_congestor_size = "8MiB";
  std::string test_timeout = "10s";
  std::string deadline = "0";
  std::uint64_t seed = 0;
};

void add_loop_options(CLI::App& cmd, gpcnet::LoopCounts& loop, const std::string& name, bool rings) {
  cmd.add_option(fmt::format("--{}-measurements", name), loop.measurements,
                 fmt::format("{} canary: nM", name))
      ->capture_default_str();
  if (rings) {
    cmd.add_option(fmt::format("--{}-rings", name), loop.rings,
                   fmt::format("{} canary: random rings per nM (nR)", name))
        ->capture_default_str();
  }
  cmd.add_option(fmt::format("--{}-iterations", name), loop.iterations,
                 fmt::format("{} canary: timed iterations per ring (nI)", name))
      ->capture_default_str();
  cmd.add_option(fmt::format("--{}-warmup", name), loop.warmup,
                 fmt::format("{} canary: untimed iterations per ring", name))
      ->capture_default_str();
}

// --virtual-nodes and --ranks-per-node (1 to kMaxNodes, at most one of them), written once so that
// every subcommand that groups the ranks of a host into nodes takes and checks them alike.
void add_node_options(CLI::App& cmd, std::uint64_t& virtual_nodes, std::uint64_t& ranks_per_node) {
  auto* virtual_option = cmd.add_option(
      "--virtual-nodes", virtual_nodes,
      "Treat consecutive groups of ranks of a host as this many nodes in all (testing on one machine)");
  virtual_option->check(CLI::Range(1, kMaxNodes));
  cmd.add_option("--ranks-per-node", ranks_per_node,
                 "Treat consecutive groups of this many ranks of a host as separate nodes")
      ->check(CLI::Range(1, kMaxNodes))
      ->excludes(virtual_option);
}

void add_common_options(CLI::App& cmd, gpcnet::Options& o, TextOptions& t, bool load) {
  add_node_options(cmd, o.virtual_nodes, o.ranks_per_node);
  cmd.add_option("--seed", t.seed,
                 "Seed of the node shuffle and the random rings (default: from the clock, printed)");
  cmd.add_flag("--quick", o.quick, "Small loop counts: a smoke test that takes seconds");
  cmd.add_option("--test-timeout", t.test_timeout, "Time limit of each test (e.g. 10s, 500ms)")
      ->capture_default_str();
  cmd.add_option("--deadline", t.deadline, "Time limit of the whole run; later tests are skipped (0 = none)")
      ->capture_default_str();
  cmd.add_option("--json", o.json_path, "Write every result and the run's context to this JSON file");
  gridlock::cli::output_file(cmd.get_option("--json"));
  cmd.add_option("--csv-dir", o.csv_dir,
                 "Write the histogram of every canary and state as CSV into this directory");
  gridlock::cli::output_directory(cmd.get_option("--csv-dir"));
  cmd.add_flag("-q,--quiet", o.quiet, "No progress messages on stderr");
  cmd.add_flag("-v,--verbose,--progress", o.verbose,
               "Progress lines on stderr even when it is not a terminal");
  cmd.add_option("--latency-size", t.latency_size, "Latency message size")->capture_default_str();
  cmd.add_option("--bandwidth-size", t.bandwidth_size, "Bandwidth message size")->capture_default_str();
  cmd.add_option("--bandwidth-outstanding", o.bandwidth_outstanding,
                 "Bandwidth messages in flight per neighbour")
      ->capture_default_str();
  cmd.add_option("--allreduce-size", t.allreduce_size, "Allreduce canary size (multiple of 8)")
      ->capture_default_str();
  const std::map<std::string, gpcnet::RecvBuffers> buffers{{"shared", gpcnet::RecvBuffers::kShared},
                                                           {"separate", gpcnet::RecvBuffers::kSeparate}};
  cmd.add_option("--recv-buffers", o.recv_buffers,
                 "Bandwidth canaries receive every message from a neighbour into one buffer (shared, as "
                 "GPCNeT) or each into its own (separate)")
      ->transform(CLI::CheckedTransformer(buffers, CLI::ignore_case))
      ->default_str("shared");
  const std::map<std::string, gpcnet::IdleWait> waits{{"barrier", gpcnet::IdleWait::kBarrier},
                                                      {"sleep", gpcnet::IdleWait::kSleep},
                                                      {"poll", gpcnet::IdleWait::kPoll}};
  cmd.add_option("--idle-wait", o.idle_wait,
                 "How idle ranks wait while others measure: barrier (blocking MPI call, as GPCNeT), sleep "
                 "(test + 50 us naps) or poll (busy test loop)")
      ->transform(CLI::CheckedTransformer(waits, CLI::ignore_case))
      ->default_str("barrier");
  const std::map<std::string, gpcnet::Average> averages{{"blocks", gpcnet::Average::kBlocks},
                                                        {"samples", gpcnet::Average::kSamples}};
  cmd.add_option("--average", o.average,
                 "What the tables' Avg column averages: blocks (each ring block's bulk timer, over ranks "
                 "and blocks, as GPCNeT) or samples (the mean of all per-iteration samples; for "
                 "bandwidths a mean of rates, higher when iteration times vary)")
      ->transform(CLI::CheckedTransformer(averages, CLI::ignore_case))
      ->default_str("blocks");
  add_loop_options(cmd, o.latency, "latency", true);
  add_loop_options(cmd, o.bandwidth, "bandwidth", true);
  add_loop_options(cmd, o.allreduce, "allreduce", false);
  if (load) {
    cmd.add_option("--canary-fraction", o.canary_fraction, "Fraction of nodes that run canaries")
        ->capture_default_str();
    cmd.add_option("--congestors", t.congestors,
                   "Congestor types, split evenly over the other nodes: "
                   "a2a,p2p-incast,rma-incast,rma-bcast,allreduce")
        ->capture_default_str();
    cmd.add_flag("--each-congestor", o.each_congestor,
                 "Also run the loaded tests with one congestor type at a time");
    cmd.add_option("--congestor-size", t.congestor_size, "Message size of the congestors")
        ->capture_default_str();
    cmd.add_option("--allreduce-congestor-size", t.allreduce_congestor_size,
                   "Size of the allreduce congestor")
        ->capture_default_str();
    cmd.add_option("--congestor-warmup", o.congestor_warmup, "Congestor iterations before the canaries start")
        ->capture_default_str();
    cmd.add_option("--congestor-check", o.congestor_check, "Congestor iterations between stop checks")
        ->capture_default_str();
  } else {
    add_loop_options(cmd, o.alltoall, "alltoall", false);
    cmd.add_option("--alltoall-size", t.alltoall_size, "Alltoall canary size per peer")
        ->capture_default_str();
  }
}

// True if the user gave option `name` (which need not exist on this subcommand).
bool given(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* option = cmd.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

// Converts the text options; --quick first so explicit counts given with it still win.
void finish_options(gpcnet::Options& o, const TextOptions& t, const CLI::App& cmd) {
  if (o.quick) {
    gpcnet::Options counts = o;
    gpcnet::apply_quick_profile(o);
    // Options the user gave explicitly override the profile.
    const auto keep = [&](const char* name, gpcnet::LoopCounts& target, const gpcnet::LoopCounts& user) {
      if (given(cmd, fmt::format("--{}-measurements", name))) target.measurements = user.measurements;
      if (given(cmd, fmt::format("--{}-rings", name))) target.rings = user.rings;
      if (given(cmd, fmt::format("--{}-iterations", name))) target.iterations = user.iterations;
      if (given(cmd, fmt::format("--{}-warmup", name))) target.warmup = user.warmup;
    };
    keep("latency", o.latency, counts.latency);
    keep("bandwidth", o.bandwidth, counts.bandwidth);
    keep("allreduce", o.allreduce, counts.allreduce);
    keep("alltoall", o.alltoall, counts.alltoall);
    if (given(cmd, "--congestor-warmup")) o.congestor_warmup = counts.congestor_warmup;
    if (given(cmd, "--congestor-check")) o.congestor_check = counts.congestor_check;
  }
  if (given(cmd, "--seed")) {
    o.seed = t.seed;
  }
  o.congestors = gpcnet::parse_congestor_list(t.congestors);
  o.latency_bytes = gridlock::parse_byte_size(t.latency_size, "--latency-size");
  o.bandwidth_bytes = gridlock::parse_byte_size(t.bandwidth_size, "--bandwidth-size");
  o.allreduce_bytes = gridlock::parse_byte_size(t.allreduce_size, "--allreduce-size");
  o.alltoall_bytes = gridlock::parse_byte_size(t.alltoall_size, "--alltoall-size");
  o.congestor_bytes = gridlock::parse_byte_size(t.congestor_size, "--congestor-size");
  o.allreduce_congestor_bytes =
      gridlock::parse_byte_size(t.allreduce_congestor_size, "--allreduce-congestor-size");
  const double timeout = gridlock::parse_duration_seconds(t.test_timeout, "--test-timeout");
  o.test_timeout_s =
      (o.quick && !given(cmd, "--test-timeout")) ? std::min(o.test_timeout_s, timeout) : timeout;
  o.deadline_s = gridlock::parse_duration_seconds(t.deadline, "--deadline");
  check_loop_bounds(o.latency, "latency");
  check_loop_bounds(o.bandwidth, "bandwidth");
  check_loop_bounds(o.allreduce, "allreduce");
  check_loop_bounds(o.alltoall, "alltoall");
  check_at_most(o.congestor_warmup, kMaxLoopIterations, "--congestor-warmup");
  check_at_most(o.congestor_check, kMaxLoopIterations, "--congestor-check");
  if (o.test_timeout_s > kMaxRunSeconds || o.deadline_s > kMaxRunSeconds) {
    throw gridlock::InputError(fmt::format(
        "--test-timeout {} and --deadline {}: give at most a week (168h) each", t.test_timeout, t.deadline));
  }
  gpcnet::validate(o);
}

// `noise` options given as text (units) and converted after parsing.
struct NoiseText {
  std::string duration = "10s";
  std::string timer = "auto";
  std::string outlier_cutoff = "1s";
  bool no_pin = false;
};

void add_noise_options(CLI::App& cmd, gb::NoiseRunOptions& o, NoiseText& t) {
  cmd.add_option("--duration", t.duration, "Measured time per rank (e.g. 10s, 500ms)")->capture_default_str();
  cmd.add_option("--threshold", o.measure.threshold, "A gap longer than this x t_min is a detour")
      ->capture_default_str();
  cmd.add_option("--timer", t.timer, "auto, tsc (invariant TSC) or monotonic")->capture_default_str();
  cmd.add_option("--max-detours", o.measure.max_detours, "Detours kept per rank; later ones are only counted")
      ->capture_default_str();
  cmd.add_option("--outlier-cutoff", t.outlier_cutoff,
                 "Also summarise without detours longer than this (0: off)")
      ->capture_default_str();
  cmd.add_option("--mad-factor", o.mad_factor, "Flag nodes with noise fraction > median + this x MAD")
      ->capture_default_str();
  cmd.add_flag("--no-pin", t.no_pin, "Do not pin rank i of a node to the i-th CPU it may use");
  add_node_options(cmd, o.virtual_nodes, o.ranks_per_node);
  cmd.add_option("--json", o.json_path,
                 "Write per-node and per-rank results with the context to this JSON file");
  gridlock::cli::output_file(cmd.get_option("--json"));
  cmd.add_option("--traces", o.traces_dir, "Every rank writes its trace to DIR/noise-rank<R>.trace");
  gridlock::cli::output_directory(cmd.get_option("--traces"));
  cmd.add_flag("-q,--quiet", o.quiet, "No progress messages on stderr");
}

void finish_noise_options(gb::NoiseRunOptions& o, const NoiseText& t) {
  o.measure.duration_s = gridlock::parse_duration_seconds(t.duration, "--duration");
  o.measure.timer = gridlock::noise::parse_timer_choice(t.timer);
  const double outlier_cutoff_s = gridlock::parse_duration_seconds(t.outlier_cutoff, "--outlier-cutoff");
  o.outlier_cutoff_ns = outlier_cutoff_s * 1e9;
  o.pin = !t.no_pin;
  if (!(o.measure.duration_s > 0)) {
    throw gridlock::InputError("--duration must be positive");
  }
  if (!(o.measure.threshold > 1)) {
    throw gridlock::InputError("--threshold must be > 1");
  }
  if (!(o.mad_factor >= 0) || o.mad_factor > kMaxNoiseFactor) {
    throw gridlock::InputError(fmt::format("--mad-factor {}: give 0 to {:g}", o.mad_factor, kMaxNoiseFactor));
  }
  if (o.measure.threshold > kMaxNoiseFactor) {
    throw gridlock::InputError(
        fmt::format("--threshold {}: give above 1 and at most {:g}", o.measure.threshold, kMaxNoiseFactor));
  }
  check_at_most(o.measure.max_detours, kMaxDetours, "--max-detours");
  // The rest (e.g. --duration beyond a day) before any rank starts, as in `gridlock noise measure`.
  gridlock::noise::check_measure_options(o.measure);
  gridlock::noise::check_outlier_cutoff(outlier_cutoff_s);
}

// `sim-replicas` options, as in `gridlock sim --replicas` (the model and noise options are shared).
struct SimReplicasText {
  std::string ranks;
  std::uint64_t replicas = 0;
  gridlock::cli::SimModelText model;
  gridlock::cli::NoiseText noise;
  double bottleneck_slowdown_pct = 100;
};

void add_sim_replicas_options(CLI::App& cmd, gb::SimReplicasOptions& o, SimReplicasText& t) {
  cmd.add_option("--program", o.study.program, "Schedule generator spec (see `gridlock schedgen --help`)");
  cmd.add_option("--ranks", t.ranks, "Scales: N1,N2,...");
  cmd.add_option("--replicas", t.replicas, "Replicas per scale");
  cmd.add_option("--seed", o.study.seed, "Seed of the generator and the noise phases")->capture_default_str();
  cmd.add_option("--threads", o.threads, "Threads per rank (at most 1024, and one per replica)")
      ->capture_default_str();
  gridlock::cli::add_sim_model_options(cmd, t.model);
  gridlock::cli::add_noise_model_options(cmd, t.noise);
  cmd.add_option("--bottleneck-slowdown", t.bottleneck_slowdown_pct,
                 "Median slowdown (percent) from which on noise counts as the bottleneck")
      ->capture_default_str();
  cmd.add_option("--json", o.json_path, "Write the study as JSON (rank 0)");
  gridlock::cli::output_file(cmd.get_option("--json"));
  cmd.add_option("--csv", o.csv_path, "Write one CSV row per scale (rank 0)");
  gridlock::cli::output_file(cmd.get_option("--csv"));
  cmd.add_option("--svg", o.svg_path, "Draw the box plot of every scale as SVG (rank 0)");
  gridlock::cli::output_file(cmd.get_option("--svg"));
  cmd.add_flag("-q,--quiet", o.quiet, "No progress on stderr");
}

void finish_sim_replicas_options(gb::SimReplicasOptions& o, const SimReplicasText& t, int rank) {
  namespace gs = gridlock::sim;
  gs::ReplicaStudySpec& study = o.study;
  // Every rank parses the same options, so input errors arise on all ranks alike; rank 0 alone
  // notes a --loggops-from fit.
  const gs::LogGOPSChoice model =
      gridlock::cli::sim_model_from(t.model, "gridlock-bench sim-replicas", rank != 0 || o.quiet);
  study.options.params = model.params;
  study.options.noise_rule = model.noise_rule;
  study.network_scale = model.network_scale;
  study.scales = gs::parse_scales(t.ranks);
  study.replicas = t.replicas;
  gs::check_thread_count(o.threads);
  gridlock::cli::check_distinct_outputs(
      {{"--json", o.json_path}, {"--csv", o.csv_path}, {"--svg", o.svg_path}});
  study.bottleneck_threshold = t.bottleneck_slowdown_pct / 100;
  gs::check_bottleneck_threshold(study.bottleneck_threshold);
  study.noise = gridlock::cli::noise_spec_from(t.noise);
  study.cosched = t.noise.cosched;
  if (study.noise.kind == gridlock::noise::NoiseSpec::Kind::kNone) {
    throw gridlock::InputError(fmt::format("sim-replicas needs noise: {}", gridlock::cli::kHowToGiveNoise));
  }
}

// `spmv` options given as text and converted after parsing.
struct SpmvText {
  std::string local = "5x5x5";
  std::string grid;
  std::string mapping = "identity";
  std::string congestors;
  std::string congestor_size = "4KiB";
  std::string allreduce_congestor_size = "8MiB";
};

void add_spmv_options(CLI::App& cmd, gb::SpmvOptions& o, SpmvText& t) {
  cmd.add_option("--local", t.local, "Cells per rank, NXxNYxNZ")->capture_default_str();
  cmd.add_option("--grid", t.grid, "Tasks per dimension, PXxPYxPZ (default: near-cubic, as MPI_Dims_create)");
  cmd.add_option("--vectors", o.vectors, "Columns of the multivector")->capture_default_str();
  cmd.add_option("--iterations", o.iterations, "Timed iterations")->capture_default_str();
  cmd.add_option("--warmup", o.warmup, "Untimed iterations first")->capture_default_str();
  cmd.add_option("--mapping", t.mapping,
                 "identity (as launched), rankfile (the placement of --rankfile, applied in the application) "
                 "or oracle (remapped in the application by Scotch on metrics from --source)")
      ->capture_default_str();
  cmd.add_option("--rankfile", o.rankfile, "--mapping rankfile: Open MPI rankfile written by `gridlock map`");
  cmd.add_option("--topology", o.topology,
                 "Network topology spec (--mapping oracle; optional with rankfile), e.g. torus:2x2x2");
  cmd.add_option("--source", o.source,
                 "--mapping oracle: metric source (sim:paper, sim:none, oracle:http://HOST:PORT, ...)")
      ->capture_default_str();
  cmd.add_option("--metric", o.metric,
                 "--mapping oracle: weight metric (none, hops, bw, stalls, hops+stalls)")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "--mapping oracle: Scotch's seed")->capture_default_str();
  cmd.add_option(
      "--node-names", o.node_names,
      "Virtual node names (hostlist, e.g. nid[00000-00015]): rank r gets name r / (ranks / names); for "
      "remapping on one host");
  cmd.add_option("--congestors", t.congestors,
                 "Run these congestor kernels beside the product (as `load`: a2a, p2p-incast, rma-incast, "
                 "rma-bcast, allreduce) on the last --congestor-ranks ranks");
  cmd.add_option(
      "--congestor-ranks", o.congestor_ranks,
      "How many of the last ranks run the congestors (whole nodes: a multiple of the ranks per node)");
  cmd.add_option("--congestor-size", t.congestor_size, "Message size of the congestors")
      ->capture_default_str();
  cmd.add_option("--allreduce-congestor-size", t.allreduce_congestor_size, "Size of the allreduce congestor")
      ->capture_default_str();
  cmd.add_option("--congestor-timeout", o.congestor_timeout_s,
                 "Seconds after which a congestor stops by itself if the product has not finished")
      ->capture_default_str();
  cmd.add_option("--json", o.json_path,
                 "Write the statistics, checksum, placement and context to this JSON file");
  gridlock::cli::output_file(cmd.get_option("--json"));
  cmd.add_flag("-q,--quiet", o.quiet, "No progress messages on stderr");
}

void finish_spmv_options(gb::SpmvOptions& o, const SpmvText& t, const CLI::App& cmd) {
  o.local = gb::parse_dims3(t.local, "--local", gb::kMaxSpmvLocal);
  if (!t.grid.empty()) {
    o.grid = gb::parse_dims3(t.grid, "--grid", static_cast<std::uint32_t>(kMaxNodes));
  }
  o.mapping = gb::parse_spmv_mapping(t.mapping);
  if (!t.congestors.empty()) {
    o.congestors = gpcnet::parse_congestor_list(t.congestors);
  }
  o.congestor_bytes = gridlock::parse_byte_size(t.congestor_size, "--congestor-size");
  o.allreduce_congestor_bytes =
      gridlock::parse_byte_size(t.allreduce_congestor_size, "--allreduce-congestor-size");
  if (o.mapping != gb::SpmvMapping::kOracle) {
    for (const char* name : {"--source", "--metric", "--seed"}) {
      if (given(cmd, name)) {
        throw gridlock::InputError(fmt::format("{} is used with --mapping oracle only", name));
      }
    }
  }
  gb::validate(o);
}

// `sweep` options given as text (units, lists) and converted after parsing.
struct SweepText {
  std::string ops = "all";
  std::string sizes;
  bool only_sizes = false;
  std::string max_size = "64MiB";
  std::string max_coll_size = "1MiB";
  std::string max_time = "1s";
  std::string sync = "barrier";
};

void add_sweep_options(CLI::App& cmd, gb::SweepOptions& o, SweepText& t) {
  cmd.add_option("--ops", t.ops,
                 "Ops (comma-separated): pingpong,bw_uni,bw_bi, put_fence,get_fence,put_passive,get_passive, "
                 "allreduce,bcast,barrier,alltoall,alltoallv,reduce,allgatherv,allgather,gather,scatter,"
                 "reduce_scatter; or the groups all, p2p, rma, collectives")
      ->capture_default_str();
  cmd.add_option("--sizes", t.sizes, "Sizes to add to the powers of two (e.g. 3KiB,6KiB)");
  cmd.add_flag("--only-sizes", t.only_sizes, "Measure only the --sizes, not the powers of two");
  cmd.add_option("--max-size", t.max_size, "Largest power-of-two size (0 B .. this)")->capture_default_str();
  cmd.add_option("--max-coll-size", t.max_coll_size, "Collectives use the sizes up to this (bytes per rank)")
      ->capture_default_str();
  cmd.add_option("--ranks-per-step", o.ranks_per_step,
                 "Collectives on K, 2K, 3K, ... ranks and the world (default: powers of two and the world)");
  cmd.add_option("--reps", o.reps, "Most repetitions per size")->capture_default_str();
  cmd.add_option("--min-reps", o.min_reps, "Fewest repetitions per size, even beyond --max-time")
      ->capture_default_str();
  cmd.add_option("--max-time", t.max_time, "Time per size (sets the repetitions from the warm-up)")
      ->capture_default_str();
  cmd.add_option("--warmup", o.warmup, "Untimed calls before each size")->capture_default_str();
  cmd.add_option("--window", o.window, "Messages in flight per bandwidth sample (bw_uni, bw_bi)")
      ->capture_default_str();
  cmd.add_option("--sync", t.sync,
                 "Collective synchronisation: barrier (MPI_Barrier before each call) or window (calls at "
                 "agreed times of rank 0's clock)")
      ->capture_default_str();
  cmd.add_option("--window-us", o.window_us, "--sync window: window per call in microseconds (0: automatic)")
      ->capture_default_str();
  cmd.add_option("--repeat", o.repeat, "Run the whole sweep this many times (run-to-run variability)")
      ->capture_default_str();
  cmd.add_flag("--quick", o.quick, "One-minute profile: few sizes, few repetitions");
  cmd.add_flag("--samples", o.samples, "Keep every sample in the JSON");
  cmd.add_flag(
      "--guidelines", o.guidelines,
      "Measure what the self-consistent guidelines compare, plus an explicit --ops (with samples; bcast "
      "also at n x p)");
  cmd.add_option("--topology", o.topology,
                 "Network topology spec whose node names the nodes have (for the `router` pair class)");
  cmd.add_option("--node-names", o.node_names,
                 "Virtual node names (hostlist): rank r gets name r / (ranks / names)");
  add_node_options(cmd, o.virtual_nodes, o.ranks_per_node);
  cmd.add_option("--seed", o.seed, "Seed of the buffer contents")->capture_default_str();
  cmd.add_option("--json", o.json_path, "Write every record and the context to this JSON file");
  gridlock::cli::output_file(cmd.get_option("--json"));
  cmd.add_flag("-q,--quiet", o.quiet, "No progress messages on stderr");
}

void finish_sweep_options(gb::SweepOptions& o, const SweepText& t, const CLI::App& cmd) {
  const gb::SweepOptions user = o;
  o.ops_text = t.ops;
  o.ops = gb::parse_sweep_ops(t.ops);
  o.max_size = gridlock::parse_byte_size(t.max_size, "--max-size");
  o.max_coll_size = gridlock::parse_byte_size(t.max_coll_size, "--max-coll-size");
  o.max_time_s = gridlock::parse_duration_seconds(t.max_time, "--max-time");
  o.sync = gb::parse_sweep_sync(t.sync);
  check_at_most(o.ranks_per_step, kMaxRanksPerStep, "--ranks-per-step");
  const std::vector<std::uint64_t> extra =
      t.sizes.empty() ? std::vector<std::uint64_t>{} : gb::parse_size_list(t.sizes, "--sizes");
  o.sizes = gb::sweep_sizes(o.max_size, extra, t.only_sizes);
  if (o.quick) {
    gb::apply_sweep_quick_profile(o);
    // Options the user gave explicitly override the profile.
    if (given(cmd, "--max-size")) {
      o.max_size = gridlock::parse_byte_size(t.max_size, "--max-size");
      o.sizes = gb::sweep_sizes(o.max_size, {}, false);
    }
    if (given(cmd, "--sizes")) {
      std::vector<std::uint64_t> quick_sizes = t.only_sizes ? std::vector<std::uint64_t>{} : o.sizes;
      std::erase_if(quick_sizes, [&](std::uint64_t s) { return s > o.max_size; });
      quick_sizes.insert(quick_sizes.end(), extra.begin(), extra.end());
      o.sizes = gb::sweep_sizes(o.max_size, quick_sizes, true);
    }
    if (given(cmd, "--max-coll-size"))
      o.max_coll_size = gridlock::parse_byte_size(t.max_coll_size, "--max-coll-size");
    if (given(cmd, "--max-time")) o.max_time_s = gridlock::parse_duration_seconds(t.max_time, "--max-time");
    if (given(cmd, "--reps")) o.reps = user.reps;
    if (given(cmd, "--min-reps")) o.min_reps = user.min_reps;
    if (given(cmd, "--window")) o.window = user.window;
  }
  if (o.guidelines) {
    o.samples = true;
    // The guideline ops, and with --ops the ops given as well.
    std::string ops = given(cmd, "--ops") ? o.ops_text : std::string("allreduce");
    for (const std::string& op : gb::sweep_guideline_ops()) {
      ops += "," + op;
    }
    o.ops = gb::parse_sweep_ops(ops);
  }
  // Fault injection for the tests (docs/gridlock-bench.md); every rank reads the same environment.
  if (const char* fault =
          std::getenv("GRIDLOCK_SWEEP_FAIL")) {  // NOLINT(concurrency-mt-unsafe): no threads yet
    o.fault = gb::parse_sweep_fault(fault);
  }
  gb::validate(o);
}

// docs_only: `gridlock-bench --generate-docs DIR`, before and without MPI_Init (cli_docs.hpp).
int run(int argc, char** argv, int rank, int thread_level, bool docs_only) {
  CLI::App app{"gridlock-bench: measure network congestion with canaries and congestors (GPCNeT method)"};
  app.require_subcommand(1);
  gpcnet::Options network_options;
  network_options.mode = gpcnet::Mode::kNetwork;
  gpcnet::Options load_options;
  load_options.mode = gpcnet::Mode::kLoad;
  TextOptions network_text;
  TextOptions load_text;
  auto* network = app.add_subcommand("network",
                                     "Every node runs the canaries (random-ring latency and bandwidth, "
                                     "RMA, natural ring, allreduce, alltoall)");
  auto* load = app.add_subcommand("load",
                                  "Canaries on a fraction of the nodes, alone and beside congestors on the "
                                  "rest; reports Congestion Impact");
  add_common_options(*network, network_options, network_text, false);
  add_common_options(*load, load_options, load_text, true);
  gb::NoiseRunOptions noise_options;
  NoiseText noise_text;
  auto* noise = app.add_subcommand(
      "noise",
      "Every rank measures system noise (selfish detour) on its own core at the same time; "
      "per-node table with outlier nodes");
  add_noise_options(*noise, noise_options, noise_text);
  gb::SimReplicasOptions replicas_options;
  SimReplicasText replicas_text;
  auto* replicas = app.add_subcommand(
      "sim-replicas", "Monte-Carlo noise study of `gridlock sim --replicas`, replicas spread over the ranks");
  add_sim_replicas_options(*replicas, replicas_options, replicas_text);
  gb::SpmvOptions spmv_options;
  SpmvText spmv_text;
  auto* spmv = app.add_subcommand(
      "spmv",
      "Distributed 7-point-stencil SpMV on a multivector (CG-style iterations), as launched or remapped in "
      "the application (rankfile, or Scotch on network metrics)");
  add_spmv_options(*spmv, spmv_options, spmv_text);
  gb::SweepOptions sweep_options;
  SweepText sweep_text;
  auto* sweep = app.add_subcommand(
      "sweep",
      "MPI performance over message sizes: ping-pong and streaming bandwidth by hop class, one-sided "
      "put/get, collectives over communicator sizes (ReproMPI method); JSON for `gridlock model`");
  add_sweep_options(*sweep, sweep_options, sweep_text);
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
  gridlock::cli::check_outputs_not_inputs(std::vector<std::string>(argv + 1, argv + argc),
                                          gridlock::cli::given_subcommands(app));
  // Another MPI family's launcher would start N one-rank jobs that each measure alone.
  gb::check_launcher();
  if (replicas->parsed()) {
    // The conversion reads --loggops-from's fit on every rank: agreed, so one rank failing ends all.
    gb::agree_on_options(MPI_COMM_WORLD,
                         [&] { finish_sim_replicas_options(replicas_options, replicas_text, rank); });
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
    finish_spmv_options(spmv_options, spmv_text, *spmv);
    const gb::SpmvReport report = gb::run_spmv(spmv_options, MPI_COMM_WORLD);
    gb::write_spmv_outputs(spmv_options, report, MPI_COMM_WORLD);
    return 0;
  }
  if (sweep->parsed()) {
    finish_sweep_options(sweep_options, sweep_text, *sweep);
    const gb::SweepReport report = gb::run_sweep(sweep_options, MPI_COMM_WORLD);
    gb::write_sweep_outputs(sweep_options, report, MPI_COMM_WORLD);
    return report.failed > 0 ? gb::kSweepFailedExitCode : 0;
  }
  if (noise->parsed()) {
    finish_noise_options(noise_options, noise_text);
    const gb::NoiseReport report = gb::run_noise(noise_options, MPI_COMM_WORLD);
    gb::write_noise_outputs(noise_options, report, MPI_COMM_WORLD);
    return 0;
  }
  gpcnet::Options& options = network->parsed() ? network_options : load_options;
  finish_options(options, network->parsed() ? network_text : load_text, network->parsed() ? *network : *load);
  const gpcnet::Report report = gb::run_benchmark(options, MPI_COMM_WORLD);
  gb::write_outputs(options, report, MPI_COMM_WORLD);
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
  const bool needs_threads = argc > 1 && std::string_view(argv[1]) == "sim-replicas";
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
