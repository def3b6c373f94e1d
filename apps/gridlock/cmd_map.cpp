// `gridlock map TOPOLOGY --nodes ... --cores-per-node N --tasks SPEC`: congestion-aware task
// mapping with Scotch (docs/mapping.md). Parses, calls gridlock::mapping, writes the outputs.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/mapping/launch_files.hpp"
#include "gridlock/mapping/study.hpp"
#include "gridlock/mapping/study_json.hpp"
#include "memory_option.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct MapArgs {
  std::string spec;
  std::string nodes;
  std::uint32_t cores_per_node = 1;
  std::string tasks;
  std::string metric = "hops";
  std::string method = "scotch";
  std::string source = "sim:none";
  std::string sim_rate = "line";
  std::string timeout = "5s";
  std::string levels = "auto";
  std::uint32_t two_level_above = 1024;
  std::uint32_t tries = 1;
  bool refine = false;
  std::string architecture = "auto";
  double stall_weight = 0.1;
  std::uint64_t seed = 1;
  bool compare = false;
  std::string json;
  std::string rankfile;
  std::string slurm_hostfile;
  std::string mpich_rank_order;
  std::string max_memory;  // empty: default_max_memory_bytes()
  bool quiet = false;
};

// Bounds of the numeric options (docs/limits.md).
constexpr std::uint32_t kMaxTwoLevelAbove = 1U << 31U;
constexpr double kMaxStallWeight = 1e6;

// Every output checked before the work (a typo in a path must not cost a 60-second mapping): none
// of them an input, each writable (the command-line guard has made sure they are distinct).
void check_map_outputs(const MapArgs& a) {
  std::vector<std::filesystem::path> inputs = mapping::task_graph_inputs(a.tasks);
  if (const auto list = mapping::node_list_input(a.nodes); !list.empty()) {
    inputs.push_back(list);
  }
  if (a.source.starts_with("sim:") && a.source != "sim:none" && a.source != "sim:paper" &&
      a.source != "sim:") {
    inputs.emplace_back(a.source.substr(4));
  }
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--json", a.json},
                                     {"--rankfile", a.rankfile},
                                     {"--slurm-hostfile", a.slurm_hostfile},
                                     {"--mpich-rank-order", a.mpich_rank_order}}) {
    if (!path.empty()) {
      check_output_not_input(path, option, inputs);
      check_writable(path);
    }
  }
}

// The study's options and the fetch's `timeout_s` from the command line, each bound checked (in
// the order the messages have always come).
mapping::StudyOptions map_study_options(const MapArgs& a, double& timeout_s) {
  mapping::StudyOptions study_options;
  study_options.seed = a.seed;
  study_options.scotch.levels = mapping::parse_levels(a.levels);
  study_options.scotch.two_level_above = a.two_level_above;
  study_options.scotch.tries = a.tries;
  study_options.scotch.refine = a.refine;
  study_options.scotch.architecture = a.architecture;
  timeout_s = parse_duration_seconds(a.timeout, "--timeout");
  if (!(timeout_s >= 0.001) || timeout_s > 3600) {
    throw InputError(fmt::format("--timeout {}: must be between 1ms and 1h, e.g. --timeout 5s", a.timeout));
  }
  if (a.two_level_above == 0 || a.two_level_above > kMaxTwoLevelAbove) {
    throw InputError(
        fmt::format("--two-level-above {}: give 1 to {} cores", a.two_level_above, kMaxTwoLevelAbove));
  }
  if (!(a.stall_weight >= 0) || a.stall_weight > kMaxStallWeight) {
    throw InputError(fmt::format("--stall-weight {}: give 0 to {:g} hops per stall %, e.g. 0.1",
                                 a.stall_weight, kMaxStallWeight));
  }
  return study_options;
}

// The options as the JSON's `parameters` give them.
mapping::MapParameters map_parameters(const MapArgs& a, double timeout_s) {
  mapping::MapParameters p;
  p.metric = a.metric;
  p.sim_rate = a.sim_rate;
  p.timeout_s = timeout_s;
  p.levels = a.levels;
  p.two_level_above = a.two_level_above;
  p.architecture = a.architecture;
  p.stall_weight = a.stall_weight;
  p.compare = a.compare;
  p.refine = a.refine;
  p.tries = a.tries;
  p.seed = a.seed;
  return p;
}

