#include "gridlock/net/packet_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "detail/packet_links.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/topo/dragonfly.hpp"

namespace gridlock::net {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFU;
// What a waiting packet's channel on its next link follows (State::vc_hint): the topology's rule,
// the rule at a Valiant path's turn, or kHintFixed + v: channel v, by BookSim's UGAL phases.
constexpr std::uint8_t kHintRule = 0;
constexpr std::uint8_t kHintTurned = 1;
constexpr std::uint8_t kHintFixed = 2;
// Message::booksim_phase of a message that does not route by BookSim's UGAL.
constexpr std::uint8_t kNoPhase = 0xFF;
constexpr std::uint64_t kNever = ~std::uint64_t{0};
// Inputs still waiting for an ejection link when a packet crosses it that count as endpoint
// congestion (congestion control marks the packet): two, so that two senders taking turns at one
// receiver are not throttled.
constexpr std::size_t kMarkWaitingInputs = 2;

std::uint64_t checked_ps(double ps) {
  if (!(ps < 1.8e19)) {
    throw InputError("a packet's time on a link overflows 2^64 ps: check the link capacities");
  }
  return static_cast<std::uint64_t>(ps);
}

// Picoseconds `bytes` take at `capacity` bytes/ps, rounded up, at least 1. A quotient within
// rounding error of an integer is that integer (576 B at 100 GB/s is 5760 ps, not 5761).
std::uint64_t serialisation_ps(double bytes, double capacity) {
  const double t = bytes / capacity;
  const double nearest = std::nearbyint(t);
  const double ps = std::abs(t - nearest) <= 1e-9 * t ? nearest : std::ceil(t);
  return std::max<std::uint64_t>(1, checked_ps(ps));
}

}  // namespace

const char* to_string(Routing routing) noexcept {
  switch (routing) {
    case Routing::kValiant:
      return "valiant";
    case Routing::kUgal:
      return "ugal";
    case Routing::kMinimal:
      break;
  }
  return "minimal";
}

Routing parse_routing(std::string_view text, std::string_view what) {
  if (text == "minimal") {
    return Routing::kMinimal;
  }
  if (text == "valiant") {
    return Routing::kValiant;
  }
  if (text == "ugal") {
    return Routing::kUgal;
  }
  throw InputError(fmt::format(
      "{} '{}': give minimal (the topology's route), valiant or ugal (dragonfly only)", what, text));
}

const char* to_string(UgalRule rule) noexcept { return rule == UgalRule::kBookSim ? "booksim" : "hops"; }

UgalRule parse_ugal_rule(std::string_view text, std::string_view what) {
  if (text == "booksim") {
    return UgalRule::kBookSim;
  }
  if (text == "hops") {
    return UgalRule::kHops;
  }
  throw InputError(
      fmt::format("{} '{}': give booksim (BookSim2's dragonflynew UGAL, the default) or hops "
                  "(queue x hops, Valiant when cheaper)",
                  what, text));
}

std::uint32_t required_vcs(Routing routing, const Network& network) {
  switch (detail::vc_rule(network)) {
    case detail::VcRule::kDragonfly:
      // Minimal: local, global, local. Non-minimal with a third group: two global links, three
      // phases. Within a group, or between the groups of a 2-group machine, a Valiant path turns
      // once inside a group or crosses one global link: two phases (topo::Dragonfly's valiant paths).
      if (routing == Routing::kMinimal) {
        return 2;
      }
      return dynamic_cast<const topo::Dragonfly&>(network.topology()).options().groups == 2 ? 2 : 3;
    case detail::VcRule::kTorus:
      return 2;
    case detail::VcRule::kSingle:
      break;
  }
  return 1;
}

void check_packet_sizes(const PacketOptions& options) {
  if (options.packet_bytes == 0) {
    throw InputError("packet model: a packet size of 0 bytes: give --packet-size of at least 1 (e.g. 2048)");
  }
  if (options.packet_bytes > kMaxPacketBytes) {
    throw InputError(fmt::format(
        "packet model: a packet size of {} bytes: give --packet-size of at most 1MiB (networks carry 64 B to "
        "4 KiB per packet; e.g. 2KiB)",
        options.packet_bytes));
  }
  if (options.buffer_bytes < options.packet_bytes) {
    throw InputError(fmt::format(
        "packet model: a buffer of {} bytes cannot hold one packet of {} bytes: give --buffer of at least "
        "the packet size (e.g. 16 packets)",
        options.buffer_bytes, options.packet_bytes));
  }
  if (options.buffer_bytes / options.packet_bytes > kMaxBufferPackets) {
    throw InputError(fmt::format(
        "packet model: a buffer of {} bytes holds {} packets of {} bytes, more than {}: give a smaller "
        "--buffer "
        "or a larger --packet-size (routers buffer tens of packets per channel, e.g. 32KiB of 2KiB packets)",
        options.buffer_bytes, options.buffer_bytes / options.packet_bytes, options.packet_bytes,
        kMaxBufferPackets));
  }
}

