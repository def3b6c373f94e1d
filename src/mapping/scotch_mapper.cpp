// Task mapping with Scotch (Debian's libscotch-dev, 64-bit integers), the paper's engine:
// a deco architecture built from the complete weighted graph of the allocated cores (or nodes),
// SCOTCH_graphMap with a zero-imbalance strategy, then a check that the result is one task per
// core, repaired if not. Only plain graphMap is used: Debian's Scotch 7.0.3 computes deco
// terminal domains off by one, which makes graphRemap, graphMapFixed, graphMapView costs and
// archDomTerm wrong on these architectures; every cost is computed by gridlock (cost.cpp).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/wall_clock.hpp"
#include "gridlock/mapping/mapping.hpp"

extern "C" {
#include <scotch.h>
}

namespace gridlock::mapping {
namespace {

// Scotch keeps its random generator and error reporting in process-wide state; every call into
// it is made under this lock, so two mappings in one process (threads, SMPI ranks) cannot mix
// their seeds or their messages.
std::mutex& scotch_mutex() {
  static std::mutex mutex;
  return mutex;
}

// The messages Scotch reported since the last take_scotch_errors(); written by the error hooks
// below, which Scotch calls with scotch_mutex() held by us.
std::string& scotch_messages() {
  static std::string messages;
  return messages;
}

std::string take_scotch_errors() {
  std::string out;
  out.swap(scotch_messages());
  return out.empty() ? std::string("no message") : out;
}

void append_message(const char* format, va_list args) {
  std::array<char, 512> buffer{};
  // Scotch's own format and arguments, passed through: not a literal by nature.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  std::vsnprintf(buffer.data(), buffer.size(), format, args);  // NOLINT(clang-analyzer-valist.Uninitialized)
#pragma GCC diagnostic pop
  auto& messages = scotch_messages();
  if (messages.size() < 4096) {
    messages += messages.empty() ? "" : "; ";
    messages += buffer.data();
  }
}

// Edge weights are integers in Scotch: one unit is 1/kWeightScale of gridlock's weight, so a
// stall of 68.3 % (weight 70.3) becomes 703.
constexpr double kWeightScale = 10;
// Task-graph loads are scaled so that the heaviest pair weighs this much: Scotch needs only the
// ratios, and bounded loads keep its sums (loads x distances, 64-bit) far from overflow.
constexpr double kMaxTaskLoad = 1 << 20;
// Architectures with at most this many terminals use deco 1 (SCOTCH_archBuild0: exact distance
// matrix, all-pairs shortest paths, cubic time: 0.03 s at 256, 5.7 s at 1,024 here); larger ones use
// deco 2 (SCOTCH_archBuild2: multilevel, 0.12 s at 1,024 and 2.5 s at 4,096 terminals).
constexpr std::uint32_t kMaxDecoOneTerminals = 256;
// Most Scotch runs one mapping may ask for.
constexpr std::uint32_t kMaxTries = 1000;
// Swap refinement tries every pair of vertices per pass.
constexpr std::size_t kMaxRefineVertices = 8192;
constexpr std::uint32_t kRefinePasses = 20;
// Most nodes the two-level mapper accepts: its complete node graph has n^2 edges.
constexpr std::uint32_t kMaxNodeTerminals = 8192;

struct ScotchGraph {
  SCOTCH_Graph graph{};
  ScotchGraph() {
    if (SCOTCH_graphInit(&graph) != 0) {
      throw Error("Scotch: SCOTCH_graphInit failed: " + take_scotch_errors());
    }
  }
  ~ScotchGraph() { SCOTCH_graphExit(&graph); }
  ScotchGraph(const ScotchGraph&) = delete;
  ScotchGraph& operator=(const ScotchGraph&) = delete;
  ScotchGraph(ScotchGraph&&) = delete;
  ScotchGraph& operator=(ScotchGraph&&) = delete;
};

struct ScotchArch {
  SCOTCH_Arch arch{};
  ScotchArch() {
    if (SCOTCH_archInit(&arch) != 0) {
      throw Error("Scotch: SCOTCH_archInit failed: " + take_scotch_errors());
    }
  }
  ~ScotchArch() { SCOTCH_archExit(&arch); }
  ScotchArch(const ScotchArch&) = delete;
  ScotchArch& operator=(const ScotchArch&) = delete;
  ScotchArch(ScotchArch&&) = delete;
  ScotchArch& operator=(ScotchArch&&) = delete;
};

struct ScotchStrat {
  SCOTCH_Strat strat{};
  ScotchStrat() {
    if (SCOTCH_stratInit(&strat) != 0) {
      throw Error("Scotch: SCOTCH_stratInit failed: " + take_scotch_errors());
    }
  }
  ~ScotchStrat() { SCOTCH_stratExit(&strat); }
  ScotchStrat(const ScotchStrat&) = delete;
  ScotchStrat& operator=(const ScotchStrat&) = delete;
  ScotchStrat(ScotchStrat&&) = delete;
  ScotchStrat& operator=(ScotchStrat&&) = delete;
};

// A graph in Scotch's CSR form (arrays must outlive the SCOTCH_Graph built on them).
struct Csr {
  std::vector<SCOTCH_Num> vert;         // n + 1 offsets
  std::vector<SCOTCH_Num> vertex_load;  // empty: all 1
  std::vector<SCOTCH_Num> edge;
  std::vector<SCOTCH_Num> edge_load;
};

void build_graph(ScotchGraph& g, Csr& csr, const char* what) {
  const auto n = static_cast<SCOTCH_Num>(csr.vert.size() - 1);
  if (SCOTCH_graphBuild(&g.graph, 0, n, csr.vert.data(), nullptr,
                        csr.vertex_load.empty() ? nullptr : csr.vertex_load.data(), nullptr,
                        static_cast<SCOTCH_Num>(csr.edge.size()), csr.edge.data(),
                        csr.edge_load.data()) != 0) {
    throw Error(fmt::format("Scotch: cannot build the {} graph: {}", what, take_scotch_errors()));
  }
}

// The complete graph over `terminals` with weight(i, j) scaled to integers.
template <typename Weight>
Csr complete_graph(std::uint32_t terminals, std::uint32_t vertex_load, Weight weight) {
  Csr csr;
  const std::size_t n = terminals;
  csr.vert.resize(n + 1);
  csr.edge.reserve(n * (n - 1));
  csr.edge_load.reserve(n * (n - 1));
  for (std::size_t i = 0; i < n; ++i) {
    csr.vert[i] = static_cast<SCOTCH_Num>(csr.edge.size());
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j) {
        csr.edge.push_back(static_cast<SCOTCH_Num>(j));
        const double w =
            std::round(weight(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)) * kWeightScale);
        csr.edge_load.push_back(std::max<SCOTCH_Num>(1, static_cast<SCOTCH_Num>(w)));
      }
    }
  }
  csr.vert[n] = static_cast<SCOTCH_Num>(csr.edge.size());
  if (vertex_load != 1) {
    csr.vertex_load.assign(n, static_cast<SCOTCH_Num>(vertex_load));
  }
  return csr;
}

