#include "gridlock/predict/predict_mapping.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/wall_clock.hpp"
#include "gridlock/mapping/study.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/report_json.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/predict/predict_gpcnet.hpp"
#include "gridlock/sim/params_json.hpp"
#include "gridlock/sim/schedule.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::predict {

using net::default_predict_params;
using net::estimate_model_bytes;
using net::explicit_placement;
using net::make_model;
using net::ModelKind;
using net::Network;
using net::NetworkParams;
using net::PacketOptions;

namespace {

// One placement's simulated times, alone and beside the congestors.
struct PlacementTimes {
  double alone_us = 0;
  double congested_us = 0;
  bool starved = false;
  std::uint64_t congestor_messages = 0;
  double congestors_end_us = 0;
  int attempts = 1;
};

// Most application iterations: each is a distinct message tag per rank pair.
constexpr std::uint32_t kMaxIterations = 1'000'000;
// Most Scotch seeds of one prediction (each costs a simulation per placement it changes).
constexpr std::uint32_t kMaxSeeds = 1000;
// Congestor messages in the calibration run that measures how long one takes.
constexpr std::uint64_t kCalibrationMessages = 4;
// Messages each congestor direction keeps in flight: two, so that the link never idles between
// one message's end and the next one's start (a bandwidth benchmark's window).
constexpr std::uint32_t kCongestorWindow = 2;
// The application starts after this many congestor messages, when the competing flows are in
// their steady state (the paper started SpMV beside congestors already running).
constexpr double kWarmupMessages = 2;
// The congestors repeat until the application ends; an application that has not ended this many
// times its time alone after the warm-up made no headway beside them (starved), and the run stops.
constexpr std::uint64_t kStarvedFactor = 32;

// Bytes one scheduled operation costs: the builder's op, its edges and peer offset and the
// engine's per-op state (as predict gpcnet's kGpcnetBytesPerOp).
constexpr std::uint64_t kBytesPerOp = kGpcnetBytesPerOp;

// The memory budget of one run of build_schedule's schedule and the model, before it is built.
void reserve_mapping_run(const MappingPredictOptions& options, const mapping::TaskGraph& graph,
                         std::uint32_t iterations, std::uint64_t congestor_messages,
                         std::uint64_t model_bytes) {
  MemoryBudget budget(options.max_memory_bytes == 0 ? default_max_memory_bytes() : options.max_memory_bytes);
  budget.reserve(model_bytes, "the network model");
  // Per iteration every task sends and receives its messages and closes with a calc; every
  // congestor rank sends and receives each of its messages.
  const std::uint64_t per_iteration =
      saturating_add(saturating_mul(2, graph.messages.size()), graph.num_tasks);
  const std::uint64_t ops =
      saturating_add(saturating_mul(iterations, per_iteration),
                     saturating_mul(saturating_mul(4, options.congestor_pairs.size()), congestor_messages));
  budget.reserve(
      saturating_mul(ops, kBytesPerOp),
      fmt::format("a run of {} iterations of {} tasks and {} congestor messages per rank ({} operations)",
                  iterations, graph.num_tasks, congestor_messages, ops),
      "give fewer --iterations, a smaller --tasks graph or a larger --congestor-size relative to "
      "the application's time");
}

// The application and the congestors; `iterations` may be 0 here (the calibration run).
// `repeat_congestors`: each congestor rank is kCongestorWindow messages each way that repeat until
// the application ends (congestor_messages is then ignored, but must not be 0).
MappingSchedule build_schedule(const mapping::TaskGraph& graph, std::uint32_t iterations,
                               std::uint64_t compute_ps, std::uint64_t start_delay_ps,
                               const std::vector<std::pair<std::string, std::string>>& pairs,
                               std::uint64_t congestor_bytes, std::uint64_t congestor_messages,
                               bool repeat_congestors = false) {
  MappingSchedule out;
  out.app_ranks = graph.num_tasks;
  const std::uint64_t congestor_ranks = congestor_messages > 0 ? 2 * pairs.size() : 0;
  if (graph.num_tasks + congestor_ranks > sim::kMaxRanks) {
    throw InputError(fmt::format("{} tasks and {} congestor ranks exceed the simulator's {} ranks",
                                 graph.num_tasks, congestor_ranks, sim::kMaxRanks));
  }
  std::vector<std::vector<const mapping::Message*>> outgoing(graph.num_tasks);
  std::vector<std::vector<const mapping::Message*>> incoming(graph.num_tasks);
  for (const auto& m : graph.messages) {
    outgoing[m.src].push_back(&m);
    incoming[m.dst].push_back(&m);
  }
  sim::ScheduleBuilder b(static_cast<std::uint32_t>(graph.num_tasks + congestor_ranks));
  for (std::uint32_t task = 0; task < graph.num_tasks; ++task) {
    b.begin_rank(task);
    std::vector<std::uint32_t> prev;
    if (start_delay_ps > 0) {
      prev.push_back(b.calc(sim::SimTime{start_delay_ps}));
    }
    for (std::uint32_t it = 0; it < iterations; ++it) {
      // All sends and receives of an iteration at once, as the halo3d step posts them; the tag is
      // the iteration, so a message can only match its own iteration's receive.
      std::vector<std::uint32_t> ops;
      for (const auto* m : outgoing[task]) {
        ops.push_back(b.send(m->bytes, m->dst, it));
      }
      for (const auto* m : incoming[task]) {
        ops.push_back(b.recv(m->bytes, m->src, it));
      }
      for (const auto op : ops) {
        for (const auto p : prev) {
          b.add_requires(op, p);
        }
      }
      // The computation (or a zero-length marker) closes the iteration.
      const std::uint32_t end = b.calc(sim::SimTime{compute_ps});
      for (const auto op : ops.empty() ? prev : ops) {
        b.add_requires(end, op);
      }
      prev.assign(1, end);
    }
    b.end_rank();
  }
  if (congestor_ranks > 0) {
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      for (std::uint32_t side = 0; side < 2; ++side) {
        const auto rank = static_cast<std::uint32_t>(graph.num_tasks + 2 * p + side);
        const auto peer = static_cast<std::uint32_t>(graph.num_tasks + 2 * p + (1 - side));
        out.congestor_nodes.push_back(side == 0 ? pairs[p].first : pairs[p].second);
        b.begin_rank(rank);
        // Receives posted up front (a rendezvous send would otherwise wait for them); sends back
        // to back with kCongestorWindow in flight.
        // Repeating, each of the kCongestorWindow sends and receives is a part of its own: the
        // next send of a slot starts when its last one completes, as send k requires send
        // k - kCongestorWindow when unrolled, and the slot's tag keeps the streams in order.
        const std::uint64_t count = repeat_congestors ? kCongestorWindow : congestor_messages;
        std::vector<std::uint32_t> sends;
        for (std::uint64_t k = 0; k < count; ++k) {
          (void)b.recv(congestor_bytes, peer, static_cast<std::uint32_t>(k));
          const std::uint32_t s = b.send(congestor_bytes, peer, static_cast<std::uint32_t>(k));
          if (k >= kCongestorWindow) {
            b.add_requires(s, sends[k - kCongestorWindow]);
          }
          sends.push_back(s);
        }
        b.end_rank();
        if (repeat_congestors) {
          b.set_repeating(rank);
        }
      }
    }
  }
  out.schedule = b.finish();
  return out;
}