void validate(const PacketOptions& options, const Network& network) {
  check_packet_sizes(options);
  if (options.vcs == 0 || options.vcs > 8) {
    throw InputError(fmt::format("packet model: {} virtual channels: give --vcs from 1 to 8", options.vcs));
  }
  const bool dragonfly = dynamic_cast<const topo::Dragonfly*>(&network.topology()) != nullptr;
  if (options.routing != Routing::kMinimal && !dragonfly) {
    throw InputError(fmt::format(
        "packet model: {} routing needs a dragonfly, but the network is {}: give --routing minimal",
        to_string(options.routing), network.topology().spec()));
  }
  if (options.global_extra_latency_ps != 0 && !dragonfly) {
    throw InputError(
        fmt::format("packet model: a global link latency (--global-extra-latency) needs a dragonfly, but the "
                    "network is {}: "
                    "drop it or use --hop-latency",
                    network.topology().spec()));
  }
  const std::uint32_t needed = required_vcs(options.routing, network);
  if (options.vcs < needed) {
    const char* why =
        detail::vc_rule(network) == detail::VcRule::kTorus
            ? "a torus ring of 4 or more routers needs one channel before and one after its "
              "wrap-around link (dateline)"
        : options.routing == Routing::kMinimal
            ? "dragonfly minimal routing goes local, global, local and needs a channel per phase"
        : needed == 2
            ? "on a 2-group dragonfly a non-minimal path either turns at an intermediate router of its "
              "group or goes local, global, local through another gateway, and needs a channel per phase"
            : "a Valiant path crosses two global links (or turns at an intermediate router inside a "
              "group) and needs a channel per phase";
    throw InputError(fmt::format(
        "packet model: {} routing on {} could deadlock with {} virtual channel{}: {}; give --vcs {} or more",
        to_string(options.routing), network.topology().spec(), options.vcs, options.vcs == 1 ? "" : "s", why,
        needed));
  }
  if (options.routing == Routing::kUgal && options.ugal_rule == UgalRule::kBookSim && options.vcs < 3) {
    throw InputError(
        fmt::format("packet model: ugal routing by BookSim2's rule (--ugal-rule booksim, the default) puts "
                    "each phase of a path on its own channel (dragonflynew: to the intermediate router, on "
                    "to a global link, after it), but there are {} virtual channels: give --vcs 3 or more, "
                    "or --ugal-rule hops",
                    options.vcs));
  }
}

struct PacketModel::State {
  struct Packet {
    std::uint64_t head = 0;  // head's arrival at the buffer it waits in
    std::uint64_t tail = 0;  // tail's arrival there
    std::uint32_t msg = 0;
    std::uint32_t bytes = 0;
    std::uint32_t next = kNone;  // FIFO of its buffer, or free list
    std::uint16_t hop = 0;       // index in the message's path of the link it crossed last
    bool marked = false;         // entered a buffer at least half full (congestion control)
    bool alt = false;            // UGAL: on the message's Valiant path
  };
  struct Message {
    std::uint64_t start = 0;
    std::uint64_t token = 0;
    std::uint64_t carried = 0;    // s - 1
    std::uint64_t sent = 0;       // bytes cut into packets so far
    std::uint64_t done_tail = 0;  // latest tail to leave the receiving NIC
    std::uint64_t packets_left = 0;
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    std::uint32_t next = kNone;  // FIFO of its sender, or free list
    bool routed = false;
    // Index in its Valiant path (`alt`, or `path` under valiant routing) of the link that reaches
    // an intermediate router inside a group, where the packet changes channel; 0: no such turn.
    // Under BookSim's UGAL: the link that reaches the random intermediate router.
    std::uint16_t turn = 0;
    // BookSim's UGAL only: the phase, and so the channel, its minimal packets start in (1: they
    // leave the group, 2: they stay); kNoPhase otherwise.
    std::uint8_t booksim_phase = kNoPhase;
    std::vector<topo::LinkId> path;  // injection, network links, ejection (kept across reuse)
    std::vector<topo::LinkId> alt;   // UGAL: the Valiant path its packets may take instead
  };
  struct Injection {
    std::uint64_t time;
    std::uint64_t seq;
    std::uint64_t token;
    std::uint64_t bytes;
    std::uint32_t src;
    std::uint32_t dst;
    bool operator>(const Injection& o) const noexcept { return time != o.time ? time > o.time : seq > o.seq; }
  };
  enum Kind : std::uint32_t { kHead = 0, kPortFree = 1, kCredit = 2 };
  // Equal times run in scheduling order (seq); a wrapped seq only reorders ties, deterministically.
  struct Event {
    std::uint64_t time;
    std::uint64_t key;  // seq << 32 | kind << 30 | id
    bool operator>(const Event& o) const noexcept { return time != o.time ? time > o.time : key > o.key; }
  };

  // Configuration.
  const Network* network = nullptr;
  PacketOptions options;
  std::uint64_t latency_ps = 0;
  std::uint64_t gap_per_byte_ps = 0;
  std::uint32_t vcs = 1;
  std::uint32_t slots = 1;
  detail::VcRule rule = detail::VcRule::kSingle;
  std::vector<detail::LinkClass> classes;
  const topo::Dragonfly* dragonfly = nullptr;
  topo::LinkId links = 0;                // topology links: ports 0 .. links-1
  std::uint32_t rx_base = 0;             // receiving NIC of rank r: port rx_base + r
  std::uint32_t src_base = 0;            // sending queue of rank r: queue src_base + r (link queues first)
  std::vector<double> capacity;          // bytes/ps per topology link
  std::vector<std::uint64_t> hop_ps;     // per topology link
  std::uint64_t ring_ps = 0;             // the hop latency the ring holds (see hops_ring)
  std::vector<std::uint64_t> full_ser;   // ps for a full packet per topology link
  std::vector<std::uint8_t> ejection;    // per topology link: router to node
  std::vector<std::uint64_t> turn_ps;    // per topology link: its output channels' turnaround
  std::vector<std::uint64_t> credit_ps;  // per topology link: a credit's way back