// The result files, before anything is printed: a closed standard output (`| head`) must not lose them.
void write_map_outputs(const MapArgs& a, const mapping::MapResult& result, const mapping::Machine& machine,
                       const mapping::TaskGraph& graph, double timeout_s) {
  const mapping::Placement& placement = result.study.rows[result.chosen].placement;
  const mapping::Allocation& alloc = machine.allocation();
  if (!a.rankfile.empty()) {
    write_file_atomic(a.rankfile, mapping::write_rankfile(placement, alloc));
  }
  if (!a.slurm_hostfile.empty()) {
    write_file_atomic(a.slurm_hostfile, mapping::write_slurm_hostfile(placement, alloc));
  }
  if (!a.mpich_rank_order.empty()) {
    write_file_atomic(a.mpich_rank_order, mapping::write_mpich_rank_order(placement, alloc));
  }
  if (!a.json.empty()) {
    write_json_file(a.json, mapping::map_context(map_parameters(a, timeout_s), result, machine, graph),
                    mapping::map_body(result, machine, graph));
  }
}

void run_map(const MapArgs& a) {
  const auto say = [&](const std::string& line) {
    if (!a.quiet) {
      fmt::print(stderr, "gridlock map: {}\n", line);
    }
  };
  check_map_outputs(a);
  const mapping::WeightMetric metric = mapping::parse_weight_metric(a.metric);
  const mapping::Method method = mapping::parse_method(a.method, metric);
  double timeout_s = 0;
  const mapping::StudyOptions study_options = map_study_options(a, timeout_s);
  mapping::FetchOptions fetch;
  fetch.sim_rate = a.sim_rate;
  fetch.timeout_s = timeout_s;
  mapping::check_source(a.source, fetch);
  std::vector<mapping::WeightMetric> wanted{metric};
  if (a.compare) {
    wanted.assign(mapping::kAllWeightMetrics.begin(), mapping::kAllWeightMetrics.end());
  }
  const mapping::MetricNeeds needs = mapping::needs_of(wanted);

  // Estimated before anything large is built: the topology, then what the allocation needs.
  MemoryBudget budget(max_memory_from(a.max_memory));
  const auto names = mapping::read_node_list(a.nodes);
  const auto topology = mapping::make_metrics_topology(a.spec, names, a.source, needs, budget,
                                                       "give a smaller topology, or --source sim:none");
  mapping::Allocation allocation = mapping::make_allocation(*topology, names, a.cores_per_node);
  budget.reserve(mapping::estimate_fetch_bytes(*topology, allocation.num_nodes(), a.source, needs),
                 fmt::format("the link metrics of {} nodes from {}", allocation.num_nodes(), a.source),
                 "allocate fewer nodes, or read the metrics of a large topology from a running oracle "
                 "(--source oracle:URL)");
  const mapping::TaskGraph graph = mapping::parse_task_graph(a.tasks);
  if (!a.mpich_rank_order.empty() && graph.num_tasks != allocation.num_cores()) {
    // Refused before the mapping and before any output is written: the format cannot say "leave this
    // core empty".
    throw InputError(fmt::format(
        "--mpich-rank-order: MPICH_RANK_ORDER cannot leave cores empty, and {} tasks leave {} of the {} "
        "cores "
        "empty; map as many tasks as cores, or use --rankfile or --slurm-hostfile",
        graph.num_tasks, allocation.num_cores() - std::min(graph.num_tasks, allocation.num_cores()),
        allocation.num_cores()));
  }
  mapping::check_tasks_fit(graph, allocation);

  say(fmt::format("reading link metrics from {} for {} nodes", a.source, allocation.num_nodes()));
  mapping::NodeMetrics metrics = mapping::fetch_node_metrics(*topology, allocation, a.source, needs, fetch);
  mapping::MapResult result;
  result.fetch_seconds = metrics.fetch_seconds;
  result.source = metrics.source;
  mapping::WeightOptions weights;
  weights.stall_weight = a.stall_weight;
  const mapping::Machine machine(*topology, std::move(allocation), std::move(metrics), weights);

  const std::vector<mapping::Method> methods =
      a.compare ? mapping::comparison_methods(machine) : std::vector<mapping::Method>{method};
  result.study = mapping::run_study(graph, machine, methods, study_options, say);
  // The chosen method's row: with --compare, the one named by --method (or Scotch with --metric).
  result.chosen = mapping::row_of(result.study, method);
  write_map_outputs(a, result, machine, graph, timeout_s);
  fmt::print("{}", mapping::map_report_text(result, machine, graph, a.seed));
}

}  // namespace