struct RunTimes {
  std::uint64_t app_end_ps = 0;         // latest finish over the application's ranks
  std::uint64_t congestors_end_ps = 0;  // earliest finish over the congestor ranks (when the run stopped)
  std::uint64_t messages = 0;
  bool starved = false;                  // repeating congestors: the time limit came first
  std::uint64_t congestor_messages = 0;  // repeating congestors: messages each sent, on average
};

// `time_limit_ps`: with repeating congestors, when the application counts as starved.
RunTimes run(const MappingSchedule& built, const std::shared_ptr<const Network>& network,
             const MappingPredictOptions& options, std::uint64_t time_limit_ps = 0) {
  PacketOptions packet = options.packet;
  packet.seed = options.seed;
  auto model = make_model(options.model, network, packet);
  sim::SimOptions so;
  so.params = options.params;
  so.network = model.get();
  so.repeat_time_limit = sim::SimTime{time_limit_ps};
  const sim::SimResult result = sim::simulate(built.schedule, so);
  const bool repeating = built.schedule.has_repeating();
  if (repeating && result.time_limit_reached) {
    RunTimes t;
    t.starved = true;
    t.messages = result.messages;
    t.app_end_ps = result.stopped_at.ps;
    t.congestors_end_ps = result.stopped_at.ps;
    return t;
  }
  if (!result.complete) {
    // gridlock generates the schedule: one that cannot finish is our defect, not the user's.
    throw InternalError(
        fmt::format("gridlock predict mapping: a simulation of a generated schedule did not finish:\n{}",
                    sim::stuck_report(result)));
  }
  RunTimes t;
  t.messages = result.messages;
  t.congestors_end_ps = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t app_sends = 0;
  for (std::uint32_t r = 0; r < built.schedule.num_ranks(); ++r) {
    if (r < built.app_ranks) {
      t.app_end_ps = std::max(t.app_end_ps, result.finish[r].ps);
      for (const sim::Op& op : built.schedule.program_of(r).ops) {
        app_sends += op.type == sim::OpType::kSend ? 1 : 0;
      }
    } else {
      t.congestors_end_ps = std::min(t.congestors_end_ps, result.finish[r].ps);
    }
  }
  const std::uint64_t congestor_ranks = built.schedule.num_ranks() - built.app_ranks;
  if (repeating && congestor_ranks > 0) {
    // The congestors ran until the application ended; the messages they sent are the rest.
    t.congestors_end_ps = result.stopped_at.ps;
    t.congestor_messages = (result.messages - std::min(result.messages, app_sends)) / congestor_ranks;
  }
  return t;
}