// The task graph, undirected (bytes both ways add up), with `extra` isolated filler vertices so
// that the total load equals the architecture's and a zero-imbalance mapping is possible.
Csr task_csr(const TaskGraph& graph, std::uint32_t extra) {
  struct Pair {
    std::uint32_t a;
    std::uint32_t b;
    std::uint64_t bytes;
  };
  std::vector<Pair> pairs;
  pairs.reserve(graph.messages.size());
  for (const auto& m : graph.messages) {
    pairs.push_back({std::min(m.src, m.dst), std::max(m.src, m.dst), m.bytes});
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const Pair& x, const Pair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  std::vector<Pair> merged;
  merged.reserve(pairs.size());
  for (const auto& p : pairs) {
    if (!merged.empty() && merged.back().a == p.a && merged.back().b == p.b) {
      merged.back().bytes += p.bytes;
    } else {
      merged.push_back(p);
    }
  }
  std::uint64_t heaviest = 1;
  for (const auto& p : merged) {
    heaviest = std::max(heaviest, p.bytes);
  }
  const std::size_t n = static_cast<std::size_t>(graph.num_tasks) + extra;
  std::vector<SCOTCH_Num> degree(n + 1, 0);
  for (const auto& p : merged) {
    ++degree[p.a];
    ++degree[p.b];
  }
  Csr csr;
  csr.vert.resize(n + 1);
  SCOTCH_Num at = 0;
  for (std::size_t v = 0; v < n; ++v) {
    csr.vert[v] = at;
    at += degree[v];
  }
  csr.vert[n] = at;
  csr.edge.resize(static_cast<std::size_t>(at));
  csr.edge_load.resize(static_cast<std::size_t>(at));
  std::vector<SCOTCH_Num> fill(csr.vert.begin(), csr.vert.end() - 1);
  for (const auto& p : merged) {
    const double scaled =
        std::ceil(static_cast<double>(p.bytes) / static_cast<double>(heaviest) * kMaxTaskLoad);
    const auto load = std::max<SCOTCH_Num>(1, static_cast<SCOTCH_Num>(scaled));
    csr.edge[static_cast<std::size_t>(fill[p.a])] = static_cast<SCOTCH_Num>(p.b);
    csr.edge_load[static_cast<std::size_t>(fill[p.a]++)] = load;
    csr.edge[static_cast<std::size_t>(fill[p.b])] = static_cast<SCOTCH_Num>(p.a);
    csr.edge_load[static_cast<std::size_t>(fill[p.b]++)] = load;
  }
  return csr;
}

// Greedy repair: every terminal above its capacity hands its surplus (filler vertices first, then
// the tasks with the least traffic) to the free terminal where they cost least.
template <typename TerminalWeight>
std::uint32_t repair(std::vector<SCOTCH_Num>& part, std::uint32_t num_tasks, std::uint32_t terminals,
                     std::uint32_t capacity, const TaskGraph& graph, TerminalWeight weight) {
  std::vector<std::uint32_t> load(terminals, 0);
  for (const auto p : part) {
    ++load[static_cast<std::size_t>(p)];
  }
  if (std::all_of(load.begin(), load.end(), [&](std::uint32_t l) { return l <= capacity; })) {
    return 0;
  }
  // Outgoing and incoming bytes of each task, to price a move.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> neighbours(num_tasks);
  std::vector<std::uint64_t> traffic(num_tasks, 0);
  for (const auto& m : graph.messages) {
    neighbours[m.src].emplace_back(m.dst, m.bytes);
    neighbours[m.dst].emplace_back(m.src, m.bytes);
    traffic[m.src] += m.bytes;
    traffic[m.dst] += m.bytes;
  }
  std::vector<std::uint32_t> order(part.size());
  for (std::uint32_t v = 0; v < order.size(); ++v) {
    order[v] = v;
  }
  // Fillers (ids >= num_tasks, no traffic) move first, then tasks by increasing traffic.
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const bool filler_a = a >= num_tasks;
    const bool filler_b = b >= num_tasks;
    if (filler_a != filler_b) {
      return filler_a;
    }
    return !filler_a && traffic[a] < traffic[b];
  });
  std::uint32_t moved = 0;
  for (const auto v : order) {
    const auto from = static_cast<std::uint32_t>(part[v]);
    if (load[from] <= capacity) {
      continue;
    }
    std::uint32_t best = terminals;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::uint32_t t = 0; t < terminals; ++t) {
      if (load[t] >= capacity) {
        continue;
      }
      double cost = 0;
      if (v < num_tasks) {
        for (const auto& [other, bytes] : neighbours[v]) {
          cost += static_cast<double>(bytes) * weight(t, static_cast<std::uint32_t>(part[other]));
        }
      }
      if (cost < best_cost) {
        best_cost = cost;
        best = t;
      }
      if (v >= num_tasks) {
        break;  // a filler costs nothing anywhere
      }
    }
    if (best == terminals) {
      throw InternalError("the repair of Scotch's mapping found no free core (mapping)");
    }
    --load[from];
    ++load[best];
    part[v] = static_cast<SCOTCH_Num>(best);
    moved += v < num_tasks ? 1 : 0;
  }
  return moved;
}

