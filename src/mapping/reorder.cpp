#include "gridlock/mapping/reorder.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::mapping {

namespace {

/// A task graph of `num_tasks` ranks without messages (a call that declares no communication).
TaskGraph empty_graph(std::uint32_t num_tasks, std::string spec) {
  TaskGraph graph;
  graph.num_tasks = num_tasks;
  graph.spec = std::move(spec);
  return graph;
}

/// The job's (virtual) nodes, numbered in order of first appearance, their names (a host's name,
/// with `#k` for its k-th virtual node), and the core (Allocation's numbering) of each rank.
struct Nodes {
  std::vector<std::uint32_t> core_of_rank;
  std::vector<std::string> names;
  std::uint32_t ranks_per_node = 0;
};

Nodes group_ranks(std::span<const std::string> hosts, std::uint32_t virtual_nodes) {
  const auto n = static_cast<std::uint32_t>(hosts.size());
  // Ranks of each host in rank order, hosts in order of first appearance.
  std::map<std::string_view, std::uint32_t> host_index;
  std::vector<std::vector<std::uint32_t>> host_ranks;
  for (std::uint32_t r = 0; r < n; ++r) {
    const auto [it, inserted] = host_index.emplace(hosts[r], static_cast<std::uint32_t>(host_ranks.size()));
    if (inserted) {
      host_ranks.emplace_back();
    }
    host_ranks[it->second].push_back(r);
  }
  std::uint32_t group = 0;  // ranks per node
  if (virtual_nodes > 0) {
    if (virtual_nodes > n || n % virtual_nodes != 0) {
      throw InputError(
          fmt::format("GRIDLOCK_VIRTUAL_NODES={} does not divide the communicator's {} ranks; "
                      "give a divisor of the rank count",
                      virtual_nodes, n));
    }
    group = n / virtual_nodes;
  } else {
    group = static_cast<std::uint32_t>(host_ranks.front().size());
  }
  if (group == 0) {
    throw InputError("reorder: no ranks to group into nodes");
  }
  Nodes nodes;
  nodes.core_of_rank.assign(n, 0);
  nodes.ranks_per_node = group;
  for (std::size_t h = 0; h < host_ranks.size(); ++h) {
    const std::vector<std::uint32_t>& ranks = host_ranks[h];
    if (ranks.size() % group != 0) {
      const std::string_view host = hosts[ranks.front()];
      throw InputError(fmt::format(
          "host '{}' runs {} of the communicator's ranks, not a multiple of {} ranks per node: a reorder "
          "needs as many ranks on every node{}",
          host, ranks.size(), group,
          virtual_nodes > 0 ? "" : " (or GRIDLOCK_VIRTUAL_NODES dividing every host's ranks)"));
    }
    const auto parts = static_cast<std::uint32_t>(ranks.size() / group);
    for (std::uint32_t k = 0; k < parts; ++k) {
      const auto node = static_cast<std::uint32_t>(nodes.names.size());
      nodes.names.push_back(parts == 1 ? std::string(hosts[ranks.front()])
                                       : fmt::format("{}#{}", hosts[ranks.front()], k));
      for (std::uint32_t s = 0; s < group; ++s) {
        nodes.core_of_rank[ranks[(k * group) + s]] = (node * group) + s;
      }
    }
  }
  return nodes;
}

/// The topology's names of the job's nodes: GRIDLOCK_NODES in order, or the processor names.
std::vector<std::string> topology_names(const ReorderConfig& config, const Nodes& nodes) {
  if (config.nodes.empty()) {
    return nodes.names;
  }
  std::vector<std::string> names = read_node_list(config.nodes);
  if (names.size() != nodes.names.size()) {
    throw InputError(
        fmt::format("GRIDLOCK_NODES names {} nodes, but the communicator's ranks run on {} "
                    "(first: '{}'): give one topology name per node, in the order the "
                    "processor names first appear",
                    names.size(), nodes.names.size(), nodes.names.front()));
  }
  return names;
}

/// The machine a reorder maps onto, with the topology it refers to, and its description.
struct ReorderMachine {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<Machine> machine;
  std::string description;
};

/// The machine of the job's `nodes`: one switch without GRIDLOCK_TOPOLOGY, else the topology (the
/// part the allocation's routes use, or the whole for an oracle's link values) with the metrics.
ReorderMachine reorder_machine(const ReorderConfig& config, const Nodes& nodes) {
  ReorderMachine out;
  const auto num_nodes = static_cast<std::uint32_t>(nodes.names.size());
  std::vector<std::string> names;
  const MetricNeeds needs = needs_of(std::span<const WeightMetric>(&config.metric, 1));
  const std::string source = config.oracle.empty() ? std::string("sim:none") : "oracle:" + config.oracle;
  if (config.topology.empty()) {
    // One switch with every node on it: the weights then only tell a core of the same node (1)
    // from a core of another (2), so the mapping keeps heavy traffic on a node.
    if (num_nodes > kMaxAllocationNodes) {
      throw InputError(
          fmt::format("reorder: {} nodes; at most {} are supported", num_nodes, kMaxAllocationNodes));
    }
    out.topology = topo::make_topology(fmt::format("fattree:{}", num_nodes));
    for (std::uint32_t i = 0; i < num_nodes; ++i) {
      names.push_back(out.topology->nodes()[i].name);
    }
    out.description = fmt::format("one switch, {} nodes x {} ranks", num_nodes, nodes.ranks_per_node);
  } else {
    names = topology_names(config, nodes);
    MemoryBudget budget(default_max_memory_bytes(), "GRIDLOCK_TOPOLOGY");
    out.topology = make_metrics_topology(
        config.topology, names, source, needs, budget,
        "give a smaller topology, or GRIDLOCK_METRIC=hops, which needs only the allocation's routes");
    out.description =
        fmt::format("{}, {} nodes x {} ranks", config.topology, num_nodes, nodes.ranks_per_node);
  }
  Allocation allocation = make_allocation(*out.topology, names, nodes.ranks_per_node);
  NodeMetrics metrics = fetch_node_metrics(*out.topology, allocation, source, needs);
  out.machine = std::make_unique<Machine>(*out.topology, std::move(allocation), std::move(metrics));
  return out;
}

}  // namespace