std::shared_ptr<const Network> make_network(const std::shared_ptr<const topo::Topology>& topology,
                                            std::vector<topo::NodeId> node_of_rank, const std::string& what,
                                            const MappingPredictOptions& options) {
  const auto ranks = static_cast<std::uint32_t>(node_of_rank.size());
  return std::make_shared<const Network>(topology,
                                         explicit_placement(*topology, ranks, std::move(node_of_rank), what),
                                         NetworkParams{options.hop_latency_ps});
}

std::vector<mapping::Method> methods_of(const MappingPredictOptions& options,
                                        const mapping::Machine* machine) {
  std::vector<mapping::Method> methods;
  if (options.methods.empty()) {
    for (const char* name : {"cyclic", "random", "geometric", "scotch:none", "scotch:hops", "scotch:bw",
                             "scotch:stalls", "scotch:hops+stalls"}) {
      methods.push_back(mapping::parse_method(name, mapping::WeightMetric::kHops));
    }
  } else {
    for (const auto& name : options.methods) {
      methods.push_back(mapping::parse_method(name, mapping::WeightMetric::kHops));
    }
  }
  if (machine != nullptr) {
    for (const auto& m : methods) {
      if (m.kind == mapping::Method::Kind::kScotch && !machine->has(m.metric)) {
        throw InputError(fmt::format("--methods {}: the source '{}' gives no {} metric", m.name(),
                                     options.source, mapping::to_string(m.metric)));
      }
    }
  }
  return methods;
}

std::string us_text(double us) { return fmt::format("{:.2f}", us); }
std::string pct_text(double pct) { return std::isnan(pct) ? std::string("-") : fmt::format("{:.1f}", pct); }
std::string us_or_starved(double us) { return std::isnan(us) ? std::string("starved") : us_text(us); }

Json number_or_null(double value) { return std::isnan(value) ? Json(nullptr) : Json(value); }

// The steps of predict_mapping(): check the options, find the congestors' nodes, build the
// machine, calibrate the congestors, simulate each mapping's placement alone and congested (per
// seed), average over the seeds, write the context.

// Calls the options' progress callback, if any, with one line.
void say(const MappingPredictOptions& options, const std::string& line) {
  if (options.progress) {
    options.progress(line);
  }
}

