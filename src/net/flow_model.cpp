#include "gridlock/net/flow_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "detail/indexed_heap.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::net {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFU;
// Sub-stream of the seed for the spread's draws: the random placement draws from the seed itself.
constexpr std::uint64_t kSpreadSeedStream = 0x5370726561640001ULL;
// A flow never runs slower than this (bytes/ps, 1 kB/s): rounding in the filling may leave a
// flow a residual of zero on a saturated link, and a zero rate would never finish.
constexpr double kMinRate = 1e-9;

// Picoseconds to move `bytes` at `rate` bytes/ps, rounded to the nearest ps (exact for the
// common case of a flow alone at its NIC rate: bytes * G is an integer below 2^53).
std::uint64_t transfer_ps(double bytes, double rate) {
  const double t = std::nearbyint(bytes / rate);
  if (!(t < 1.8e19)) {
    throw InputError("a flow's transfer time overflows 2^64 ps: check the link capacities and message sizes");
  }
  return static_cast<std::uint64_t>(t);
}

// Simulated time in ps must not wrap: an absurd latency or hop latency is an input error.
std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw InputError(
        "a message's arrival time overflows 2^64 ps (about 213 days): check L and --hop-latency");
  }
  return r;
}
std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw InputError("hops x --hop-latency overflows 2^64 ps: give a hop latency in ns, e.g. 100ns");
  }
  return r;
}

}  // namespace

struct FlowModel::State {
  struct Flow {
    double remaining = 0;       // bytes not yet moved at `last`
    double rate = 0;            // bytes/ps since `last`
    double alone_rate = 0;      // bytes/ps on an idle network: the path's smallest capacity
    double bytes = 0;           // bytes the network carries (s - 1)
    std::uint64_t start = 0;    // injection time
    std::uint64_t last = 0;     // time `remaining` refers to
    std::uint64_t finish = 0;   // predicted end at the current rate
    std::uint64_t tail_ps = 0;  // L + hops * hop latency: from the last byte sent to delivered
    std::uint64_t token = 0;
    std::uint32_t dst = 0;
    bool active = false;
  };
  struct Injection {
    std::uint64_t time;
    std::uint64_t seq;  // injection order among equal times
    std::uint64_t token;
    std::uint64_t bytes;
    std::uint32_t src;
    std::uint32_t dst;
    bool operator>(const Injection& o) const noexcept { return time != o.time ? time > o.time : seq > o.seq; }
  };
  struct Share {
    double share;  // a lower bound of the link's fair share (see recompute)
    topo::LinkId link;
    bool operator>(const Share& o) const noexcept {
      return share != o.share ? share > o.share : link > o.link;
    }
  };

  std::uint64_t latency_ps = 0;
  // The per-message spread's draws (NetworkParams::spread), in the order messages start.
  bool spread = false;
  Rng spread_rng{0};
  // Each rank's NIC is a link of its own at 1/G, one for sending and one for receiving, after the
  // topology's links (ids topology_links + 2r and + 2r + 1); none when G = 0.
  bool nics = false;
  topo::LinkId topology_links = 0;
  std::vector<double> capacity;  // bytes/ps per link, NICs included

  std::vector<Flow> flows;
  std::vector<std::uint32_t> free_flows;
  // A flow's links: slab(id) .. slab(id) + flow_nlinks[id] (see restride()).
  std::vector<topo::LinkId> flow_links;
  std::vector<std::uint32_t> flow_pos;     // position of the flow in link_flows[link]
  std::vector<std::uint32_t> flow_nlinks;  // links per flow
  std::uint32_t stride = 8;
  std::vector<std::vector<std::uint32_t>> link_flows;  // active flows per link
  // Per flow, compact (the BFS and the filling test it for every flow on every link they visit):
  // 2 * search once the current search reached the flow, 2 * search + 1 once its rate is fixed.
  std::vector<std::uint64_t> flow_mark;
  std::vector<std::uint64_t> link_seen;      // component search stamp per link
  std::vector<double> link_residual;         // filling
  std::vector<std::uint32_t> link_unfrozen;  // filling
  std::vector<Share> shares;                 // filling heap
  std::uint64_t search = 0;

  detail::IndexedHeap finishes;  // active flows by predicted end
  std::priority_queue<Injection, std::vector<Injection>, std::greater<>> injections;
  std::uint64_t injection_seq = 0;
  std::vector<sim::NetDelivery>* out = nullptr;  // advance()'s output while it runs
  std::vector<topo::LinkId> dirty_links;
  std::uint64_t now = 0;
  std::uint64_t active = 0;
  std::uint64_t recomputations = 0;