void check_terminals(const std::vector<SCOTCH_Num>& part, std::uint32_t terminals) {
  for (const auto p : part) {
    if (p < 0 || p >= static_cast<SCOTCH_Num>(terminals)) {
      throw InternalError(fmt::format(
          "Scotch mapped a vertex to terminal {} of {} (a defect of Scotch or of the graph gridlock gave it)",
          p, terminals));
    }
  }
}

// Total bytes x weight of a terminal assignment (tasks only; fillers carry no traffic).
template <typename TerminalWeight>
double part_cost(const std::vector<SCOTCH_Num>& part, const TaskGraph& graph, TerminalWeight weight) {
  double total = 0;
  for (const auto& m : graph.messages) {
    const auto a = static_cast<std::uint32_t>(part[m.src]);
    const auto b = static_cast<std::uint32_t>(part[m.dst]);
    total += static_cast<double>(m.bytes) * weight(a, b);
  }
  return total;
}

// Undirected neighbour lists of the tasks: bytes both ways added (weights are symmetric).
std::vector<std::vector<std::pair<std::uint32_t, double>>> undirected_neighbours(const TaskGraph& graph) {
  std::vector<std::vector<std::pair<std::uint32_t, double>>> out(graph.num_tasks);
  for (const auto& m : graph.messages) {
    out[m.src].emplace_back(m.dst, static_cast<double>(m.bytes));
    out[m.dst].emplace_back(m.src, static_cast<double>(m.bytes));
  }
  return out;
}