// The bounds of the numeric options, checked before anything is built.
void check_mapping_options(const MappingPredictOptions& options) {
  if (options.iterations == 0 || options.iterations > kMaxIterations) {
    throw InputError(fmt::format("--iterations {}: give 1 .. {}", options.iterations, kMaxIterations));
  }
  if (options.seeds == 0 || options.seeds > kMaxSeeds) {
    throw InputError(fmt::format("--seeds {}: give 1 .. {}", options.seeds, kMaxSeeds));
  }
  if (options.congestor_bytes < 2 || options.congestor_bytes > kMaxCongestorBytes) {
    throw InputError(
        fmt::format("--congestor-size {} B: give 2 bytes to 1GiB (e.g. 1MiB)", options.congestor_bytes));
  }
  if (options.compute_ps > kMaxMappingComputePs) {
    throw InputError(fmt::format("--compute {} ps: at most 1 s of computation per task and iteration",
                                 options.compute_ps));
  }
  if (options.cores_per_node == 0 || options.cores_per_node > kMaxMappingCoresPerNode) {
    throw InputError(
        fmt::format("--cores-per-node {}: give 1 to {}", options.cores_per_node, kMaxMappingCoresPerNode));
  }
}

// The node of each congestor rank (two per pair, in pair order). Throws InputError for a name
// the topology does not have, a pair of one node, or no pairs.
std::vector<topo::NodeId> congestor_nodes(const MappingPredictOptions& options,
                                          const topo::Topology& topology) {
  std::vector<topo::NodeId> ids;
  for (const auto& [a, b] : options.congestor_pairs) {
    for (const auto& name : {a, b}) {
      const auto id = topology.find_node(name);
      if (!id) {
        throw InputError(
            fmt::format("congestor node '{}' is not a node of {}; the paper's congestors need its machine "
                        "(torus:2x2x8), or give --congestors A:B,... with nodes of this network",
                        name, topology.spec()));
      }
      ids.push_back(*id);
    }
    if (a == b) {
      throw InputError(
          fmt::format("congestor pair {}:{} names one node twice: its traffic would not "
                      "cross the network",
                      a, b));
    }
  }
  if (options.congestor_pairs.empty()) {
    throw InputError("no congestor pairs: give --congestors A:B,... (the paper's are the default)");
  }
  return ids;
}

// The link metrics the Scotch methods of `methods` weight routes with, read from the options'
// source for `allocation`'s nodes (what `gridlock map --compare` computes).
mapping::NodeMetrics fetch_metrics(const MappingPredictOptions& options, const topo::Topology& topology,
                                   const mapping::Allocation& allocation,
                                   const std::vector<mapping::Method>& methods) {
  std::vector<mapping::WeightMetric> wanted;
  for (const auto& m : methods) {
    if (m.kind == mapping::Method::Kind::kScotch) {
      wanted.push_back(m.metric);
    }
  }
  mapping::FetchOptions fetch;
  fetch.sim_rate = "line";
  say(options,
      fmt::format("reading link metrics from {} for {} nodes", options.source, allocation.num_nodes()));
  return mapping::fetch_node_metrics(topology, allocation, options.source, mapping::needs_of(wanted), fetch);
}

// What every run of a prediction shares.
struct MappingSetup {
  std::shared_ptr<const topo::Topology> topology;
  mapping::TaskGraph graph;
  std::vector<topo::NodeId> congestor_node_ids;  // the node of each congestor rank
  std::uint64_t model_bytes = 0;                 // the model's state, reserved for each run
};

// The congestors' pace: one message's time, measured alone, sizes the warm-up and the congested runs.
struct MappingCalibration {
  std::uint64_t message_ps = 1;  // one congestor message
  std::uint64_t warmup_ps = 0;   // the application starts after it
  std::uint64_t messages = 0;    // messages simulated
};

// Runs the congestors alone for kCalibrationMessages messages, beside the application's ranks
// idle on the allocation's first node.
MappingCalibration calibrate(const MappingPredictOptions& options, const MappingSetup& setup,
                             topo::NodeId first_node) {
  MappingCalibration out;
  reserve_mapping_run(options, setup.graph, 0, kCalibrationMessages, setup.model_bytes);
  const MappingSchedule cal = build_schedule(setup.graph, 0, 0, 0, options.congestor_pairs,
                                             options.congestor_bytes, kCalibrationMessages);
  std::vector<topo::NodeId> nodes(setup.graph.num_tasks, first_node);
  nodes.insert(nodes.end(), setup.congestor_node_ids.begin(), setup.congestor_node_ids.end());
  const RunTimes t = run(cal, make_network(setup.topology, nodes, "calibration", options), options);
  out.messages = t.messages;
  out.message_ps = std::max<std::uint64_t>(1, t.congestors_end_ps / kCalibrationMessages);
  say(options, fmt::format("calibration: one {} B congestor message takes {:.1f} us", options.congestor_bytes,
                           sim::us_from_ps(out.message_ps)));
  out.warmup_ps = static_cast<std::uint64_t>(kWarmupMessages * static_cast<double>(out.message_ps));
  return out;
}