  NetStats stats;
  std::vector<topo::LinkId> path;
  std::vector<std::uint32_t> component;
  std::vector<double> old_rates;  // parallel to component
  std::vector<topo::LinkId> component_links;

  // A message that needs no flow (one byte, or ranks on one node without a NIC bound) or a
  // finished flow: handed to the engine.
  void deliver(std::uint64_t time, std::uint64_t token, std::uint32_t dst) {
    out->push_back(sim::NetDelivery{time, token, dst});
    stats.last_delivery_ps = std::max(stats.last_delivery_ps, time);
  }
  void start(const Injection& in, const Network& network);

  [[nodiscard]] std::size_t slab(std::uint32_t id) const noexcept {
    return static_cast<std::size_t>(id) * stride;
  }

  std::uint32_t new_flow(std::uint32_t links) {
    if (links > stride) {
      restride(links);
    }
    std::uint32_t id = kNone;
    if (!free_flows.empty()) {
      id = free_flows.back();
      free_flows.pop_back();
      flows[id] = Flow{};
    } else {
      id = static_cast<std::uint32_t>(flows.size());
      flows.emplace_back();
      flow_mark.push_back(0);
      flow_nlinks.push_back(0);
      flow_links.resize(flow_links.size() + stride);
      flow_pos.resize(flow_links.size());
    }
    flow_nlinks[id] = links;
    return id;
  }

