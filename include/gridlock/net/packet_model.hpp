#pragma once
/// @file
/// The packet model (`gridlock sim --net-model packet`; docs/network-models.md, "Packet model"):
/// messages are cut into packets that cross input-queued routers with finite buffers per input
/// port and virtual channel, under credit-based (lossless) flow control: a packet moves on only
/// when the next buffer of its virtual channel has a free slot. An incast's backlog therefore
/// fills the buffers behind it and slows traffic that merely shares a link with it (tree
/// saturation), which the flow model cannot show.
///
/// Timing, in integer picoseconds (virtual cut-through): a packet of b bytes may start on a link
/// as soon as its head reached the router and the link and a downstream slot are free; the link is
/// busy for ceil(b / capacity) (the flits of packets fed by slower links interleave), the tail
/// leaves at max(start + ceil(b / capacity), the tail's arrival), and head and tail reach the next
/// router `hop_latency_ps` later (router-to-router links only); the slot frees when the tail has
/// left it. Each
/// rank's NIC sends at most one byte per G and receives at most one byte per G. As in LogGOPS the
/// first byte travels with L: the packets carry s-1 bytes, and the message is delivered L after
/// the tail of its last packet has left the receiving NIC. Alone on a path whose links are at
/// least as fast as 1/G that is exactly t + L + (s-1)·G + hops·hop_latency, the flow model's and
/// LogGOPS's time (with hop_latency 0): see docs/network-models.md for the derivation.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"