  // Ports (topology links, then receiving NICs).
  std::vector<std::uint64_t> busy_until;
  // Queues whose head packet wants the port, oldest request first.
  std::vector<std::vector<std::uint32_t>> requesters;
  std::vector<std::uint8_t> wake_pending;
  // Queues: link l, channel v -> l * vcs + v (the buffer at the link's far end); senders after.
  std::vector<std::uint32_t> q_head;  // packets (link queues) or messages (sender queues)
  std::vector<std::uint32_t> q_tail;
  std::vector<std::uint32_t> credits;  // link queues: free slots
  std::vector<std::uint64_t> vc_free;  // link queues: when their channel may take a new packet
  // Credits on their way back, per link queue: the times the packets that left it free their
  // slots, in order (a FIFO's tails leave in order), at most `slots` of them, in a ring. They are
  // taken lazily when the buffer's credits are looked at; an event is due only when a packet
  // waits for one (credit_wait), which saves the event heap one push and pop per packet-hop.
  std::vector<std::uint64_t> returns;
  std::vector<std::uint32_t> returns_first;
  std::vector<std::uint32_t> returns_count;
  std::vector<std::uint8_t> credit_wait;
  std::vector<std::uint8_t> credit_due;
  std::vector<std::uint8_t> requesting;
  std::vector<std::uint8_t> vc_hint;  // link queues: kHint* for the requesting packet's next channel
  // Senders.
  std::vector<std::uint64_t> nic_free;
  std::vector<std::uint8_t> nic_wake;  // a kHead for the sender's queue is due
  std::vector<double> rate;            // fraction of the NIC rate (congestion control)
  std::vector<std::uint64_t> rate_changed;
  std::vector<std::uint64_t> rate_cut;

  std::vector<Packet> packets;
  std::uint32_t free_packets = kNone;
  std::vector<Message> messages;
  std::uint32_t free_messages = kNone;

  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  // Heads crossing a router-to-router link arrive now + hop latency, one constant: in the order
  // they were scheduled. They wait in this ring, not the heap (most events, and the heap's pops
  // were most of the time); the earlier of its front and the heap's top runs next. A ring rather
  // than std::deque, which allocates and frees a block every few hundred events.
  std::vector<Event> hops_ring = std::vector<Event>(64);
  std::size_t ring_first = 0;
  std::size_t ring_count = 0;
  std::uint64_t event_seq = 0;
  std::priority_queue<Injection, std::vector<Injection>, std::greater<>> injections;
  std::uint64_t injection_seq = 0;
  std::vector<sim::NetDelivery>* out = nullptr;
  std::uint64_t now = 0;
  std::uint64_t active = 0;
  std::uint64_t hops = 0;
  Rng rng{1};
  NetStats stats;
  std::vector<topo::LinkId> scratch;

  void schedule(std::uint64_t time, Kind kind, std::uint32_t id) {
    events.push(Event{time, (event_seq++ << 32U) | (static_cast<std::uint64_t>(kind) << 30U) | id});
  }

  // A kHead at now + hop latency (see hops_ring).
  void schedule_hop(std::uint64_t time, std::uint32_t id) {
    if (ring_count == hops_ring.size()) {
      std::vector<Event> grown(2 * hops_ring.size());
      for (std::size_t i = 0; i < ring_count; ++i) {
        grown[i] = hops_ring[(ring_first + i) % hops_ring.size()];
      }
      hops_ring.swap(grown);
      ring_first = 0;
    }
    hops_ring[(ring_first + ring_count) % hops_ring.size()] =
        Event{time, (event_seq++ << 32U) | (static_cast<std::uint64_t>(kHead) << 30U) | id};
    ++ring_count;
  }

  // The next event (nullptr: none), and taking it.
  [[nodiscard]] const Event* peek() const {
    const Event* heap = events.empty() ? nullptr : &events.top();
    const Event* ring = ring_count == 0 ? nullptr : &hops_ring[ring_first];
    if (heap == nullptr) {
      return ring;
    }
    if (ring == nullptr) {
      return heap;
    }
    return *ring > *heap ? heap : ring;
  }
  Event pop(const Event* e) {
    const Event copy = *e;
    if (ring_count > 0 && e == &hops_ring[ring_first]) {
      ring_first = ring_first + 1 == hops_ring.size() ? 0 : ring_first + 1;
      --ring_count;
    } else {
      events.pop();
    }
    return copy;
  }

  void deliver(std::uint64_t time, std::uint64_t token, std::uint32_t dst) {
    out->push_back(sim::NetDelivery{time, token, dst});
    stats.last_delivery_ps = std::max(stats.last_delivery_ps, time);
  }

  std::uint32_t new_message() {
    if (free_messages != kNone) {
      const std::uint32_t id = free_messages;
      free_messages = messages[id].next;
      return id;
    }
    messages.emplace_back();
    return static_cast<std::uint32_t>(messages.size() - 1);
  }

  std::uint32_t new_packet() {
    if (free_packets != kNone) {
      const std::uint32_t id = free_packets;
      free_packets = packets[id].next;
      return id;
    }
    packets.emplace_back();
    return static_cast<std::uint32_t>(packets.size() - 1);
  }

  [[nodiscard]] std::uint64_t link_ser(topo::LinkId link, std::uint32_t bytes) const {
    if (bytes == options.packet_bytes) {
      return full_ser[link];
    }
    return serialisation_ps(bytes, capacity[link]);
  }