// Simulates placements alone and congested. Only the node of each rank matters to the network,
// so placements that differ inside nodes (and the deterministic baselines of every seed) are
// simulated once.
class PlacementRuns {
 public:
  PlacementRuns(const MappingPredictOptions& options, const MappingSetup& setup,
                const MappingCalibration& calibration)
      : options_(options), setup_(setup), calibration_(calibration), messages_(calibration.messages) {}

  // The times of the application on `app_nodes` (node of each task); `method` names the runs.
  PlacementTimes times(const std::vector<topo::NodeId>& app_nodes, const std::string& method) {
    if (const auto it = simulated_.find(app_nodes); it != simulated_.end()) {
      return it->second;
    }
    PlacementTimes p;
    reserve_mapping_run(options_, setup_.graph, options_.iterations, 0, setup_.model_bytes);
    const MappingSchedule alone =
        build_schedule(setup_.graph, options_.iterations, options_.compute_ps, 0, {}, 0, 0);
    const RunTimes ta = run(alone, make_network(setup_.topology, app_nodes, method, options_), options_);
    messages_ += ta.messages;
    p.alone_us = sim::us_from_ps(ta.app_end_ps);
    congested(p, app_nodes, method, ta.app_end_ps);
    simulated_.emplace(app_nodes, p);
    return p;
  }

  // Messages simulated so far, the calibration's included.
  [[nodiscard]] std::uint64_t messages() const noexcept { return messages_; }

 private:
  // Runs the application beside the congestors, which repeat until it ends; an application
  // still running kStarvedFactor times its time alone after the warm-up is starved.
  void congested(PlacementTimes& p, const std::vector<topo::NodeId>& app_nodes, const std::string& method,
                 std::uint64_t alone_ps) {
    const std::uint64_t warmup_ps = calibration_.warmup_ps;
    std::vector<topo::NodeId> all_nodes = app_nodes;
    all_nodes.insert(all_nodes.end(), setup_.congestor_node_ids.begin(), setup_.congestor_node_ids.end());
    const auto network = make_network(setup_.topology, all_nodes, method + " and congestors", options_);
    reserve_mapping_run(options_, setup_.graph, options_.iterations, kCongestorWindow, setup_.model_bytes);
    const MappingSchedule built =
        build_schedule(setup_.graph, options_.iterations, options_.compute_ps, warmup_ps,
                       options_.congestor_pairs, options_.congestor_bytes, kCongestorWindow, true);
    const std::uint64_t limit_ps =
        saturating_add(warmup_ps, saturating_mul(kStarvedFactor, std::max<std::uint64_t>(alone_ps, 1)));
    const RunTimes tc = run(built, network, options_, limit_ps);
    messages_ += tc.messages;
    // Its congested time is unbounded when starved, not a number.
    p.starved = tc.starved;
    p.congested_us = tc.starved ? std::nan("") : sim::us_from_ps(tc.app_end_ps - warmup_ps);
    p.congestor_messages = tc.congestor_messages;
    p.congestors_end_us = sim::us_from_ps(tc.congestors_end_ps - warmup_ps);
    p.attempts = 1;
    say(options_,
        fmt::format("{}: alone {:.2f} us, congested {} ({} congestor messages each{})", method, p.alone_us,
                    tc.starved ? std::string("starved") : fmt::format("{:.2f} us", p.congested_us),
                    p.congestor_messages, tc.starved ? ", the application made no headway" : ""));
  }

  const MappingPredictOptions& options_;
  const MappingSetup& setup_;
  const MappingCalibration& calibration_;
  std::uint64_t messages_ = 0;
  std::map<std::vector<topo::NodeId>, PlacementTimes> simulated_;
};

