#pragma once
/// @file
/// `gridlock predict gpcnet` (docs/predict.md): GPCNeT's method (SC'19, §3) on a simulated
/// network. The job's nodes (every node of the topology, or an allocation of them) are shuffled with the seed
/// and split 20% canary / 80% congestor as gridlock-bench splits them (gpcnet::RoleLayout); LogGOPS schedules
/// built in code run the canaries (random-ring latency, random-ring BW+Sync, multiple allreduce) alone and
/// beside the four congestors (all-to-all, P2P incast, RMA incast, RMA broadcast) through a
/// gridlock::net model; each canary iteration is timed from the engine's op-completion callback.
/// The result is a gpcnet::Report: the same tables and JSON body as `gridlock-bench load`.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/roles.hpp"
#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/net/system.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::predict {

/// The three canary tests (paper §3.1).
enum class CanaryKind : std::uint8_t {
  kLatency,    ///< Random-ring 8 B exchange with both neighbours; a sample is half the iteration.
  kBandwidth,  ///< Random-ring BW+Sync: 8 x 128 KiB to and from both neighbours, then a barrier.
  kAllreduce,  ///< Multiple Allreduce: 8 B recursive-doubling allreduce over each canary slice.
};

/// All canary kinds in table order.
inline constexpr CanaryKind kCanaryKinds[] = {CanaryKind::kLatency, CanaryKind::kBandwidth,
                                              CanaryKind::kAllreduce};

/// Most timed iterations per ring block (--iterations): GPCNeT runs 50 to 200; a million is a
/// long study already, and keeps rings x (warm-up + iterations) far inside 64 bits.
inline constexpr std::uint32_t kMaxGpcnetIterations = 1'000'000;
/// Most random rings per ring test (--rings; GPCNeT: 30).
inline constexpr std::uint32_t kMaxGpcnetRings = 10'000;
/// Most ranks per node (--ranks-per-node): beyond any node's cores.
inline constexpr std::uint32_t kMaxGpcnetRanksPerNode = 4096;
/// Bounds of --precision, in percent: below 0.1% a canary would need millions of iterations; a
/// half-width of 50% of the estimate says little.
inline constexpr double kMinGpcnetPrecisionPercent = 0.1;
/// Upper bound of --precision, in percent (see kMinGpcnetPrecisionPercent).
inline constexpr double kMaxGpcnetPrecisionPercent = 50;
/// With --precision: the rule is evaluated only once every canary rank has this many timed
/// iterations (fewer give no interval worth the name), and --max-iterations is at least this.
inline constexpr std::uint64_t kGpcnetPrecisionMinIterations = 10;
/// With --precision and no --max-iterations: the cap is this many times the fixed count.
inline constexpr std::uint64_t kGpcnetPrecisionCapFactor = 20;
/// Most timed iterations per canary rank with --precision (--max-iterations): far beyond any
/// memory budget at 100 ops per iteration, and inside 32 bits of markers.
inline constexpr std::uint64_t kMaxGpcnetMaxIterations = 100'000'000;
/// Bytes one scheduled operation of a prediction's run costs: the schedule builder's op, its edges
/// and peer offset, the engine's per-op state and the model's messages. Calibrated with
/// /usr/bin/time -v on `predict gpcnet --network torus:8x8x4 --iterations 1 --rings 1`: 72 MB at
/// the peak, the loaded BW+Sync run of about 570,000 operations over a 13 MB baseline (about
/// 100 B per op), rounded up.
inline constexpr std::uint64_t kGpcnetBytesPerOp = 128;