// Pairwise-swap refinement on gridlock's exact weights (the deco architecture gives Scotch
// shortest-path distances, which understate a congested direct route): repeatedly applies the
// best improving swap of a task with any other vertex on another terminal (a task or a filler,
// i.e. an empty core), until no swap improves or `max_passes` passes are done. Capacities are
// kept because swaps exchange whole vertices. Returns the number of swaps.
template <typename TerminalWeight>
std::uint32_t refine_by_swaps(std::vector<SCOTCH_Num>& part, const TaskGraph& graph, TerminalWeight weight,
                              std::uint32_t max_passes) {
  const auto neighbours = undirected_neighbours(graph);
  const std::size_t vertices = part.size();
  // Cost change of moving task u from terminal `from` to `to`, with `skip` (the swap partner) left
  // out because the u-v edge keeps its weight.
  const auto move_delta = [&](std::uint32_t u, std::uint32_t from, std::uint32_t to, std::uint32_t skip) {
    double delta = 0;
    for (const auto& [w, bytes] : neighbours[u]) {
      if (w == skip) {
        continue;
      }
      const auto at = static_cast<std::uint32_t>(part[w]);
      delta += bytes * (weight(to, at) - weight(from, at));
    }
    return delta;
  };
  std::uint32_t swaps = 0;
  for (std::uint32_t pass = 0; pass < max_passes; ++pass) {
    bool improved = false;
    for (std::uint32_t u = 0; u < graph.num_tasks; ++u) {
      const auto a = static_cast<std::uint32_t>(part[u]);
      double best = -1e-9;
      std::size_t best_v = vertices;
      for (std::size_t v = 0; v < vertices; ++v) {
        const auto b = static_cast<std::uint32_t>(part[v]);
        if (b == a) {
          continue;
        }
        double delta = move_delta(u, a, b, static_cast<std::uint32_t>(v));
        if (v < graph.num_tasks) {
          delta += move_delta(static_cast<std::uint32_t>(v), b, a, u);
        }
        if (delta < best) {
          best = delta;
          best_v = v;
        }
      }
      if (best_v != vertices) {
        std::swap(part[u], part[best_v]);
        ++swaps;
        improved = true;
      }
    }
    if (!improved) {
      break;
    }
  }
  return swaps;
}

}  // namespace

void check_scotch_library() {
  const int width = SCOTCH_numSizeof();
  if (width != static_cast<int>(sizeof(SCOTCH_Num))) {
    throw Error(fmt::format(
        "the Scotch library linked in uses {}-byte integers but gridlock was compiled against a header with "
        "{}-byte integers (SCOTCH_Num); rebuild gridlock against the matching libscotch-dev variant "
        "(cmake/GridlockScotch.cmake)",
        width, sizeof(SCOTCH_Num)));
  }
}

