#pragma once
/// @file
/// `gridlock predict traffic` (docs/predict.md, "Synthetic traffic"): open-loop synthetic traffic
/// on a network model, as network simulators (BookSim) measure latency against offered load.
///
/// One node per endpoint. Time is counted in packet-times: T = packet_bytes / the injection link's
/// rate. Each sending node draws, once per packet-time, whether it generates a packet (a Bernoulli
/// process of rate `load`, each node at its own fixed random phase within the packet-time so that
/// the nodes do not inject in lock-step); a packet waits in its node's unbounded source queue and
/// is handed to the model as a message of packet_bytes + 1 bytes with L = o = g = G = 0: the
/// model's first byte travels with L (0 here), so exactly one packet of packet_bytes crosses the
/// network, and the NIC adds nothing, so the node's injection link is the injection bandwidth and
/// `load` is exactly the offered fraction of it. Latency runs from a packet's generation to the
/// arrival of its tail, source queueing included.
///
/// Phases: a warm-up, then a measurement window in batches; packets generated in the window are
/// tracked until delivered while generation goes on (the network stays loaded), up to a drain cap.
/// See run_traffic() for the convergence rule and saturation.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/rng.hpp"
#include "gridlock/net/model.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::predict {

/// The traffic patterns (see parse_pattern()).
enum class PatternKind : std::uint8_t {
  kUniform,    ///< Each packet to a uniformly random other node.
  kRandperm,   ///< A fixed random permutation without fixed points (seeded).
  kShift,      ///< Node i to node (i + K) mod N.
  kWorstCase,  ///< Topology-specific adversarial permutation (see Destinations).
  kHotspot,    ///< Each packet to one of N hot nodes.
  kIncast,     ///< N senders to one receiver (node 0).
};

/// A parsed `--pattern`.
struct TrafficPattern {
  PatternKind kind = PatternKind::kUniform;  ///< Which pattern.
  std::int64_t shift = 0;                    ///< shift:K's K (any sign; reduced mod N).
  std::uint32_t count = 0;                   ///< hotspot:N's and incast:N's N.
};

/// Parses `uniform`, `randperm`, `shift:K`, `worst-case`, `hotspot:N` or `incast:N`. Throws
/// InputError naming `what` and the choices for anything else.
[[nodiscard]] TrafficPattern parse_pattern(std::string_view text, std::string_view what = "--pattern");
/// The pattern as parse_pattern() reads it (`shift:3`).
[[nodiscard]] std::string to_string(const TrafficPattern& pattern);

/// Where each node's packets go on one topology: the pattern made concrete.
///
/// - uniform: a uniformly random node other than the sender, per packet.
/// - randperm: a random permutation of the nodes (seed) whose fixed points are swapped with the
///   next position, so no node sends to itself.
/// - shift:K: node i to (i + K) mod N; K mod N must not be 0.
/// - worst-case, dragonfly: node j of group i to node j of group i+1 (mod g): with one global link
///   between two groups, the a·p nodes of a group share it (saturation 1/(a·p) under minimal
///   routing). Torus: tornado in every dimension of 3 or more routers, the router at coordinate x
///   to x + ceil(k/2) - 1 (mod k), node j of a router to node j of the other. Fat tree (two
///   levels, m1 nodes per leaf, w2 up ports per leaf): node j of leaf L to leaf (L + 1 + j) mod
///   m2, node (L mod w2) + w2·((L div w2) mod (m1 div w2)) of it: every destination of leaf L has
///   the D-mod-k key L mod w2, so all m1 nodes of the leaf climb through one up link to one spine
///   (saturation 1/m1 of the injection bandwidth when every link runs at the injection rate). A
///   destination equal to the sender becomes the node m1 further on.
/// - hotspot:N: the N hot nodes are i·(nodes div N) for i < N; each packet goes to a hot node drawn
///   uniformly among the hot nodes other than the sender (a lone hot node sends uniformly).
/// - incast:N: node 0 receives; nodes 1 + floor(i·(nodes-1)/N), i < N, send; the others are idle.
class Destinations {
 public:
  /// The pattern on `topology` with `seed` (randperm). Throws InputError when the pattern does not
  /// fit it: N out of range, a shift that maps nodes to themselves, worst-case on a topology
  /// without one (a fat tree of other than two levels, a torus without a dimension of 3).
  Destinations(const TrafficPattern& pattern, const topo::Topology& topology, std::uint64_t seed);

  /// Nodes of the topology.
  [[nodiscard]] std::uint32_t nodes() const noexcept { return nodes_; }
  /// Whether `node` generates packets (incast: the senders only).
  [[nodiscard]] bool sends(std::uint32_t node) const noexcept;
  /// Nodes that generate packets.
  [[nodiscard]] std::uint32_t senders() const noexcept { return senders_; }
  /// The destination of `node`'s next packet (draws from `rng` for uniform and hotspot only).
  [[nodiscard]] std::uint32_t destination(std::uint32_t node, Rng& rng) const;
  /// One line saying what the pattern does here (`tornado: +3 in Z`).
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

 private:
  PatternKind kind_;
  std::uint32_t nodes_ = 0;
  std::uint32_t senders_ = 0;
  std::vector<std::uint32_t> fixed_;  // permutation patterns: destination per node
  std::vector<std::uint32_t> hot_;    // hotspot: hot nodes; incast: senders
  std::vector<std::uint8_t> sends_;
  std::string description_;
};