// Per seed: Scotch's and the random baseline's placements, each simulated; the result's [i]
// collects method i over the seeds (identity is [0] for every seed). The report gets one row
// per method, with the first seed's node of each task.
std::vector<std::vector<PlacementTimes>> run_seeds(const MappingPredictOptions& options,
                                                   const MappingSetup& setup, const mapping::Machine& machine,
                                                   const std::vector<mapping::Method>& methods,
                                                   PlacementRuns& runs, MappingReport& report) {
  const mapping::Allocation& alloc = machine.allocation();
  const std::function<void(const std::string&)> progress = [&options](const std::string& line) {
    say(options, line);
  };
  std::vector<std::vector<PlacementTimes>> per_seed;
  for (std::uint32_t k = 0; k < options.seeds; ++k) {
    mapping::StudyOptions study_options;
    study_options.seed = options.seed + k;
    study_options.scotch.seed = options.seed + k;
    const mapping::Study study = mapping::run_study(setup.graph, machine, methods, study_options, progress);
    per_seed.resize(study.rows.size());
    for (std::size_t i = 0; i < study.rows.size(); ++i) {
      const auto& row = study.rows[i];
      std::vector<topo::NodeId> app_nodes(setup.graph.num_tasks);
      for (std::uint32_t t = 0; t < setup.graph.num_tasks; ++t) {
        app_nodes[t] = alloc.nodes[alloc.node_of_core(row.placement[t])];
      }
      if (k == 0) {
        MappingPrediction p;
        p.method = row.method.name();
        for (std::uint32_t t = 0; t < setup.graph.num_tasks; ++t) {
          p.node_of_task.push_back(alloc.names[alloc.node_of_core(row.placement[t])]);
        }
        report.rows.push_back(std::move(p));
      }
      per_seed[i].push_back(runs.times(app_nodes, row.method.name()));
    }
  }
  return per_seed;
}

// Each row's figures: means over the seeds, the recovered share against identity, the paper's
// figure, and a note for a mapping that starved with some seed.
void summarise(MappingReport& report, const std::vector<std::vector<PlacementTimes>>& per_seed) {
  const PlacementTimes& identity = per_seed.front().front();  // deterministic: the same every seed
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    MappingPrediction& p = report.rows[i];
    const PlacementTimes& first = per_seed[i].front();
    p.congestor_messages = first.congestor_messages;
    p.congestors_end_us = first.congestors_end_us;
    p.attempts = first.attempts;
    double alone_sum = 0;
    double congested_sum = 0;
    double recovered_sum = 0;
    p.recovered_min_pct = std::numeric_limits<double>::infinity();
    p.recovered_max_pct = -std::numeric_limits<double>::infinity();
    for (const auto& t : per_seed[i]) {
      alone_sum += t.alone_us;
      congested_sum += t.congested_us;
      p.starved_seeds += t.starved ? 1 : 0;
      // NaN when identity or this placement starved: no finite time to compare.
      const double r = recovered_pct(identity.alone_us, identity.congested_us, t.congested_us);
      p.recovered_pct_per_seed.push_back(r);
      recovered_sum += r;
      p.recovered_min_pct = std::min(p.recovered_min_pct, r);
      p.recovered_max_pct = std::max(p.recovered_max_pct, r);
    }
    const auto n = static_cast<double>(per_seed[i].size());
    p.starved = p.starved_seeds > 0;
    p.alone_us = alone_sum / n;
    p.congested_us = congested_sum / n;  // NaN if any seed starved
    p.recovered_pct = recovered_sum / n;
    if (std::isnan(p.recovered_pct)) {
      p.recovered_min_pct = p.recovered_max_pct = std::nan("");
    }
    p.slowdown = p.alone_us > 0 && !p.starved ? p.congested_us / p.alone_us : std::nan("");
    p.paper_pct = paper_recovered_pct(p.method);
    if (p.starved) {
      report.notes.push_back(fmt::format(
          "{}: the application ended only after the congestors, however long they ran, with {} of {} seeds: "
          "it was starved beside them (see docs/predict.md)",
          p.method, p.starved_seeds, per_seed[i].size()));
    }
  }
}