namespace {

// Scotch's version, as "7.0.3".
std::string scotch_version_text() {
  int major = 0;
  int minor = 0;
  int patch = 0;
  SCOTCH_version(&major, &minor, &patch);
  return fmt::format("{}.{}.{}", major, minor, patch);
}

// The target architecture --architecture asks for (auto: deco up to kMaxDecoOneTerminals terminals).
std::string architecture_for(const ScotchOptions& options, std::uint32_t terminals) {
  if (options.architecture == "auto") {
    return terminals <= kMaxDecoOneTerminals ? "deco" : "deco2";
  }
  if (options.architecture == "deco" || options.architecture == "deco2") {
    return options.architecture;
  }
  throw InputError(
      fmt::format("unknown Scotch architecture '{}': use auto, deco or deco2", options.architecture));
}

// The terminals Scotch maps onto: the allocation's nodes (each holding cores_per_node tasks) or
// its cores; refuses a graph that does not fit and a machine graph too large.
struct Terminals {
  bool by_nodes = false;
  std::uint32_t count = 0;
  std::uint32_t capacity = 1;  // Tasks per terminal.
};

Terminals choose_terminals(const TaskGraph& graph, const Machine& machine, WeightMetric metric,
                           const ScotchOptions& options) {
  const Allocation& allocation = machine.allocation();
  const std::uint32_t cores = allocation.num_cores();
  if (graph.num_tasks > cores) {
    throw InputError(
        fmt::format("{} tasks do not fit on {} cores ({} nodes x {} cores): allocate more nodes or "
                    "give --cores-per-node",
                    graph.num_tasks, cores, allocation.num_nodes(), allocation.cores_per_node));
  }
  if (!machine.has(metric)) {
    throw InputError(fmt::format("metric '{}' needs link metrics that were not fetched", to_string(metric)));
  }
  Terminals t;
  t.by_nodes =
      options.levels == Levels::kNodes ||
      (options.levels == Levels::kAuto && cores > options.two_level_above && allocation.cores_per_node > 1);
  t.count = t.by_nodes ? allocation.num_nodes() : cores;
  t.capacity = t.by_nodes ? allocation.cores_per_node : 1;
  if (t.count > kMaxNodeTerminals) {
    throw InputError(fmt::format(
        "Scotch mapping of {} {}: the complete machine graph would have {} edges; at most {} are supported "
        "(use more cores per node, or a smaller allocation)",
        t.count, t.by_nodes ? "nodes" : "cores", static_cast<std::uint64_t>(t.count) * (t.count - 1),
        kMaxNodeTerminals));
  }
  return t;
}

// Maps the tasks (and fillers up to the terminals' capacity) onto `terminals` with Scotch,
// options.tries times with derived seeds, and returns each vertex's terminal, the cheapest by
// gridlock's own cost; fills the report's times, swaps and repaired tasks.
template <typename TerminalWeight>
std::vector<SCOTCH_Num> map_with_scotch(const TaskGraph& graph, const Terminals& terminals,
                                        const ScotchOptions& options, TerminalWeight terminal_weight,
                                        ScotchReport& local) {
  std::vector<SCOTCH_Num> part(static_cast<std::size_t>(terminals.count) * terminals.capacity, 0);
  const std::uint32_t fillers = terminals.count * terminals.capacity - graph.num_tasks;
  const auto start = std::chrono::steady_clock::now();
  Csr arch_csr = complete_graph(terminals.count, terminals.capacity, terminal_weight);
  Csr task = task_csr(graph, fillers);
  const std::lock_guard lock(scotch_mutex());
  scotch_messages().clear();
  // Scotch's generator is process-wide: seeding it here, under the lock, makes a mapping depend
  // on the seed only.
  SCOTCH_randomSeed(static_cast<SCOTCH_Num>(options.seed & 0x7FFFFFFFFFFFFFFFULL));
  SCOTCH_randomReset();
  ScotchGraph arch_graph;
  build_graph(arch_graph, arch_csr, "machine");
  ScotchArch arch;
  ScotchStrat arch_strat;
  const int built = local.architecture == "deco"
                        ? SCOTCH_archBuild0(&arch.arch, &arch_graph.graph, 0, nullptr, &arch_strat.strat)
                        : SCOTCH_archBuild2(&arch.arch, &arch_graph.graph, 0, nullptr);
  if (built != 0) {
    throw Error(fmt::format("Scotch: cannot build the {}-terminal architecture: {}", terminals.count,
                            take_scotch_errors()));
  }
  ScotchGraph task_graph;
  build_graph(task_graph, task, "task");
  ScotchStrat strat;
  // Zero imbalance: every terminal gets exactly its capacity (filler vertices make the totals equal).
  const SCOTCH_Num flags = options.speed         ? SCOTCH_STRATSPEED
                           : part.size() <= 4096 ? SCOTCH_STRATQUALITY
                                                 : SCOTCH_STRATDEFAULT;
  if (SCOTCH_stratGraphMapBuild(&strat.strat, flags | SCOTCH_STRATBALANCE,
                                static_cast<SCOTCH_Num>(terminals.count), 0.0) != 0) {
    throw Error("Scotch: cannot build the mapping strategy: " + take_scotch_errors());
  }
  local.build_seconds = seconds_since(start);
  const auto map_start = std::chrono::steady_clock::now();
  // Several tries with derived seeds, keeping the cheapest placement by gridlock's own cost:
  // Scotch's result varies with its seed by several percent of the total.
  double best_cost = std::numeric_limits<double>::infinity();
  std::vector<SCOTCH_Num> tried(part.size());
  for (std::uint32_t attempt = 0; attempt < options.tries; ++attempt) {
    SCOTCH_randomSeed(static_cast<SCOTCH_Num>(derive_seed(options.seed, attempt) & 0x7FFFFFFFFFFFFFFFULL));
    SCOTCH_randomReset();
    if (SCOTCH_graphMap(&task_graph.graph, &arch.arch, &strat.strat, tried.data()) != 0) {
      throw Error(fmt::format("Scotch: SCOTCH_graphMap failed: {}", take_scotch_errors()));
    }
    check_terminals(tried, terminals.count);
    const auto moved =
        repair(tried, graph.num_tasks, terminals.count, terminals.capacity, graph, terminal_weight);
    if (options.refine) {
      if (part.size() > kMaxRefineVertices) {
        throw InputError(
            fmt::format("--refine is for at most {} cores (it tries every pair); this mapping has {}",
                        kMaxRefineVertices, part.size()));
      }
      local.swaps += refine_by_swaps(tried, graph, terminal_weight, kRefinePasses);
    }
    const double cost = options.tries == 1 ? 0 : part_cost(tried, graph, terminal_weight);
    if (cost < best_cost) {
      best_cost = cost;
      part.swap(tried);
      local.repaired_tasks = moved;
    }
  }
  local.map_seconds = seconds_since(map_start);
  return part;
}

}  // namespace