  // Takes the credits of buffer `d` whose time has come; returns its free slots.
  std::uint32_t refresh(std::uint32_t d) {
    while (returns_count[d] > 0 && returns[static_cast<std::size_t>(d) * slots + returns_first[d]] <= now) {
      returns_first[d] = returns_first[d] + 1 == slots ? 0 : returns_first[d] + 1;
      --returns_count[d];
      ++credits[d];
    }
    return credits[d];
  }

  // A packet waits for a slot of buffer `d`: make sure an event comes when one frees.
  void wait_credit(std::uint32_t d) {
    credit_wait[d] = 1;
    if (credit_due[d] == 0 && returns_count[d] > 0) {
      credit_due[d] = 1;
      schedule(returns[static_cast<std::size_t>(d) * slots + returns_first[d]], kCredit, d);
    }
  }

  // A packet left buffer `q`; its slot frees at `tail`.
  void add_return(std::uint32_t q, std::uint64_t tail) {
    std::uint32_t at = returns_first[q] + returns_count[q];
    at = at >= slots ? at - slots : at;
    // The credit crosses the link back: one latency per link, so the ring stays in order.
    returns[static_cast<std::size_t>(q) * slots + at] = tail + credit_ps[q / vcs];
    ++returns_count[q];
    if (credit_wait[q] != 0 && credit_due[q] == 0) {
      credit_due[q] = 1;
      schedule(returns[static_cast<std::size_t>(q) * slots + returns_first[q]], kCredit, q);
    }
  }

  // Buffer slots in use downstream of `link` plus the packets waiting for it: UGAL's queue length.
  // Buffer slots in use (or whose credit is on its way back) downstream of `link`.
  [[nodiscard]] std::uint64_t downstream_used(topo::LinkId link) {
    std::uint64_t used = 0;
    for (std::uint32_t v = 0; v < vcs; ++v) {
      used += slots - refresh(link * vcs + v);
    }
    return used;
  }

  [[nodiscard]] std::uint64_t occupancy(topo::LinkId link) {
    std::uint64_t used = requesters[link].size();
    for (std::uint32_t v = 0; v < vcs; ++v) {
      used += slots - refresh(link * vcs + v);
    }
    return used;
  }

  void start(const Injection& in);
  void route(Message& m);
  void route_booksim_ugal(Message& m, topo::NodeId a, topo::NodeId b);
  [[nodiscard]] std::uint32_t booksim_phase_vc(const Packet& p, const Message& m, std::uint32_t vc,
                                               topo::LinkId next) const;
  bool take_valiant(Message& m);
  void try_request(std::uint32_t q);
  void arbitrate(std::uint32_t port);
  std::uint32_t ready_vc(std::uint32_t port, std::uint32_t first, std::uint32_t choices,
                         std::uint64_t& turned);
  void forward(std::uint32_t q, std::uint32_t port, std::uint32_t vc);
  void received(std::uint32_t p, std::uint64_t tail);
  void process(const Event& e);
};

void PacketModel::State::start(const Injection& in) {
  ++stats.messages;
  const std::uint64_t carried = in.bytes > 1 ? in.bytes - 1 : 0;
  const bool same_node = network->node_of(in.src) == network->node_of(in.dst);
  if (!same_node) {
    ++stats.network_messages;
    stats.bytes += static_cast<double>(carried);
  }
  if (same_node || carried == 0) {
    // Latency only, or a node's NIC talking to itself: LogGOPS, no network (as the flow model's
    // idle NIC; documented limit: such messages do not queue at the NIC).
    std::uint64_t tail = latency_ps + carried * gap_per_byte_ps;
    if (!same_node) {
      network->path_into(in.src, in.dst, scratch);
      // The path's link latencies, as a packet's: hops, global links' extra, terminal links.
      for (const topo::LinkId l : scratch) {
        tail += hop_ps[l];
      }
    }
    deliver(in.time + tail, in.token, in.dst);
    return;
  }
  const std::uint32_t id = new_message();
  Message& m = messages[id];
  m.start = in.time;
  m.token = in.token;
  m.carried = carried;
  m.sent = 0;
  m.done_tail = 0;
  m.packets_left = (carried + options.packet_bytes - 1) / options.packet_bytes;
  m.src = in.src;
  m.dst = in.dst;
  m.next = kNone;
  m.routed = false;
  m.turn = 0;
  ++active;
  const std::uint32_t q = src_base + in.src;
  if (q_head[q] == kNone) {
    q_head[q] = id;
  } else {
    messages[q_tail[q]].next = id;
  }
  q_tail[q] = id;
  try_request(q);
}

void PacketModel::State::route(Message& m) {
  m.routed = true;
  network->path_into(m.src, m.dst, m.path);
  m.alt.clear();
  m.turn = 0;
  m.booksim_phase = kNoPhase;
  if (options.routing == Routing::kMinimal || dragonfly == nullptr) {
    return;
  }
  const topo::NodeId a = network->node_of(m.src);
  const topo::NodeId b = network->node_of(m.dst);
  if (options.routing == Routing::kUgal && options.ugal_rule == UgalRule::kBookSim) {
    route_booksim_ugal(m, a, b);
    return;
  }
  const std::size_t choices = dragonfly->valiant_choices(a, b);
  if (choices == 0) {
    return;
  }
  scratch.assign(1, m.path.front());
  const std::size_t turn = dragonfly->append_valiant_route(a, b, uniform_below(rng, choices), scratch);
  // The turn's link follows the injection link: index `turn` of the packet's path.
  m.turn = static_cast<std::uint16_t>(turn);
  scratch.push_back(m.path.back());
  if (options.routing == Routing::kUgal) {
    m.alt.swap(scratch);  // forward() chooses per packet
  } else {
    m.path.swap(scratch);
  }
}