/// What `gridlock predict gpcnet` is asked for.
struct GpcnetOptions {
  std::string network_spec;  ///< Topology spec (`dragonfly:g=9,a=4,p=2,h=2`).
  /// The job's nodes (topology node ids, distinct; mapping::allocate_nodes() takes them as a job
  /// allocation would): the roles run on these only, the rest of the network stays idle. Empty:
  /// every node of the topology.
  std::vector<std::uint32_t> nodes;
  /// How `nodes` were chosen, for the report's context (`compact`, `random (seed 7)`, ...).
  std::string allocation = "every node";
  net::ModelKind model = net::ModelKind::kFlow;  ///< Network model.
  std::uint64_t seed = 1;                        ///< Node shuffle and random rings.
  std::uint32_t ranks_per_node = 1;              ///< GPCNeT's PPort (one port per node).
  std::uint32_t iterations = 0;                  ///< Timed iterations per ring (0: per-kernel default).
  std::uint32_t rings = 4;                       ///< Random rings per ring test (paper nR = 30).
  /// Stopping rule (`--precision`, in percent; 0: off, the fixed counts of `iterations` and
  /// `rings`): each canary, isolated and loaded, runs until the 95% confidence intervals of its
  /// mean and of its 99% tail are each within +-precision_percent% of their estimates, or until
  /// max_iterations (docs/predict.md, "Stopping rules").
  double precision_percent = 0;
  /// With precision_percent: the most timed iterations per canary rank (`--max-iterations`; 0:
  /// kGpcnetPrecisionCapFactor times the fixed count, rings x iterations).
  std::uint64_t max_iterations = 0;
  std::uint64_t hop_latency_ps = 100'000;                     ///< Router-to-router hop latency.
  sim::LogGOPSParams params = net::default_predict_params();  ///< Host and NIC parameters.
  double canary_fraction = 0.2;                               ///< Canary share of the nodes (GPCNeT's 20%).
  /// Packet model parameters (routing, congestion control; ignored by the flow model); the
  /// Valiant and UGAL choices use `seed`.
  net::PacketOptions packet;
  /// Who answers the RMA congestors' puts and gets at their root (`--rma-target`): its NIC (the
  /// default, as RDMA hardware does: the answers cost no CPU of the root's rank, and the root's
  /// link is what limits an incast) or its CPU (each answer pays o: the root's CPU limits the
  /// incast to about message size / 2o, 6.8 GB/s at 4 KiB and o = 0.3 us).
  bool rma_by_nic = true;
  /// Called with one line per simulation run (empty: quiet).
  std::function<void(std::string_view)> progress;
  /// Memory budget of one simulation run in bytes (0: default_max_memory_bytes()); a run whose
  /// estimate is larger is refused before it is built (`--max-memory`).
  std::uint64_t max_memory_bytes = 0;
};

/// Throws InputError naming the option unless --iterations, --rings, --ranks-per-node,
/// --precision and --max-iterations of `options` are within their bounds (kMaxGpcnetIterations,
/// kMaxGpcnetRings, kMaxGpcnetRanksPerNode, kMinGpcnetPrecisionPercent..kMaxGpcnetPrecisionPercent,
/// kGpcnetPrecisionMinIterations..kMaxGpcnetMaxIterations and only with --precision).
void check_gpcnet_options(const GpcnetOptions& options);

/// Parses a --precision value: a percentage, `5` or `5%` (check_gpcnet_options() bounds it).
/// Throws InputError naming the option and the value otherwise.
[[nodiscard]] double parse_gpcnet_precision(const std::string& text);

/// Loop counts of one canary kind: `rings` blocks of `warmup` untimed and `iterations` timed
/// iterations (the allreduce has one block).
struct CanaryLoop {
  std::uint32_t rings = 1;       ///< Blocks (random rings).
  std::uint32_t warmup = 1;      ///< Untimed iterations at the start of each block.
  std::uint32_t iterations = 1;  ///< Timed iterations per block.
};

/// The loop counts `options` give `kind` (defaults: latency 50, BW+Sync 8, allreduce 200 timed
/// iterations per block; --iterations replaces them all). With --precision: blocks of the same
/// length, as many as precision_cap() needs, block b on random ring b (the run stops when the
/// rule is met).
[[nodiscard]] CanaryLoop canary_loop(const GpcnetOptions& options, CanaryKind kind) noexcept;

/// With --precision: the most timed iterations per canary rank of `kind` (--max-iterations, or
/// kGpcnetPrecisionCapFactor x the fixed count, at most kMaxGpcnetMaxIterations); 0 without.
[[nodiscard]] std::uint64_t precision_cap(const GpcnetOptions& options, CanaryKind kind) noexcept;

/// Stable key, table title and units of a canary kind (as gridlock-bench names them).
struct CanaryInfo {
  std::string key;                 ///< `rr_two_sided_lat`, `rr_two_sided_bw_sync`, `multiple_allreduce`.
  std::string title;               ///< `RR Two-sided Lat (8 B)`, ...
  std::string units;               ///< `usec` or `MiB/s/rank`.
  Better better = Better::kLower;  ///< Direction in which the metric is good.
};