Placement scotch_placement(const TaskGraph& graph, const Machine& machine, WeightMetric metric,
                           const ScotchOptions& options, ScotchReport* report) {
  check_scotch_library();
  const Allocation& allocation = machine.allocation();
  const Terminals terminals = choose_terminals(graph, machine, metric, options);
  const bool by_nodes = terminals.by_nodes;
  const auto terminal_weight = [&](std::uint32_t a, std::uint32_t b) {
    if (a == b) {
      return by_nodes ? 1.0 : 0.0;
    }
    return by_nodes ? machine.node_weight(metric, a, b) : machine.core_weight(metric, a, b);
  };
  ScotchReport local;
  local.levels = by_nodes ? "nodes" : "cores";
  local.terminals = terminals.count;
  local.architecture = architecture_for(options, terminals.count);
  local.scotch_version = scotch_version_text();
  if (options.tries == 0 || options.tries > kMaxTries) {
    throw InputError(
        fmt::format("--tries {}: must be 1..{} (Scotch runs with derived seeds)", options.tries, kMaxTries));
  }
  // One terminal takes every task: nothing to map.
  const std::vector<SCOTCH_Num> part =
      terminals.count > 1
          ? map_with_scotch(graph, terminals, options, terminal_weight, local)
          : std::vector<SCOTCH_Num>(static_cast<std::size_t>(terminals.count) * terminals.capacity, 0);
  local.tries = options.tries;
  Placement placement(graph.num_tasks);
  if (by_nodes) {
    // Inside a node every core weighs the same (1), so tasks take its slots in task order.
    std::vector<std::uint32_t> next_slot(terminals.count, 0);
    for (std::uint32_t t = 0; t < graph.num_tasks; ++t) {
      const auto node = static_cast<std::uint32_t>(part[t]);
      placement[t] = node * allocation.cores_per_node + next_slot[node]++;
    }
  } else {
    for (std::uint32_t t = 0; t < graph.num_tasks; ++t) {
      placement[t] = static_cast<std::uint32_t>(part[t]);
    }
  }
  check_placement(placement, graph.num_tasks, allocation.num_cores());
  if (report != nullptr) {
    *report = local;
  }
  return placement;
}

}  // namespace gridlock::mapping

// Scotch reports errors through these hooks, which the application must provide (or link
// libscotcherr, which prints to stderr, or libscotcherrexit, which calls exit()). gridlock keeps the
// messages and puts them into the exception it throws.
extern "C" void SCOTCH_errorProg(const char* const /*name*/) {}

extern "C" void SCOTCH_errorPrint(const char* const format, ...) {
  va_list args;
  va_start(args, format);
  gridlock::mapping::append_message(format, args);
  va_end(args);
}

extern "C" void SCOTCH_errorPrintW(const char* const format, ...) {
  va_list args;
  va_start(args, format);
  gridlock::mapping::append_message(format, args);
  va_end(args);
}