/// What `gridlock predict traffic` is asked for.
struct TrafficOptions {
  std::string network_spec;                        ///< Topology spec.
  net::ModelKind model = net::ModelKind::kPacket;  ///< Network model.
  TrafficPattern pattern;                          ///< Traffic pattern.
  std::vector<double> loads{0.5};            ///< Offered loads, fractions of injection bandwidth (0, 1].
  std::uint64_t hop_latency_ps = 100'000;    ///< Router-to-router hop latency.
  net::PacketOptions packet;                 ///< Packet size (also the flow model's), buffers, VCs, routing.
  std::uint64_t seed = 1;                    ///< Generation, pattern and routing seed.
  std::uint32_t warmup_packet_times = 1000;  ///< Warm-up before the measurement.
  std::uint32_t batch_packet_times = 250;    ///< Length of one measurement batch.
  std::uint32_t min_batches = 4;             ///< Batches before convergence is checked.
  std::uint32_t max_batches = 40;            ///< Batches at most (then the point is unconverged).
  /// Simulated time at most per load (0: no cap beyond the batches'), in ps.
  std::uint64_t max_time_ps = 0;
  /// Called with one line per load (empty: quiet).
  std::function<void(std::string_view)> progress;
};

/// Latency bound of the saturation rule: a point whose average latency exceeds this multiple of
/// the zero-load latency is saturated.
inline constexpr double kSaturationLatencyFactor = 10.0;
/// Throughput bound of the saturation rule: accepted below this share of offered is saturated.
inline constexpr double kSaturationAcceptedShare = 0.95;
/// Packets of one node the model holds at once (in its NIC queue or in the network); more wait in
/// the generator's source queue. Only deep in saturation does a node have so many in flight.
inline constexpr std::uint32_t kTrafficWindowPackets = 128;

/// One offered load's measurement.
struct TrafficPoint {
  double offered = 0;           ///< Offered load (fraction of injection bandwidth per sender).
  double accepted = 0;          ///< Packets delivered per sender per packet-time in the window.
  double latency_avg_ns = 0;    ///< Average latency of the window's delivered packets.
  double latency_p99_ns = 0;    ///< Their 99th percentile.
  double hops_avg = 0;          ///< Router-to-router link crossings per delivered packet.
  std::uint64_t packets = 0;    ///< Packets generated in the window.
  std::uint64_t delivered = 0;  ///< Of those, delivered before the drain cap.
  std::uint32_t batches = 0;    ///< Measurement batches.
  bool converged = false;       ///< The convergence rule was met (else a cap ended the window).
  bool saturated = false;       ///< The saturation rule holds (see run_traffic()).
  double run_s = 0;             ///< Wall time.
};

/// A latency-load curve.
struct TrafficReport {
  std::string network;               ///< Canonical topology spec.
  std::string model;                 ///< describe() of the model.
  std::string pattern;               ///< The pattern as given.
  std::string pattern_description;   ///< Destinations::description().
  std::uint32_t nodes = 0;           ///< Nodes of the topology.
  std::uint32_t senders = 0;         ///< Nodes that generate packets.
  double injection_bytes_per_s = 0;  ///< Injection link rate (node 0's).
  std::uint64_t packet_time_ps = 0;  ///< T: one packet on the injection link.
  double zero_load_latency_ns = 0;   ///< T + average minimal hops x hop latency (no queueing).
  double zero_load_hops = 0;         ///< Average router-to-router hops of the pattern's minimal paths.
  std::vector<TrafficPoint> points;  ///< Per load, in the order given.
  double saturation_throughput = 0;  ///< Accepted at the highest offered load.
  double saturation_offered = 0;     ///< That highest offered load.
  double first_saturated_load = -1;  ///< Lowest offered load whose point is saturated (-1: none).
};

/// Parses `--load`: one value (`0.5`), a list (`0.1,0.3,0.5`) or a range `A:B:STEP` (A, A+STEP,
/// ... up to B within rounding). Every load in (0, 1]; at most 200 loads. Throws InputError naming
/// `what`.
[[nodiscard]] std::vector<double> parse_loads(std::string_view text, std::string_view what = "--load");

/// Bytes run_traffic() may hold at most for `options` on a topology of `nodes` nodes and `links`
/// links (source queues at their cap, the model's window of packets, the packet model's buffer
/// slots), for a MemoryBudget.
[[nodiscard]] std::uint64_t traffic_memory_estimate(const TrafficOptions& options, std::uint64_t nodes,
                                                    std::uint64_t links);

/// The latency-load table: `| Offered | Accepted | Lat avg | Lat 99% | Hops | Units | State |`, one
/// row per point, then the saturation lines.
[[nodiscard]] std::string traffic_table(const TrafficReport& report);

/// Runs every load. Convergence: batches of batch_packet_times; after at least min_batches, the
/// window ends when the last three batches' accepted throughput, and the average latency of the
/// last three batches whose packets are all delivered, each agree within 5% of their mean; or at
/// max_batches or max_time_ps. The window's packets are then tracked up to the window's length
/// again (the drain cap) while generation goes on. A point is saturated when accepted <
/// kSaturationAcceptedShare x offered, its average latency exceeds kSaturationLatencyFactor x the
/// zero-load latency, or packets of its window were still undelivered at the drain cap. Throws
/// InputError for an unknown network, a pattern that does not fit it, or refused packet options.
[[nodiscard]] TrafficReport run_traffic(const TrafficOptions& options);

}  // namespace gridlock::predict