  // Every flow's links sit in a slab of `stride` entries at id * stride (the loops over a
  // component's flows read them without touching the flows themselves); a longer path than any
  // before widens every slab once.
  void restride(std::uint32_t links) {
    std::vector<topo::LinkId> wider_links(flows.size() * links);
    std::vector<std::uint32_t> wider_pos(wider_links.size());
    for (std::size_t id = 0; id < flows.size(); ++id) {
      for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
        wider_links[id * links + k] = flow_links[id * stride + k];
        wider_pos[id * links + k] = flow_pos[id * stride + k];
      }
    }
    flow_links = std::move(wider_links);
    flow_pos = std::move(wider_pos);
    stride = links;
  }

  void attach(std::uint32_t id) {
    const std::size_t base = slab(id);
    for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
      const topo::LinkId l = flow_links[base + k];
      flow_pos[base + k] = static_cast<std::uint32_t>(link_flows[l].size());
      link_flows[l].push_back(id);
      dirty_links.push_back(l);
    }
  }

  void detach(std::uint32_t id) {
    Flow& f = flows[id];
    const std::size_t base = slab(id);
    for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
      const topo::LinkId l = flow_links[base + k];
      std::vector<std::uint32_t>& on = link_flows[l];
      const std::uint32_t pos = flow_pos[base + k];
      const std::uint32_t moved = on.back();
      on[pos] = moved;
      on.pop_back();
      if (moved != id) {
        // The moved flow's entry for this link now sits at `pos`.
        const std::size_t moved_base = slab(moved);
        for (std::uint32_t j = 0; j < flow_nlinks[moved]; ++j) {
          if (flow_links[moved_base + j] == l) {
            flow_pos[moved_base + j] = pos;
            break;
          }
        }
      }
      dirty_links.push_back(l);
    }
    f.active = false;
    finishes.erase(id);
    free_flows.push_back(id);
  }

  void schedule_finish(std::uint32_t id) {
    Flow& f = flows[id];
    f.finish = checked_add(f.last, transfer_ps(f.remaining, f.rate));
    finishes.set(id, f.finish);
  }

  // Brings the flow's progress to `t` at its old rate.
  void progress_to(Flow& f, std::uint64_t t) const {
    if (t > f.last) {
      f.remaining = std::max(0.0, f.remaining - f.rate * static_cast<double>(t - f.last));
      f.last = t;
    }
  }

  // Max-min fair rates for every flow connected to a dirty link, at time t.
  void recompute(std::uint64_t t) {
    ++recomputations;
    ++search;
    const std::uint64_t seen_mark = 2 * search;
    const std::uint64_t fixed_mark = seen_mark + 1;
    component.clear();
    component_links.clear();
    for (const topo::LinkId l : dirty_links) {
      if (link_seen[l] != search) {
        link_seen[l] = search;
        component_links.push_back(l);
      }
    }
    dirty_links.clear();
    // Breadth-first over links and flows: max-min fairness decomposes over the connected
    // components of the flow-link graph, so the rest keep their rates and finish times.
    for (std::size_t i = 0; i < component_links.size(); ++i) {
      for (const std::uint32_t id : link_flows[component_links[i]]) {
        if (flow_mark[id] >= seen_mark) {
          continue;
        }
        flow_mark[id] = seen_mark;
        component.push_back(id);
        const std::size_t base = slab(id);
        for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
          const topo::LinkId l = flow_links[base + k];
          if (link_seen[l] != search) {
            link_seen[l] = search;
            component_links.push_back(l);
          }
        }
      }
    }
    if (component.empty()) {
      return;
    }
    old_rates.clear();
    for (const std::uint32_t id : component) {
      Flow& f = flows[id];
      progress_to(f, t);
      old_rates.push_back(f.rate);
      f.rate = 0;
    }
    // Progressive filling. A link's fair share residual/unfrozen only grows as flows freeze at
    // the smallest share, so a heap entry is a lower bound of its link's share: the top is taken
    // when its share is still current and put back with the current one otherwise. No entry is
    // pushed when a flow freezes (pushing one per link of every frozen flow took 90% of the time).
    shares.clear();
    for (const topo::LinkId l : component_links) {
      link_residual[l] = capacity[l];
      link_unfrozen[l] = static_cast<std::uint32_t>(link_flows[l].size());
      if (link_unfrozen[l] > 0) {
        shares.push_back(Share{link_residual[l] / link_unfrozen[l], l});
      }
    }
    std::make_heap(shares.begin(), shares.end(), std::greater<>{});
    std::size_t frozen = 0;
    while (frozen < component.size()) {
      // Every flow crosses a link, and a link with unfrozen flows has an entry.
      assert(!shares.empty());
      std::pop_heap(shares.begin(), shares.end(), std::greater<>{});
      const Share top = shares.back();
      shares.pop_back();
      if (link_unfrozen[top.link] == 0) {
        continue;
      }
      const double share = link_residual[top.link] / link_unfrozen[top.link];
      if (share > top.share) {
        shares.push_back(Share{share, top.link});
        std::push_heap(shares.begin(), shares.end(), std::greater<>{});
        continue;
      }
      // Freezing changes no link's flow list, so iterating this one is safe.
      for (const std::uint32_t id : link_flows[top.link]) {
        if (flow_mark[id] == fixed_mark) {
          continue;
        }
        flow_mark[id] = fixed_mark;
        flows[id].rate = std::max(share, kMinRate);
        ++frozen;
        const std::size_t base = slab(id);
        for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
          const topo::LinkId l = flow_links[base + k];
          link_residual[l] = std::max(0.0, link_residual[l] - share);
          --link_unfrozen[l];
        }
      }
    }
    for (std::size_t i = 0; i < component.size(); ++i) {
      // A flow whose rate did not change keeps its predicted end (and its heap place): in a large
      // component most flows keep theirs.
      if (flows[component[i]].rate != old_rates[i]) {
        schedule_finish(component[i]);
      }
    }
  }
};

FlowModel::FlowModel(std::shared_ptr<const Network> network)
    : network_(std::move(network)), state_(std::make_unique<State>()) {
  if (!network_) {
    throw InputError("flow model: no network given");
  }
}

FlowModel::~FlowModel() = default;

void FlowModel::begin(std::uint32_t ranks, const sim::LogGOPSParams& params) {
  if (ranks > network_->ranks()) {
    throw InputError(fmt::format(
        "the schedule has {} ranks but the placement places {} (on {} nodes of {}): give a larger network, "
        "more ranks per node, or a placement for every rank",
        ranks, network_->ranks(), network_->topology().nodes().size(), network_->topology().spec()));
  }
  auto fresh = std::make_unique<State>();
  State& s = *fresh;
  s.latency_ps = params.latency.ps;
  s.spread = network_->params().spread;
  s.spread_rng = Rng(derive_seed(network_->params().spread_seed, kSpreadSeedStream));
  s.nics = params.gap_per_byte.ps > 0;
  s.topology_links = static_cast<topo::LinkId>(network_->topology().links().size());
  s.capacity.reserve(s.topology_links + (s.nics ? 2 * static_cast<std::size_t>(ranks) : 0));
  for (topo::LinkId l = 0; l < s.topology_links; ++l) {
    s.capacity.push_back(network_->capacity_bytes_per_ps(l));
  }
  if (s.nics) {
    s.capacity.resize(s.capacity.size() + 2 * static_cast<std::size_t>(ranks),
                      1.0 / static_cast<double>(params.gap_per_byte.ps));
  }
  const std::size_t links = s.capacity.size();
  s.link_flows.resize(links);
  s.link_seen.assign(links, 0);
  s.link_residual.assign(links, 0);
  s.link_unfrozen.assign(links, 0);
  s.stats.model = "flow";
  s.stats.link_bytes.assign(s.topology_links, 0);
  state_ = std::move(fresh);
}