void PacketModel::State::route_booksim_ugal(Message& m, topo::NodeId a, topo::NodeId b) {
  // BookSim2's ugal_dragonflynew, the reference's method whole: a packet that stays in its group
  // goes minimal; one that leaves it draws a random node of the machine and, unless that node is
  // in its own or its destination's group (then minimal too), weighs the minimal path against
  // the path minimally to the node's router and minimally on. Drawing a node is drawing its
  // router: every router has the same number of nodes.
  const std::vector<topo::Node>& nodes = network->topology().nodes();
  const int gs = dragonfly->group_of(nodes[a].router);
  const int gd = dragonfly->group_of(nodes[b].router);
  if (gs == gd) {
    m.booksim_phase = 2;
    return;
  }
  m.booksim_phase = 1;
  const auto mid = static_cast<topo::RouterId>(uniform_below(rng, network->topology().routers().size()));
  const int gm = dragonfly->group_of(mid);
  if (gm == gs || gm == gd) {
    return;
  }
  scratch.assign(1, m.path.front());
  // The link that reaches the intermediate router follows the injection link.
  m.turn = static_cast<std::uint16_t>(dragonfly->append_route_via_router(a, b, mid, scratch));
  scratch.push_back(m.path.back());
  m.alt.swap(scratch);
}

std::uint32_t PacketModel::State::booksim_phase_vc(const Packet& p, const Message& m, std::uint32_t vc,
                                                   topo::LinkId next) const {
  // dragonflynew's channel is the packet's phase: 0 on the way to the intermediate router, 1 from
  // there (or from the source router, minimal) to a global link, 2 from that global link on and
  // for packets that stay in their group. `vc` is the channel the packet holds now.
  std::uint32_t phase = vc;
  if (p.hop == 0) {
    phase = p.alt ? 0 : m.booksim_phase;
  } else if (p.alt && p.hop == m.turn) {
    phase = 1;
  }
  if (phase == 1 && classes[next].global) {
    phase = 2;
  }
  return phase;
}

bool PacketModel::State::take_valiant(Message& m) {
  // UGAL-L at the packet's departure: the minimal path unless its first router-to-router link's
  // queue times its hops exceeds the Valiant path's; ties go minimal.
  if (m.alt.empty()) {
    return false;
  }
  if (options.ugal_rule == UgalRule::kBookSim) {
    // dragonflynew's ugal: the used credits of each path's first output (buffers downstream and
    // credits on their way back, not the packets waiting here), in bytes; ties go minimal.
    const std::uint64_t min_used = downstream_used(m.path[1]) * options.packet_bytes;
    const std::uint64_t val_used = downstream_used(m.alt[1]) * options.packet_bytes;
    return min_used > 2 * val_used + options.ugal_threshold_bytes;
  }
  const std::uint64_t min_cost = occupancy(m.path[1]) * Network::hops(m.path);
  const std::uint64_t val_cost = occupancy(m.alt[1]) * Network::hops(m.alt);
  return val_cost < min_cost;
}

void PacketModel::State::try_request(std::uint32_t q) {
  if (requesting[q] != 0 || q_head[q] == kNone) {
    return;
  }
  std::uint32_t port = 0;
  if (q >= src_base) {
    const std::uint32_t rank = q - src_base;
    if (nic_free[rank] > now) {
      // The NIC is still sending (or pacing): ask again when it is free.
      if (nic_wake[rank] == 0) {
        nic_wake[rank] = 1;
        schedule(nic_free[rank], kHead, q);
      }
      return;
    }
    Message& m = messages[q_head[q]];
    if (!m.routed) {
      route(m);
    }
    port = m.path.front();
  } else {
    const Packet& p = packets[q_head[q]];
    if (p.head > now) {
      return;  // its kHead event asks again
    }
    const Message& m = messages[p.msg];
    const std::vector<topo::LinkId>& path = p.alt ? m.alt : m.path;
    port = p.hop + 1U < path.size() ? path[p.hop + 1U] : rx_base + m.dst;
    if (m.booksim_phase != kNoPhase && port < rx_base) {
      vc_hint[q] = static_cast<std::uint8_t>(kHintFixed + booksim_phase_vc(p, m, q % vcs, port));
    } else {
      const bool valiant = p.alt || options.routing == Routing::kValiant;
      vc_hint[q] = valiant && m.turn != 0 && p.hop == m.turn ? kHintTurned : kHintRule;
    }
  }
  requesting[q] = 1;
  requesters[port].push_back(q);
  if (busy_until[port] <= now) {
    arbitrate(port);
  } else if (wake_pending[port] == 0) {
    wake_pending[port] = 1;
    schedule(busy_until[port], kPortFree, port);
  }
}

// The first of `choices` channels of `port`, from `first` on, that may take a packet now: free of
// its turnaround (vc_turnaround_ps) and with a free slot downstream. kNone if none may: then
// `turned` holds the earliest end of their turnarounds, and each channel without a slot has a
// kCredit event due, either of which arbitrates again.
std::uint32_t PacketModel::State::ready_vc(std::uint32_t port, std::uint32_t first, std::uint32_t choices,
                                           std::uint64_t& turned) {
  for (std::uint32_t i = 0; i < choices; ++i) {
    const std::uint32_t v = (first + i) % vcs;
    const std::uint32_t d = port * vcs + v;
    if (vc_free[d] > now) {
      turned = std::min(turned, vc_free[d]);
    } else if (refresh(d) == 0) {
      wait_credit(d);
    } else {
      return v;
    }
  }
  return kNone;
}