// The report's context block: the network, the model, the allocation, the parameters and the
// congestors.
Json mapping_context(const MappingPredictOptions& options, const MappingSetup& setup,
                     const mapping::Allocation& alloc, const std::string& source,
                     const MappingCalibration& calibration, std::uint64_t messages) {
  Json context = base_context("gridlock predict mapping", schemas::kPredictMapping);
  context["simulated"] = true;
  context["network"] = setup.topology->spec();
  context["net_model"] = to_string(options.model);
  if (options.model == ModelKind::kPacket) {
    context["packet"] = net::packet_options_json(options.packet);
  }
  context["nodes"] = alloc.names;
  context["cores_per_node"] = alloc.cores_per_node;
  context["tasks"] = setup.graph.spec;
  context["source"] = source;
  context["seed"] = options.seed;
  context["seeds"] = options.seeds;
  context["seed_source"] = "option";
  Json params = sim::params_json(options.params);
  params["hop_latency_ps"] = options.hop_latency_ps;
  params["iterations"] = options.iterations;
  params["compute_ps"] = options.compute_ps;
  context["parameters"] = params;
  Json pairs = Json::array();
  for (const auto& [a, b] : options.congestor_pairs) {
    pairs.push_back({a, b});
  }
  context["congestors"] = {{"pairs", pairs},
                           {"message_bytes", options.congestor_bytes},
                           {"window", kCongestorWindow},
                           {"message_us", sim::us_from_ps(calibration.message_ps)},
                           {"warmup_us", sim::us_from_ps(calibration.warmup_ps)}};
  context["messages_simulated"] = messages;
  return context;
}

}  // namespace

std::vector<std::string> paper_mapping_nodes() {
  return {"nid00017", "nid00018", "nid00019", "nid00024", "nid00032", "nid00033", "nid00034", "nid00035",
          "nid00039", "nid00041", "nid00043", "nid00044", "nid00045", "nid00049", "nid00050", "nid00051"};
}

std::vector<std::pair<std::string, std::string>> paper_congestor_pairs() {
  // The pairs whose load the oracle's `sim:paper` source simulates: the machine weights and the
  // congestor ranks then describe the same competing traffic.
  return oracle::paper_congestor_pairs();
}

double paper_recovered_pct(std::string_view method) noexcept {
  if (method == "scotch:hops") {
    return 14.2;
  }
  if (method == "scotch:bw") {
    return 43.2;
  }
  if (method == "scotch:stalls") {
    return 48.9;
  }
  if (method == "geometric") {
    return 25.5;
  }
  return std::nan("");
}

double recovered_pct(double identity_alone, double identity_congested, double mapping_congested) noexcept {
  const double lost = identity_congested - identity_alone;
  if (!(lost > 0)) {
    return std::nan("");
  }
  return 100.0 * (identity_congested - mapping_congested) / lost;
}

MappingPredictOptions::MappingPredictOptions() : params(default_predict_params()) {}

MappingSchedule build_mapping_schedule(std::string_view tasks, std::uint32_t iterations,
                                       std::uint64_t compute_ps, std::uint64_t start_delay_ps,
                                       const std::vector<std::pair<std::string, std::string>>& pairs,
                                       std::uint64_t congestor_bytes, std::uint64_t congestor_messages) {
  if (iterations == 0 || iterations > kMaxIterations) {
    throw InputError(fmt::format("--iterations {}: give 1 .. {}", iterations, kMaxIterations));
  }
  return build_schedule(mapping::parse_task_graph(tasks), iterations, compute_ps, start_delay_ps, pairs,
                        congestor_bytes, congestor_messages);
}