namespace gridlock::net {

/// How the packet model routes a message (chosen when its first packet leaves; UGAL chooses per
/// packet between the message's minimal path and one Valiant path).
enum class Routing : std::uint8_t {
  kMinimal,  ///< The topology's route (torus DOR, dragonfly minimal, fat tree up/down).
  kValiant,  ///< Dragonfly only: minimal to a random intermediate group or router, then minimal.
  kUgal,     ///< Dragonfly only: per packet, minimal or the message's Valiant path, by queue x hops.
};

/// How UGAL weighs the minimal path against the Valiant path at the packet's source router. The
/// default is the reference simulator's (kBookSim); the system presets of Aries and Slingshot
/// machines name kHops, their routers' in-group detours (docs/predict.md, "Which UGAL rule").
enum class UgalRule : std::uint8_t {
  kHops,     ///< Queue x hops of each path's first link; Valiant only when strictly cheaper. Its
             ///< Valiant path turns at a random router of an intermediate group (a router of the
             ///< source's group on 2 groups).
  kBookSim,  ///< BookSim2's dragonflynew whole: minimal while its first link's downstream buffers
             ///< hold at most 2 x the Valiant one's + ugal_threshold_bytes (hops not counted);
             ///< always minimal for packets that stay in their group; the Valiant path goes to a
             ///< random router of the machine (minimal when it is in the source's or the
             ///< destination's group); channel = phase (0 to that router, 1 on to a global link,
             ///< 2 from it on and inside a group). Needs 3 virtual channels.
};

/// `minimal`, `valiant` or `ugal`.
[[nodiscard]] const char* to_string(Routing routing) noexcept;
/// Parses a --routing value; throws InputError naming `what` and the choices otherwise.
[[nodiscard]] Routing parse_routing(std::string_view text, std::string_view what = "--routing");

/// `hops` or `booksim`.
[[nodiscard]] const char* to_string(UgalRule rule) noexcept;
/// Parses a --ugal-rule value; throws InputError naming `what` and the choices otherwise.
[[nodiscard]] UgalRule parse_ugal_rule(std::string_view text, std::string_view what = "--ugal-rule");

/// Parameters of the packet model (docs/network-models.md, "Packet model").
struct PacketOptions {
  /// Most payload bytes per packet (2 KiB: between Aries' 64 B flits and InfiniBand's 4 KiB MTU,
  /// few enough packets per MB for speed, small enough for fine-grained sharing).
  std::uint32_t packet_bytes = 2048;
  /// Buffer per input port per virtual channel, in bytes; holds buffer_bytes / packet_bytes packets.
  std::uint32_t buffer_bytes = 32768;
  /// Virtual channels per link, 1..8; at least what the routing needs to be deadlock-free
  /// (required_vcs()). 3 suits every routing of every topology.
  std::uint32_t vcs = 3;
  /// Routing (valiant and ugal on a dragonfly only).
  Routing routing = Routing::kMinimal;
  /// Endpoint congestion control: a sender halves its rate (down to 1/1024 of its NIC rate) when
  /// one of its packets crossed its receiver's ejection link while two or more other inputs
  /// waited for it, or entered its receiver's buffer at least half full: an ECN-like mark of
  /// endpoint congestion, seen when the packet is delivered; at most once per
  /// `kCongestionHoldPs`; it regains 1/64 of the NIC rate per `kCongestionHoldPs`
  /// (docs/network-models.md).
  bool congestion_control = false;
  /// Seed of the Valiant and UGAL intermediate-group choice (printed with the results).
  std::uint64_t seed = 1;
  /// Latency of each injection and ejection link (NIC to router, router to NIC), in ps: the
  /// terminal cables and the pipelines of the first and last router, which the per-hop latency
  /// leaves out. 0 (the default): none.
  std::uint64_t terminal_latency_ps = 0;
  /// Latency a dragonfly global link adds to the per-hop latency, in ps: its longer (optical)
  /// cable, e.g. tens of metres between cabinets against a backplane inside a group. 0 (the
  /// default): global and local hops take the same.
  std::uint64_t global_extra_latency_ps = 0;
  /// Latency of a credit's way back over a link, in ps: a slot a packet's tail left is usable
  /// upstream that much later (credit-based flow control on a real link; BookSim's credit
  /// channels, which take the data channel's latency but not the router's pipeline); dragonfly
  /// global links add global_extra_latency_ps, their cable. With few buffer slots per round trip
  /// a link cannot stay busy. 0 (the default): at once.
  std::uint64_t credit_latency_ps = 0;
  /// Time an output virtual channel of a router stays unusable after a packet's tail left on it,
  /// in ps: the next packet's VC and switch allocation, which a router without speculation starts
  /// only then (BookSim's iq router: vc_alloc_delay + sw_alloc_delay = 2 cycles). Other channels of
  /// the link may send meanwhile. Injection links (NIC to router) take none. 0 (the default): none.
  std::uint64_t vc_turnaround_ps = 0;
  /// UGAL's comparison (routing ugal only; other routings ignore it): BookSim2's, the reference's,
  /// unless a system preset or --ugal-rule names gridlock's kHops.
  UgalRule ugal_rule = UgalRule::kBookSim;
  /// kBookSim's bias towards the minimal path, in bytes of buffer contents (BookSim: 30 flits;
  /// bench/compare_booksim.sh gives 480 B, 30 of its 16-byte flits).
  std::uint64_t ugal_threshold_bytes = 0;
};

/// Time between two rate cuts of one sender, and per additive increase step (2 us).
inline constexpr std::uint64_t kCongestionHoldPs = 2'000'000;

/// Virtual channels `routing` needs on `network` to be deadlock-free: a dragonfly 2 (minimal:
/// local, global, local; valiant and ugal on 2 groups: a turn at an intermediate router of a
/// group, or local, global, local through another gateway) or 3 (valiant, ugal on 3 or more
/// groups: a second global hop); a torus with a dimension of
/// 4 or more routers 2 (dateline: one channel before and one after the wrap-around link); a fat
/// tree (up/down) and anything else 1.
[[nodiscard]] std::uint32_t required_vcs(Routing routing, const Network& network);

/// Largest packet (--packet-size): 1 MiB, far above any network's MTU (InfiniBand 4 KiB).
inline constexpr std::uint32_t kMaxPacketBytes = 1024 * 1024;
/// Most packets one buffer holds (--buffer / --packet-size): each slot costs 8 bytes per virtual
/// channel of every link, so a 1-byte packet in a 4 GiB buffer would cost gigabytes per link.
inline constexpr std::uint32_t kMaxBufferPackets = 65536;
/// Largest buffer per input port and virtual channel (bytes; `--buffer`, a preset's `buffer`): a
/// router's whole buffer memory is a few MiB.
inline constexpr std::uint64_t kMaxBufferBytes = std::uint64_t{256} * 1024 * 1024;

/// Throws InputError for packet sizes the packet model refuses whatever the network: a packet size
/// of 0 or above kMaxPacketBytes, a buffer smaller than a packet or of more than kMaxBufferPackets
/// packets (validate() calls it).
void check_packet_sizes(const PacketOptions& options);

/// Throws InputError (what is wrong and how to fix it) for options the packet model refuses: a
/// packet size of 0 or above kMaxPacketBytes, a buffer smaller than a packet or of more than
/// kMaxBufferPackets packets, 0 or more than 8 virtual channels, fewer
/// than required_vcs(), valiant or ugal on a topology other than a dragonfly.
void validate(const PacketOptions& options, const Network& network);

/// The packet model (see the file comment).
class PacketModel final : public Model {
 public:
  /// A model on `network` (shared: several runs may use one network); validate()s the options.
  PacketModel(std::shared_ptr<const Network> network, PacketOptions options);
  ~PacketModel() override;
  PacketModel(const PacketModel&) = delete;             ///< Holds run state.
  PacketModel& operator=(const PacketModel&) = delete;  ///< Holds run state.
  PacketModel(PacketModel&&) = delete;                  ///< Holds run state.
  PacketModel& operator=(PacketModel&&) = delete;       ///< Holds run state.

  /// See sim::NetworkModel::begin(); throws InputError when the schedule has more ranks than the
  /// placement places.
  void begin(std::uint32_t ranks, const sim::LogGOPSParams& params) override;
  /// See sim::NetworkModel::inject().
  void inject(std::uint64_t time_ps, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
              std::uint64_t token) override;
  /// See sim::NetworkModel::next_time().
  [[nodiscard]] std::uint64_t next_time() override;
  /// See sim::NetworkModel::advance().
  void advance(std::uint64_t time_ps, std::vector<sim::NetDelivery>& out) override;
  /// See sim::NetworkModel::in_flight().
  [[nodiscard]] std::uint64_t in_flight() const override;
  /// `packet model on SPEC (placement), 2048 B packets, ...`.
  [[nodiscard]] std::string describe() const override;

  /// See Model::stats().
  [[nodiscard]] const NetStats& stats() const noexcept override;
  /// The options.
  [[nodiscard]] const PacketOptions& options() const noexcept { return options_; }
  /// Packet-hops so far (a packet crossing one link, NICs included), for benchmarks.
  [[nodiscard]] std::uint64_t packet_hops() const noexcept;

 private:
  struct State;
  std::shared_ptr<const Network> network_;
  PacketOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace gridlock::net