TaskGraph cartesian_task_graph(std::span<const int> dims, std::span<const int> periods, std::uint64_t bytes) {
  if (dims.empty() || dims.size() > kMaxCartesianDims) {
    throw InputError(
        fmt::format("Cartesian grid: {} dimensions; 1 to {} are supported", dims.size(), kMaxCartesianDims));
  }
  if (periods.size() != dims.size()) {
    throw InputError(
        fmt::format("Cartesian grid: {} periods for {} dimensions", periods.size(), dims.size()));
  }
  if (bytes == 0) {
    throw InputError("Cartesian grid: 0 bytes per neighbour message");
  }
  std::uint64_t size = 1;
  std::string spec = "cart:";
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 1) {
      throw InputError(
          fmt::format("Cartesian grid: dimension {} is {}; every dimension must be at least 1", d, dims[d]));
    }
    size *= static_cast<std::uint64_t>(dims[d]);
    if (size > kMaxTasks) {
      throw InputError(fmt::format("Cartesian grid: more than {} ranks", kMaxTasks));
    }
    spec += fmt::format("{}{}{}", d == 0 ? "" : "x", dims[d], periods[d] != 0 ? "p" : "");
  }
  const auto n = static_cast<std::uint32_t>(size);
  // MPI's row-major order: the last dimension varies fastest.
  std::vector<std::uint32_t> stride(dims.size(), 1);
  for (std::size_t d = dims.size() - 1; d-- > 0;) {
    stride[d] = stride[d + 1] * static_cast<std::uint32_t>(dims[d + 1]);
  }
  // Grid coordinates for geometric mapping, which takes up to three.
  std::vector<std::array<double, 3>> grid_coords(dims.size() <= 3 ? n : 0, {0, 0, 0});
  std::vector<Message> messages;
  std::vector<std::uint32_t> coords(dims.size(), 0);
  for (std::uint32_t rank = 0; rank < n; ++rank) {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto extent = static_cast<std::uint32_t>(dims[d]);
      if (extent == 1) {
        continue;
      }
      // One message per distinct neighbour: with 2 positions, -1 and +1 wrap to the same rank.
      std::array<std::optional<std::uint32_t>, 2> neighbours;
      if (coords[d] + 1 < extent) {
        neighbours[0] = coords[d] + 1;
      } else if (periods[d] != 0) {
        neighbours[0] = 0;
      }
      if (coords[d] > 0) {
        neighbours[1] = coords[d] - 1;
      } else if (periods[d] != 0) {
        neighbours[1] = extent - 1;
      }
      if (neighbours[0] && neighbours[1] && *neighbours[0] == *neighbours[1]) {
        neighbours[1].reset();
      }
      for (const std::optional<std::uint32_t>& position : neighbours) {
        if (position) {
          messages.push_back({rank, rank - (coords[d] * stride[d]) + (*position * stride[d]), bytes});
        }
      }
    }
    if (!grid_coords.empty()) {
      std::ranges::copy(coords, grid_coords[rank].begin());
    }
    // Next position, last dimension fastest.
    for (std::size_t d = dims.size(); d-- > 0;) {
      if (++coords[d] < static_cast<std::uint32_t>(dims[d])) {
        break;
      }
      coords[d] = 0;
    }
  }
  TaskGraph graph = messages.empty()
                        ? empty_graph(n, std::move(spec))
                        : make_task_graph(n, std::move(messages), std::move(spec), "Cartesian grid");
  graph.coords = std::move(grid_coords);
  return graph;
}