void PacketModel::State::arbitrate(std::uint32_t port) {
  std::vector<std::uint32_t>& waiting = requesters[port];
  if (waiting.empty()) {
    return;
  }
  if (busy_until[port] > now) {
    // A kPortFree of an earlier busy period may have fired since: make sure one is due.
    if (wake_pending[port] == 0) {
      wake_pending[port] = 1;
      schedule(busy_until[port], kPortFree, port);
    }
    return;
  }
  // Oldest request first: `waiting` is in the order the inputs asked, and a served input that asks
  // again goes to its end, so every waiting input is served before any is served twice (round-
  // robin over inputs and channels). One whose next buffer is full, or whose channel is still
  // turning around (vc_turnaround_ps), is skipped but keeps its place.
  // (A round-robin pointer into this list, as before, pointed after a skip at the winner's place,
  // where the winner, asking again at once, stayed: a backlogged flow then kept the output for as
  // long as it had packets and starved the skipped one; issue 26.)
  std::uint64_t turned = kNever;  // earliest end of a turnaround that held an input back
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    const std::uint32_t q = waiting[i];
    std::uint32_t vc = 0;
    std::uint32_t choices = 1;
    if (port < rx_base && q < src_base) {
      const topo::LinkId prev = q / vcs;
      const std::uint8_t hint = vc_hint[q];
      vc = hint >= kHintFixed ? static_cast<std::uint32_t>(hint - kHintFixed)
                              : std::min(vcs - 1, detail::next_vc(rule, classes[prev], q % vcs, classes[port],
                                                                  hint == kHintTurned));
      // A torus' ejection link needs no dateline (nothing waits on a channel beyond it): any of
      // its channels, from the rule's on, as BookSim's dim_order_torus at the destination router.
      if (rule == detail::VcRule::kTorus && ejection[port] != 0) {
        choices = vcs;
      }
    }
    if (port < rx_base) {
      vc = ready_vc(port, vc, choices, turned);
      if (vc == kNone) {
        continue;
      }
    }
    waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i));
    forward(q, port, vc);
    if (!waiting.empty() && wake_pending[port] == 0) {
      wake_pending[port] = 1;
      schedule(busy_until[port], kPortFree, port);
    }
    return;
  }
  if (turned != kNever && wake_pending[port] == 0) {
    wake_pending[port] = 1;
    schedule(turned, kPortFree, port);
  }
}

void PacketModel::State::forward(std::uint32_t q, std::uint32_t port, std::uint32_t vc) {
  requesting[q] = 0;
  const std::uint64_t s = now;
  std::uint32_t p = kNone;
  std::uint64_t tail = 0;
  ++hops;
  if (q >= src_base) {
    const std::uint32_t rank = q - src_base;
    const std::uint32_t id = q_head[q];
    Message& m = messages[id];
    const auto bytes =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(options.packet_bytes, m.carried - m.sent));
    m.sent += bytes;
    if (m.sent == m.carried) {
      q_head[q] = m.next;
    }
    p = new_packet();
    packets[p] = Packet{};
    packets[p].msg = id;
    packets[p].bytes = bytes;
    packets[p].alt = take_valiant(m);
    const std::uint64_t wire = link_ser(port, bytes);
    const std::uint64_t ser = std::max(wire, bytes * gap_per_byte_ps);
    tail = s + ser;
    busy_until[port] = s + wire;
    std::uint64_t pace = ser;
    if (options.congestion_control) {
      const std::uint64_t steps = (s - rate_changed[rank]) / kCongestionHoldPs;
      if (steps > 0) {
        rate[rank] = std::min(1.0, rate[rank] + static_cast<double>(steps) / 64.0);
        rate_changed[rank] += steps * kCongestionHoldPs;
      }
      pace = checked_ps(std::ceil(static_cast<double>(ser) / rate[rank]));
    }
    nic_free[rank] = s + pace;
    if (q_head[q] != kNone) {
      nic_wake[rank] = 1;
      schedule(nic_free[rank], kHead, q);
    }
  } else {
    p = q_head[q];
    const Packet& leaving = packets[p];
    q_head[q] = leaving.next;
    const std::uint64_t ser =
        port >= rx_base ? leaving.bytes * gap_per_byte_ps : link_ser(port, leaving.bytes);
    // The link (or NIC) is busy for the packet's own serialisation only: a packet whose tail
    // still trickles in from a slower link upstream leaves the rest of the bandwidth to others
    // (flits interleave), but its own tail cannot leave before it arrived.
    busy_until[port] = s + ser;
    tail = std::max(s + ser, leaving.tail);
    add_return(q, tail);
  }
  Packet& pk = packets[p];
  if (port >= rx_base) {
    received(p, tail);
  } else {
    const std::uint32_t d = port * vcs + vc;
    const std::uint64_t lat = hop_ps[port];
    if (turn_ps[port] != 0) {
      // Held until the tail has left, then the allocation (without the option, a channel takes
      // the next packet once the link is free, as before).
      vc_free[d] = tail + turn_ps[port];
    }
    stats.link_bytes[port] += pk.bytes;
    // Endpoint congestion: the packet crosses an ejection link while other inputs of the router
    // wait for the same link (an incast's tree saturation: the backlog sits in the routers when
    // the ejection link is the bottleneck), or it enters a receiver's buffer that is half full
    // (when the receiving NIC is). Victims passing through the saturated routers towards other
    // ports are not marked.
    if (options.congestion_control && ejection[port] != 0 &&
        (requesters[port].size() >= kMarkWaitingInputs || 2 * (slots - credits[d]) >= slots)) {
      pk.marked = true;
    }
    --credits[d];
    if (q < src_base) {
      ++pk.hop;
    }
    pk.head = s + lat;
    pk.tail = tail + lat;
    pk.next = kNone;
    if (q_head[d] == kNone) {
      q_head[d] = p;
    } else {
      packets[q_tail[d]].next = p;
    }
    q_tail[d] = p;
    if (pk.head > now && lat == ring_ps) {
      schedule_hop(pk.head, d);
    } else if (pk.head > now) {
      // A terminal or global link whose latency differs from the hops': the heap keeps the order.
      schedule(pk.head, kHead, d);
    } else {
      // No latency (a terminal link): ask at once rather than through the heap, a third of the
      // events otherwise. The recursion follows the packet along its path, no deeper.
      try_request(d);
    }
  }
  if (q < src_base) {
    try_request(q);
  }
}

