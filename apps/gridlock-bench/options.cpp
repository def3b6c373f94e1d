// gridlock-bench's option declarations, one function per subcommand (main.cpp adds the
// subcommands). Conversion and checks after parsing are gridlock::gpcnet's (finish_options) and
// gridlock::bench's (options_text.hpp); sim-replicas converts with the simulator options both
// tools share (sim_options.hpp).
#include "options.hpp"

#include <map>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/replicas.hpp"
#include "output_guard.hpp"

namespace gridlock::bench_cli {
namespace {

namespace gb = gridlock::bench;

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

}  // namespace

void add_common_options(CLI::App& cmd, gpcnet::Options& o, gpcnet::OptionsText& t, bool load) {
  add_layout_options(cmd, o);
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
    cmd.add_flag("--each-congestor", o.each_congestor,
                 "Also run the loaded tests with one congestor type at a time");
    const std::map<std::string, gpcnet::SplitRole> roles{{"both", gpcnet::SplitRole::kBoth},
                                                         {"canaries", gpcnet::SplitRole::kCanaries},
                                                         {"congestors", gpcnet::SplitRole::kCongestors}};
    cmd.add_option("--role", o.role,
                   "Split launch: this job runs the canaries or the congestors on all its nodes, the other "
                   "role is another job's (both: one job, the default)")
        ->transform(CLI::CheckedTransformer(roles, CLI::ignore_case))
        ->default_str("both");
    cmd.add_option(
        "--rendezvous", o.rendezvous_dir,
        "Split launch: a directory both jobs see, where they tell each other ready, start and stop");
    cmd.add_option("--rendezvous-timeout", t.rendezvous_timeout,
                   "Split launch: how long a job waits for the other to appear (e.g. 10min)")
        ->capture_default_str();
    add_congestor_options(cmd, o, t, "the other nodes");
  } else {
    add_loop_options(cmd, o.alltoall, "alltoall", false);
    cmd.add_option("--alltoall-size", t.alltoall_size, "Alltoall canary size per peer")
        ->capture_default_str();
  }
}

void add_noise_options(CLI::App& cmd, gb::NoiseRunOptions& o, gb::NoiseRunText& t) {
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
  study.bottleneck_threshold = t.bottleneck_slowdown_pct / 100;
  gs::check_bottleneck_threshold(study.bottleneck_threshold);
  study.noise = gridlock::cli::noise_spec_from(t.noise);
  study.cosched = t.noise.cosched;
  if (study.noise.kind == gridlock::noise::NoiseSpec::Kind::kNone) {
    throw gridlock::InputError(fmt::format("sim-replicas needs noise: {}", gridlock::noise::kHowToGiveNoise));
  }
}

void add_spmv_options(CLI::App& cmd, gb::SpmvOptions& o, gb::SpmvText& t) {
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

void add_sweep_options(CLI::App& cmd, gb::SweepOptions& o, gb::SweepText& t) {
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

std::set<std::string> given_options(const CLI::App& cmd) {
  std::set<std::string> given;
  for (const CLI::Option* option : cmd.get_options()) {
    if (option->count() > 0) {
      for (const std::string& name : option->get_lnames()) {
        given.insert("--" + name);
      }
    }
  }
  return given;
}

}  // namespace gridlock::bench_cli