TaskGraph edge_task_graph(std::uint32_t num_tasks, std::vector<Message> edges, std::string spec) {
  std::erase_if(edges, [](const Message& m) { return m.src == m.dst || m.bytes == 0; });
  if (edges.empty()) {
    if (num_tasks == 0 || num_tasks > kMaxTasks) {
      throw InputError(fmt::format("graph topology: {} ranks; 1 to {} are supported", num_tasks, kMaxTasks));
    }
    return empty_graph(num_tasks, std::move(spec));
  }
  return make_task_graph(num_tasks, std::move(edges), std::move(spec), "graph topology");
}

std::string_view to_string(ReorderMethod method) noexcept {
  switch (method) {
    case ReorderMethod::kGeometric:
      return "geometric";
    case ReorderMethod::kScotch:
      return "scotch";
    case ReorderMethod::kAuto:
      break;
  }
  return "auto";
}

ReorderConfig reorder_config_from(const std::function<std::optional<std::string>(std::string_view)>& lookup) {
  ReorderConfig config;
  const auto value = [&lookup](std::string_view name) { return lookup(name).value_or(std::string()); };
  config.topology = value("GRIDLOCK_TOPOLOGY");
  config.nodes = value("GRIDLOCK_NODES");
  config.oracle = value("GRIDLOCK_ORACLE");
  if (const std::string metric = value("GRIDLOCK_METRIC"); !metric.empty()) {
    try {
      config.metric = parse_weight_metric(metric);
    } catch (const InputError& e) {
      throw InputError(fmt::format("GRIDLOCK_METRIC: {}", e.what()));
    }
  }
  if (const std::string nodes = value("GRIDLOCK_VIRTUAL_NODES"); !nodes.empty()) {
    const std::optional<std::uint32_t> count = parse_number<std::uint32_t>(nodes);
    if (!count || *count == 0 || *count > kMaxAllocationNodes) {
      throw InputError(fmt::format("GRIDLOCK_VIRTUAL_NODES='{}': give a number of nodes from 1 to {}", nodes,
                                   kMaxAllocationNodes));
    }
    config.virtual_nodes = *count;
  }
  if (const std::string seed = value("GRIDLOCK_REORDER_SEED"); !seed.empty()) {
    const std::optional<std::uint64_t> parsed = parse_number<std::uint64_t>(seed);
    if (!parsed) {
      throw InputError(fmt::format("GRIDLOCK_REORDER_SEED='{}': give a non-negative integer", seed));
    }
    config.seed = *parsed;
  }
  if (const std::string method = value("GRIDLOCK_REORDER_METHOD"); !method.empty()) {
    const std::array methods{ReorderMethod::kAuto, ReorderMethod::kGeometric, ReorderMethod::kScotch};
    const auto* found = std::find_if(methods.begin(), methods.end(),
                                     [&method](ReorderMethod m) { return iequals(to_string(m), method); });
    if (found == methods.end()) {
      throw InputError(fmt::format("GRIDLOCK_REORDER_METHOD='{}': use auto, geometric or scotch", method));
    }
    config.method = *found;
  }
  if (!config.nodes.empty() && config.topology.empty()) {
    throw InputError("GRIDLOCK_NODES names nodes of a topology, but GRIDLOCK_TOPOLOGY is not set");
  }
  const MetricNeeds needs = needs_of(std::span<const WeightMetric>(&config.metric, 1));
  if ((needs.bw || needs.stalls) && config.oracle.empty()) {
    throw InputError(
        fmt::format("GRIDLOCK_METRIC={} needs GRIDLOCK_ORACLE (the URL of `gridlock oracle serve`); "
                    "without it use hops",
                    to_string(config.metric)));
  }
  return config;
}