void add_map_command(CLI::App& app) {
  auto args = std::make_shared<MapArgs>();
  auto* cmd = app.add_subcommand(
      "map",
      "Place an application's tasks on allocated cores so that heavy communication avoids congested links "
      "(Scotch, with HOPS/BW/STALLS weights from the resource oracle; docs/mapping.md)");
  cmd->add_option("topology", args->spec, "Topology spec, e.g. torus:2x2x8 (docs/topologies.md)")->required();
  cmd->add_option(
         "--nodes", args->nodes,
         "Allocated nodes in order: a list (nid00017,nid00018), a Slurm hostlist (nid[00017-00019]) or "
         "@FILE")
      ->required();
  cmd->add_option("--cores-per-node", args->cores_per_node, "Cores (ranks) per node (1..4096)")->required();
  cmd->add_option(
         "--tasks", args->tasks,
         "Task graph: stencil3d:PXxPYxPZ[,bytes=B][,periodic], stencil2d:PXxPY[...], alltoall:N[,bytes=B], "
         "matrix:FILE or goal:FILE")
      ->required();
  cmd->add_option("--metric", args->metric, "Machine weights: none, hops, bw, stalls or hops+stalls")
      ->capture_default_str();
  cmd->add_option(
         "--method", args->method,
         "Placement written to the outputs: scotch (with --metric), scotch:METRIC, identity, cyclic, "
         "random or geometric")
      ->capture_default_str();
  cmd->add_option(
         "--source", args->source,
         "Link metrics: oracle:http://HOST:PORT (a running 'gridlock oracle serve'), sim:paper, sim:none, "
         "sim:MATRIX_FILE, ldms:PATH or sysfs[:ROOT]")
      ->capture_default_str();
  cmd->add_option(
         "--sim-rate", args->sim_rate,
         "Rate of each flow of sim:paper (e.g. 2GB/s), or line: as fast as the sender's link, like the "
         "paper's congestion utility")
      ->capture_default_str();
  cmd->add_option("--timeout", args->timeout,
                  "Oracle service: deadline of each request (connect, send and receive the whole answer)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of Scotch and of the random baseline")->capture_default_str();
  cmd->add_option("--levels", args->levels,
                  "Scotch: cores (complete graph of the cores, the paper's method), nodes (nodes first, then "
                  "cores), or auto (nodes above --two-level-above cores)")
      ->capture_default_str();
  cmd->add_option("--two-level-above", args->two_level_above,
                  "With --levels auto: cores above which to map by nodes (1..2^31)")
      ->capture_default_str();
  cmd->add_option("--tries", args->tries,
                  "Scotch runs with seeds derived from --seed, keeping the cheapest placement (1..1000)")
      ->capture_default_str();
  cmd->add_flag(
      "--refine", args->refine,
      "After Scotch, swap tasks pairwise while the exact cost drops (gridlock's addition to the paper's "
      "method; at most 8,192 cores or nodes)");
  cmd->add_option(
         "--architecture", args->architecture,
         "Scotch target architecture: auto (deco up to 256 terminals, deco2 above), deco (exact distances, "
         "cubic time) or deco2 (multilevel)")
      ->capture_default_str();
  cmd->add_option("--stall-weight", args->stall_weight, "hops+stalls: hops per stall %")
      ->capture_default_str();
  cmd->add_flag("--compare", args->compare,
                "Map with every baseline and every metric, and print the paper's cross table");
  cmd->add_option("--json", args->json, "Write the inputs, the placement and the cost table as JSON");
  output_file(cmd->get_option("--json"));
  cmd->add_option("--rankfile", args->rankfile, "Write an Open MPI rankfile (mpirun --rankfile FILE)");
  output_file(cmd->get_option("--rankfile"));
  cmd->add_option("--slurm-hostfile", args->slurm_hostfile,
                  "Write a Slurm hostfile (SLURM_HOSTFILE=FILE srun --distribution=arbitrary)");
  output_file(cmd->get_option("--slurm-hostfile"));
  cmd->add_option("--mpich-rank-order", args->mpich_rank_order,
                  "Write an MPICH_RANK_ORDER file (MPICH_RANK_REORDER_METHOD=3)");
  output_file(cmd->get_option("--mpich-rank-order"));
  add_max_memory_option(*cmd, args->max_memory);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress lines on stderr");
  cmd->callback([args] { run_map(*args); });
}

}  // namespace gridlock::cli