MappingReport predict_mapping(const MappingPredictOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // Every input is checked before the first simulation.
  check_mapping_options(options);
  const std::shared_ptr<const topo::Topology> topology = topo::make_topology(options.network_spec);
  mapping::Allocation allocation = mapping::make_allocation(*topology, options.nodes, options.cores_per_node);
  mapping::TaskGraph graph = mapping::parse_task_graph(options.tasks);
  if (graph.num_tasks > allocation.num_cores()) {
    throw InputError(fmt::format(
        "{} tasks ({}) do not fit on {} cores ({} nodes x {} cores per node): give more --nodes or a larger "
        "--cores-per-node",
        graph.num_tasks, graph.spec, allocation.num_cores(), allocation.num_nodes(),
        allocation.cores_per_node));
  }
  MappingSetup setup{topology, std::move(graph), congestor_nodes(options, *topology)};
  const std::vector<mapping::Method> methods = methods_of(options, nullptr);
  {
    // Packet options the model refuses, checked on the network the runs use.
    const auto probe = make_network(topology, setup.congestor_node_ids, "congestors", options);
    if (options.model == ModelKind::kPacket) {
      validate(options.packet, *probe);
    }
  }

  // Machine weights and placements: what `gridlock map --compare` computes.
  mapping::NodeMetrics metrics = fetch_metrics(options, *topology, allocation, methods);
  const std::string source = metrics.source;
  const mapping::Machine machine(*topology, std::move(allocation), std::move(metrics));
  (void)methods_of(options, &machine);
  setup.model_bytes = estimate_model_bytes(
      options.model, topology->links().size(),
      saturating_add(setup.graph.num_tasks, 2 * options.congestor_pairs.size()), options.packet);
  const MappingCalibration calibration = calibrate(options, setup, machine.allocation().nodes[0]);
  PlacementRuns runs(options, setup, calibration);

  MappingReport report;
  const std::vector<std::vector<PlacementTimes>> per_seed =
      run_seeds(options, setup, machine, methods, runs, report);
  summarise(report, per_seed);
  report.seeds = options.seeds;
  report.congestor_summary = fmt::format("{} pairs exchanging {} B messages both ways",
                                         options.congestor_pairs.size(), options.congestor_bytes);
  report.context =
      mapping_context(options, setup, machine.allocation(), source, calibration, runs.messages());
  report.context["run_s"] = seconds_since(wall_start);
  return report;
}

std::string mapping_table(const MappingReport& report) {
  std::vector<std::string> header{"mapping", "alone (us)", "congested (us)", "slowdown", "recovered (%)"};
  const bool ranges = report.seeds > 1;
  if (ranges) {
    header.push_back(fmt::format("range over {} seeds", report.seeds));
  }
  header.emplace_back("paper (%)");
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : report.rows) {
    std::vector<std::string> cells{
        p.method, us_text(p.alone_us), us_or_starved(p.congested_us),
        std::isnan(p.slowdown) ? std::string("-") : fmt::format("{:.3f}", p.slowdown),
        &p == &report.rows.front() ? std::string("-") : pct_text(p.recovered_pct)};
    if (ranges) {
      cells.push_back(
          &p == &report.rows.front() || std::isnan(p.recovered_pct)
              ? std::string("-")
              : fmt::format("{} .. {}", pct_text(p.recovered_min_pct), pct_text(p.recovered_max_pct)));
    }
    cells.push_back(pct_text(p.paper_pct));
    rows.push_back(std::move(cells));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& r : rows) {
      width[c] = std::max(width[c], r[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      // The mapping name left, numbers right, as the other gridlock tables.
      out += c == 0 ? fmt::format(" {:<{}} |", cells[c], width[c])
                    : fmt::format(" {:>{}} |", cells[c], width[c]);
    }
    return out + "\n";
  };
  std::string out = line(header);
  out += "|";
  for (std::size_t c = 0; c < header.size(); ++c) {
    out += c == 0 ? fmt::format(" {:-<{}} |", "", width[c]) : fmt::format(" {:->{}}: |", "", width[c] - 1);
  }
  out += "\n";
  for (const auto& r : rows) {
    out += line(r);
  }
  return out;
}

Json mapping_report_body(const MappingReport& report) {
  Json rows = Json::array();
  for (const auto& p : report.rows) {
    Json per_seed = Json::array();
    for (const double r : p.recovered_pct_per_seed) {
      per_seed.push_back(number_or_null(r));
    }
    rows.push_back({{"method", p.method},
                    {"alone_us", p.alone_us},
                    {"congested_us", number_or_null(p.congested_us)},
                    {"starved", p.starved},
                    {"slowdown", number_or_null(p.slowdown)},
                    {"recovered_pct", number_or_null(p.recovered_pct)},
                    {"recovered_min_pct", number_or_null(p.recovered_min_pct)},
                    {"recovered_max_pct", number_or_null(p.recovered_max_pct)},
                    {"recovered_pct_per_seed", per_seed},
                    {"starved_seeds", p.starved_seeds},
                    {"paper_recovered_pct", number_or_null(p.paper_pct)},
                    {"congestor_messages", p.congestor_messages},
                    {"congestors_end_us", p.congestors_end_us},
                    {"attempts", p.attempts},
                    {"node_of_task", p.node_of_task}});
  }
  return Json{{"rows", rows},
              {"seeds", report.seeds},
              {"congestors", report.congestor_summary},
              {"notes", report.notes}};
}

}  // namespace gridlock::predict