void PacketModel::State::received(std::uint32_t p, std::uint64_t tail) {
  Packet& pk = packets[p];
  Message& m = messages[pk.msg];
  const std::uint32_t id = pk.msg;
  if (pk.marked && options.congestion_control && now >= rate_cut[m.src] + kCongestionHoldPs) {
    // The receiver's echo is taken as instant: the sender cuts when the packet arrives.
    rate[m.src] = std::max(rate[m.src] / 2, 1.0 / 1024);
    rate_cut[m.src] = now;
    rate_changed[m.src] = now;
  }
  pk.next = free_packets;
  free_packets = p;
  m.done_tail = std::max(m.done_tail, tail);
  if (--m.packets_left > 0) {
    return;
  }
  deliver(m.done_tail + latency_ps, m.token, m.dst);
  std::uint64_t hop_total = 0;
  for (const topo::LinkId l : m.path) {
    hop_total += hop_ps[l];
  }
  double slowest = static_cast<double>(gap_per_byte_ps);
  for (const topo::LinkId l : m.path) {
    slowest = std::max(slowest, 1.0 / capacity[l]);
  }
  const double alone_ps = std::max(1.0, static_cast<double>(m.carried) * slowest);
  const double took = static_cast<double>(m.done_tail - m.start - std::min(hop_total, m.done_tail - m.start));
  stats.slowdown.record(std::max(1.0, took / alone_ps));
  --active;
  m.next = free_messages;
  free_messages = id;
}

void PacketModel::State::process(const Event& e) {
  const auto kind = static_cast<Kind>((e.key >> 30U) & 3U);
  const auto id = static_cast<std::uint32_t>(e.key & 0x3FFFFFFFU);
  switch (kind) {
    case kHead:
      if (id >= src_base) {
        nic_wake[id - src_base] = 0;
      }
      try_request(id);
      break;
    case kPortFree:
      wake_pending[id] = 0;
      arbitrate(id);
      break;
    case kCredit:
      credit_due[id] = 0;
      credit_wait[id] = 0;
      arbitrate(id / vcs);
      break;
  }
}

PacketModel::PacketModel(std::shared_ptr<const Network> network, PacketOptions options)
    : network_(std::move(network)), options_(options), state_(std::make_unique<State>()) {
  if (!network_) {
    throw InputError("packet model: no network given");
  }
  validate(options_, *network_);
}

PacketModel::~PacketModel() = default;