ReorderPlan plan_reorder(const TaskGraph& graph, std::span<const std::string> hosts,
                         const ReorderConfig& config) {
  const auto started = std::chrono::steady_clock::now();
  const auto n = static_cast<std::uint32_t>(hosts.size());
  if (graph.num_tasks != n) {
    throw InputError(fmt::format("reorder: the graph has {} ranks, the communicator {}", graph.num_tasks, n));
  }
  ReorderPlan plan;
  plan.metric = config.metric;
  plan.new_rank.resize(n);
  std::iota(plan.new_rank.begin(), plan.new_rank.end(), 0U);
  const auto elapsed = [&started] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  if (n <= 1 || graph.messages.empty()) {
    plan.note = n <= 1 ? "one rank: nothing to reorder" : "the ranks declare no communication";
    plan.seconds = elapsed();
    return plan;
  }
  const Nodes nodes = group_ranks(hosts, config.virtual_nodes);
  const ReorderMachine built = reorder_machine(config, nodes);
  const Machine& machine = *built.machine;
  plan.machine = built.description;

  // The core each old rank runs on, and the launcher's placement: task t is old rank t.
  Placement before(n);
  std::vector<std::uint32_t> rank_on_core(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    before[r] = nodes.core_of_rank[r];
    rank_on_core[before[r]] = r;
  }
  // A grid of up to three dimensions is cut by recursive coordinate bisection (0.4 ms for 1,024
  // ranks, 17 ms for 16,384: bench/reorder_bench.cpp), but bisecting the routers' coordinates
  // knows neither a torus's wrap-around nor how a scattered allocation's nodes connect: on the
  // mapping paper's 16 nodes of a 2x2x8 torus its placement of halo3d ran 17% slower under SMPI
  // than the launcher's order, Scotch's 4% faster (tests/smpi/reorder_halo_check.sh). By default
  // a grid gets both and keeps the cheaper under the metric; other graphs go to Scotch, mapped onto
  // nodes (a node's cores weigh the same to every other core, so nothing is lost) with its speed
  // strategy: 1,024 ranks in 30-45 ms, where onto cores with its quality strategy took 150-390 ms
  // for costs within 1%.
  const auto metric_cost = [&config](const CostRow& row) {
    return row.cost(config.metric).value_or(Cost{}).total;
  };
  const auto map_with_scotch = [&] {
    ScotchOptions options;
    options.seed = config.seed;
    options.speed = true;
    options.levels = Levels::kNodes;
    return scotch_placement(graph, machine, config.metric, options);
  };
  const std::string scotch_name = fmt::format("scotch:{}", to_string(config.metric));
  const bool grid = graph.coords.size() == n;
  if (config.method == ReorderMethod::kGeometric && !grid) {
    throw InputError(
        "GRIDLOCK_REORDER_METHOD=geometric needs a Cartesian grid of up to 3 dimensions (MPI_Cart_create); "
        "use auto or scotch");
  }
  plan.before = evaluate_placement(graph, machine, before, "launcher");
  Placement after;
  if (grid && config.method != ReorderMethod::kScotch) {
    plan.method = "geometric";
    after = geometric_placement(graph, machine);
    plan.after = evaluate_placement(graph, machine, after, plan.method);
    if (config.method == ReorderMethod::kAuto) {
      Placement mapped = map_with_scotch();
      CostRow row = evaluate_placement(graph, machine, mapped, scotch_name);
      if (metric_cost(row) < metric_cost(plan.after)) {
        after = std::move(mapped);
        plan.after = std::move(row);
        plan.method = scotch_name;
      }
    }
  } else {
    plan.method = scotch_name;
    after = map_with_scotch();
    plan.after = evaluate_placement(graph, machine, after, plan.method);
  }
  const double cost_before = metric_cost(plan.before);
  const double cost_after = metric_cost(plan.after);
  if (cost_after >= cost_before) {
    plan.note = fmt::format("the launcher's order costs no more ({} against {} under {})", cost_before,
                            cost_after, to_string(config.metric));
    plan.after = plan.before;
    plan.seconds = elapsed();
    return plan;
  }
  // Task t goes to the process on core after[t]: that process becomes rank t.
  for (std::uint32_t t = 0; t < n; ++t) {
    plan.new_rank[rank_on_core[after[t]]] = t;
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    plan.reordered = plan.reordered || plan.new_rank[r] != r;
  }
  plan.seconds = elapsed();
  return plan;
}

}  // namespace gridlock::mapping