/// Key, title and units of `kind`.
[[nodiscard]] CanaryInfo canary_info(CanaryKind kind);

/// The four congestors, in group order after the canaries (paper §3.2).
[[nodiscard]] std::vector<gpcnet::CongestorType> gpcnet_congestors();

/// Ranks, nodes and roles of a prediction: rank r runs on job node r / ranks_per_node (the job's
/// nodes in order: GpcnetOptions::nodes, or the topology's); roles are per node. Slice j of a group holds the
/// j-th rank of each of its nodes in position order, so that no slice communicates on-node (paper §3.3 step
/// 2).
struct GpcnetLayout {
  std::uint32_t nodes = 0;           ///< Nodes of the job.
  std::uint32_t ranks_per_node = 1;  ///< Ranks on each node.
  gpcnet::RoleLayout roles;          ///< Canary and congestor groups (seeded shuffle).
  /// Ranks of slice j of group g: slices[g][j] in position order.
  std::vector<std::vector<std::vector<std::uint32_t>>> slices;
  /// Total ranks.
  [[nodiscard]] std::uint32_t ranks() const noexcept { return nodes * ranks_per_node; }
};

/// The layout of `nodes` nodes. Throws InputError (naming the smallest network that fits) when a
/// group would have fewer than 2 nodes.
[[nodiscard]] GpcnetLayout make_gpcnet_layout(std::uint32_t nodes, std::uint32_t ranks_per_node,
                                              std::uint64_t seed, double canary_fraction);

/// What a canary schedule is: the canary kind, and the congestors beside it (0 iterations: none).
struct ScheduleShape {
  CanaryKind kind = CanaryKind::kLatency;  ///< Canary test.
  CanaryLoop loop;                         ///< Its loop counts.
  std::uint64_t ring_seed = 0;             ///< Base seed of the random rings.
  bool canaries = true;                    ///< false: congestors alone (calibration runs).
  /// Iterations of each congestor group, in gpcnet_congestors() order (empty: canaries alone).
  std::vector<std::uint64_t> congestor_iterations;
  /// true: each congestor with a non-zero count is built as one iteration that repeats until the
  /// canaries finish (sim::ScheduleBuilder::set_repeating), whatever its count.
  bool congestors_repeat = false;
  sim::SimTime canary_delay;  ///< Calc before the canaries start (the congestors' warm-up).
  bool rma_by_nic = true;     ///< GpcnetOptions::rma_by_nic.
};

/// CPUs of an RMA root that stand for its NIC when GpcnetOptions::rma_by_nic: the answers to its
/// origins go round-robin to CPUs 1..kRmaNicAgents of the root's host (LogGOPS has no receive
/// without an overhead), so that they overlap as a NIC's RDMA engines do and the root's link, not
/// its CPU, limits the incast; the root's own CPU 0 stays free.
inline constexpr std::uint32_t kRmaNicAgents = 8;

/// A built schedule and where its canary iterations end.
struct GpcnetSchedule {
  sim::Schedule schedule;  ///< The ranks' programs.
  /// Per canary rank (index into canary_ranks), the op index of each iteration's end marker (a
  /// zero calc after the iteration's last operations), warm-up iterations included, block after
  /// block.
  std::vector<std::vector<std::uint32_t>> markers;
  std::vector<std::uint32_t> canary_ranks;     ///< Ranks that run the canary, slice after slice.
  std::vector<std::uint32_t> congestor_ranks;  ///< Ranks that run a congestor (if any).
};

/// An upper estimate of the operations of the schedule of `shape` on `layout` (saturating; what
/// build_gpcnet_schedule would build, without building it).
[[nodiscard]] std::uint64_t estimate_gpcnet_ops(const GpcnetLayout& layout,
                                                const ScheduleShape& shape) noexcept;

/// Builds the schedule of `shape` on `layout` (see docs/predict.md for each kernel's operations).
[[nodiscard]] GpcnetSchedule build_gpcnet_schedule(const GpcnetLayout& layout, const ScheduleShape& shape);

/// Runs the whole prediction: isolated and loaded phase for each canary kind. Throws InputError
/// for an unknown network spec, a job too small for the roles, job nodes outside the topology or
/// given twice, or an unavailable model.
[[nodiscard]] gpcnet::Report predict_gpcnet(const GpcnetOptions& options);

}  // namespace gridlock::predict