void FlowModel::inject(std::uint64_t time_ps, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                       std::uint64_t token) {
  State& s = *state_;
  // A message may leave later than one injected before it (a noisy o_s, a rendezvous waiting for
  // its NIC): it waits in a heap until the model reaches its time.
  assert(time_ps >= s.now);
  s.injections.push(State::Injection{time_ps, s.injection_seq++, token, bytes, src, dst});
}

void FlowModel::State::start(const Injection& in, const Network& network) {
  ++stats.messages;
  if (spread) {
    network.spread_path_into(in.src, in.dst, spread_rng, path);
  } else {
    network.path_into(in.src, in.dst, path);
  }
  const std::uint64_t tail =
      checked_add(latency_ps, checked_mul(Network::hops(path), network.params().hop_latency_ps));
  const double carried = in.bytes > 1 ? static_cast<double>(in.bytes - 1) : 0.0;
  if (!path.empty()) {
    ++stats.network_messages;
    for (const topo::LinkId l : path) {
      stats.link_bytes[l] += carried;
    }
    stats.bytes += carried;
  }
  if (nics) {
    path.insert(path.begin(), topology_links + 2 * in.src);
    path.push_back(topology_links + 2 * in.dst + 1);
  }
  if (carried == 0 || path.empty()) {
    deliver(checked_add(in.time, tail), in.token, in.dst);
    return;
  }
  const auto id = new_flow(static_cast<std::uint32_t>(path.size()));
  Flow& f = flows[id];
  f.remaining = carried;
  f.bytes = carried;
  f.start = in.time;
  f.last = in.time;
  f.tail_ps = tail;
  f.token = in.token;
  f.dst = in.dst;
  f.active = true;
  double alone = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < path.size(); ++k) {
    flow_links[slab(id) + k] = path[k];
    alone = std::min(alone, capacity[path[k]]);
  }
  f.alone_rate = alone;
  attach(id);
  ++active;
}

std::uint64_t FlowModel::next_time() {
  const State& s = *state_;
  std::uint64_t t = s.injections.empty() ? sim::kNetIdle : s.injections.top().time;
  if (!s.finishes.empty()) {
    t = std::min(t, s.finishes.top_key());
  }
  return t;
}

void FlowModel::advance(std::uint64_t time_ps, std::vector<sim::NetDelivery>& out) {
  State& s = *state_;
  assert(time_ps >= s.now);
  s.now = time_ps;
  s.out = &out;
  // Flows that end now leave first, then the messages that start now join: one recomputation
  // for both.
  while (!s.finishes.empty() && s.finishes.top_key() <= time_ps) {
    const std::uint32_t id = s.finishes.top();
    State::Flow& f = s.flows[id];
    s.deliver(checked_add(f.finish, f.tail_ps), f.token, f.dst);
    const double alone_ps = std::max(1.0, f.bytes / f.alone_rate);
    s.stats.slowdown.record(std::max(1.0, static_cast<double>(f.finish - f.start) / alone_ps));
    s.detach(id);
    --s.active;
  }
  while (!s.injections.empty() && s.injections.top().time <= time_ps) {
    const State::Injection in = s.injections.top();
    s.injections.pop();
    s.start(in, *network_);
  }
  if (!s.dirty_links.empty()) {
    s.recompute(time_ps);
  }
  s.out = nullptr;
}

std::uint64_t FlowModel::in_flight() const { return state_->active + state_->injections.size(); }

std::string FlowModel::describe() const {
  const NetworkParams& params = network_->params();
  if (params.spread) {
    return fmt::format("flow model on {} ({}), routes spread per message (seed {})",
                       network_->topology().spec(), network_->placement().description, params.spread_seed);
  }
  return fmt::format("flow model on {} ({})", network_->topology().spec(), network_->placement().description);
}

const NetStats& FlowModel::stats() const noexcept { return state_->stats; }

std::uint64_t FlowModel::recomputations() const noexcept { return state_->recomputations; }

}  // namespace gridlock::net