void PacketModel::begin(std::uint32_t ranks, const sim::LogGOPSParams& params) {
  if (ranks > network_->ranks()) {
    throw InputError(fmt::format(
        "the schedule has {} ranks but the placement places {} (on {} nodes of {}): give a larger network, "
        "more ranks per node, or a placement for every rank",
        ranks, network_->ranks(), network_->topology().nodes().size(), network_->topology().spec()));
  }
  const topo::Topology& t = network_->topology();
  const std::uint64_t ports = t.links().size() + static_cast<std::uint64_t>(ranks);
  const std::uint64_t queues = t.links().size() * static_cast<std::uint64_t>(options_.vcs) + ranks;
  if (queues >= (1U << 30U)) {
    throw InputError(
        fmt::format("packet model: {} links x {} channels + {} ranks is too many buffers (2^30 at most)",
                    t.links().size(), options_.vcs, ranks));
  }
  auto fresh = std::make_unique<State>();
  State& s = *fresh;
  // Runs one after the other (sweeps, benchmarks) keep the message and packet pools, and the
  // paths' storage, of the run before: all free.
  s.messages = std::move(state_->messages);
  for (std::size_t i = s.messages.size(); i-- > 0;) {
    s.messages[i].next = s.free_messages;
    s.free_messages = static_cast<std::uint32_t>(i);
  }
  s.packets = std::move(state_->packets);
  for (std::size_t i = s.packets.size(); i-- > 0;) {
    s.packets[i].next = s.free_packets;
    s.free_packets = static_cast<std::uint32_t>(i);
  }
  s.network = network_.get();
  s.options = options_;
  s.latency_ps = params.latency.ps;
  s.gap_per_byte_ps = params.gap_per_byte.ps;
  s.vcs = options_.vcs;
  s.slots = options_.buffer_bytes / options_.packet_bytes;
  s.rule = detail::vc_rule(*network_);
  s.classes = detail::link_classes(*network_);
  s.dragonfly = dynamic_cast<const topo::Dragonfly*>(&t);
  s.links = static_cast<topo::LinkId>(t.links().size());
  s.rx_base = s.links;
  s.src_base = s.links * s.vcs;
  s.ring_ps = network_->params().hop_latency_ps;
  for (topo::LinkId l = 0; l < s.links; ++l) {
    s.capacity.push_back(network_->capacity_bytes_per_ps(l));
    const std::uint64_t hop =
        network_->params().hop_latency_ps + (s.classes[l].global ? options_.global_extra_latency_ps : 0);
    s.hop_ps.push_back(t.links()[l].kind == topo::LinkKind::kNetwork ? hop : options_.terminal_latency_ps);
    s.full_ser.push_back(serialisation_ps(options_.packet_bytes, s.capacity.back()));
    s.ejection.push_back(t.links()[l].kind == topo::LinkKind::kEjection ? 1 : 0);
    s.credit_ps.push_back(options_.credit_latency_ps == 0
                              ? 0
                              : options_.credit_latency_ps +
                                    (s.classes[l].global ? options_.global_extra_latency_ps : 0));
    s.turn_ps.push_back(t.links()[l].kind == topo::LinkKind::kInjection ? 0 : options_.vc_turnaround_ps);
  }
  s.busy_until.assign(ports, 0);
  s.requesters.resize(ports);
  s.wake_pending.assign(ports, 0);
  s.q_head.assign(queues, kNone);
  s.q_tail.assign(queues, kNone);
  s.credits.assign(static_cast<std::size_t>(s.src_base), s.slots);
  s.vc_free.assign(static_cast<std::size_t>(s.src_base), 0);
  s.returns.assign(static_cast<std::size_t>(s.src_base) * s.slots, 0);
  s.returns_first.assign(s.src_base, 0);
  s.returns_count.assign(s.src_base, 0);
  s.credit_wait.assign(s.src_base, 0);
  s.credit_due.assign(s.src_base, 0);
  s.requesting.assign(queues, 0);
  s.vc_hint.assign(queues, kHintRule);
  s.nic_free.assign(ranks, 0);
  s.nic_wake.assign(ranks, 0);
  s.rate.assign(ranks, 1.0);
  s.rate_changed.assign(ranks, 0);
  s.rate_cut.assign(ranks, 0);
  s.rng = Rng(options_.seed);
  s.stats.model = "packet";
  s.stats.link_bytes.assign(s.links, 0);
  state_ = std::move(fresh);
}

void PacketModel::inject(std::uint64_t time_ps, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                         std::uint64_t token) {
  State& s = *state_;
  assert(time_ps >= s.now);
  s.injections.push(State::Injection{time_ps, s.injection_seq++, token, bytes, src, dst});
}

std::uint64_t PacketModel::next_time() {
  const State& s = *state_;
  std::uint64_t t = s.injections.empty() ? sim::kNetIdle : s.injections.top().time;
  if (const State::Event* e = s.peek(); e != nullptr) {
    t = std::min(t, e->time);
  }
  return t;
}

void PacketModel::advance(std::uint64_t time_ps, std::vector<sim::NetDelivery>& out) {
  State& s = *state_;
  assert(time_ps >= s.now);
  s.now = time_ps;
  s.out = &out;
  while (!s.injections.empty() && s.injections.top().time <= time_ps) {
    const State::Injection in = s.injections.top();
    s.injections.pop();
    s.start(in);
  }
  for (const State::Event* next = s.peek(); next != nullptr && next->time <= time_ps; next = s.peek()) {
    const State::Event e = s.pop(next);
    s.process(e);
  }
  s.out = nullptr;
}

std::uint64_t PacketModel::in_flight() const { return state_->active + state_->injections.size(); }

std::string PacketModel::describe() const {
  std::string text = fmt::format(
      "packet model on {} ({}): {} B packets, {} B buffers, {} virtual channels, {} routing, congestion "
      "control {}, seed {}",
      network_->topology().spec(), network_->placement().description, options_.packet_bytes,
      options_.buffer_bytes, options_.vcs, to_string(options_.routing),
      options_.congestion_control ? "on" : "off", options_.seed);
  // The router options only when set, so that the description of a default model stays as it was.
  if (options_.terminal_latency_ps != 0) {
    text += fmt::format(", terminal latency {} ps", options_.terminal_latency_ps);
  }
  if (options_.global_extra_latency_ps != 0) {
    text += fmt::format(", global links +{} ps", options_.global_extra_latency_ps);
  }
  if (options_.credit_latency_ps != 0) {
    text += fmt::format(", credit latency {} ps", options_.credit_latency_ps);
  }
  if (options_.vc_turnaround_ps != 0) {
    text += fmt::format(", channel turnaround {} ps", options_.vc_turnaround_ps);
  }
  if (options_.routing == Routing::kUgal && options_.ugal_rule == UgalRule::kBookSim) {
    text += fmt::format(", BookSim's UGAL (threshold {} B, random intermediate router, channel per phase)",
                        options_.ugal_threshold_bytes);
  } else if (options_.routing == Routing::kUgal) {
    text += ", gridlock's UGAL (queue x hops)";
  }
  return text;
}

const NetStats& PacketModel::stats() const noexcept { return state_->stats; }

std::uint64_t PacketModel::packet_hops() const noexcept { return state_->hops; }

}  // namespace gridlock::net
