#include "gridlock/net/flow_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/indexed_heap.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::net {
namespace {

// Sub-stream of the seed for the spread's draws: the random placement draws from the seed itself.
constexpr std::uint64_t kSpreadSeedStream = 0x5370726561640001ULL;
// A flow never runs slower than this (bytes/ps, 1 kB/s): rounding in the filling may leave a
// flow a residual of zero on a saturated link, and a zero rate would never finish.
constexpr double kMinRate = 1e-9;
// Relative rounding margins of the incremental filling (FlowModel::State::recompute): a link
// deviates a little below the level computed for it, and a rate within kSameRate of the old one
// is the old one.
constexpr double kLevelMargin = 1e-9;
constexpr double kSameRate = 1e-12;
// Free flows up to which a recomputation follows a change step by step, whatever the share of
// all flows they are (see recompute).
constexpr std::size_t kStepwiseFlows = 64;
// The step-by-step recomputation pays where a change frees few flows; where changes free many
// (a fat tree's D-mod-k down-links: ~40% of the flows against ~20% on a dragonfly and ~6% on a
// torus in the SimGrid benchmark) a refill is cheaper. Measured on that benchmark: a threshold of
// 0.25-0.35 and a probe every 8-32 changes were all within 10%.
constexpr double kRefillShare = 0.35;
constexpr std::uint64_t kProbeEvery = 32;
constexpr double kFreedWeight = 0.1;
// Steps of the fill level's iteration (FlowModel::State::fill_level); fewer give a lower bound.
constexpr int kFillLevelSteps = 8;

// Replaces the least element of a min-heap (ordered by std::greater) by `value`, not less than
// it, and restores the heap with one sift down (std:: offers only a pop and a push, two sifts).
template <typename T>
void replace_top(std::vector<T>& heap, const T& value) {
  const std::size_t n = heap.size();
  std::size_t hole = 0;
  for (;;) {
    std::size_t child = 2 * hole + 1;
    if (child >= n) {
      break;
    }
    if (child + 1 < n && heap[child] > heap[child + 1]) {
      ++child;
    }
    if (!(value > heap[child])) {
      break;
    }
    heap[hole] = heap[child];
    hole = child;
  }
  heap[hole] = value;
}

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
    double remaining = 0;       // bytes not yet moved at `last` (its rate: flow_rate)
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
  // A step of the filling (see recompute), by water level; at one level a link's deviation
  // first, then fills, then flows passing their old rates.
  enum class Step : std::uint8_t { kDeviate, kFill, kPass };
  struct Share {
    double share;  // a lower bound of the link's fair share (see refill)
    topo::LinkId link;
    bool operator>(const Share& o) const noexcept {
      return share != o.share ? share > o.share : link > o.link;
    }
  };
  struct Event {
    double level;  // kFill: a lower bound of the link's fair share
    Step step;
    std::uint32_t id;  // a link (kDeviate, kFill) or a flow (kPass)
    bool operator>(const Event& o) const noexcept {
      if (level != o.level) {
        return level > o.level;
      }
      return step != o.step ? step > o.step : id > o.id;
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
  // Per flow, compact: bytes/ps since Flow::last; 0 for a flow that has not had a rate yet.
  std::vector<double> flow_rate;
  std::vector<double> flow_old_rate;              // its rate before the current recomputation
  std::vector<topo::LinkId> flow_bottleneck;      // the link whose filling fixed its rate
  std::vector<topo::LinkId> flow_new_bottleneck;  // the same in the current recomputation
  // What changed since the last recomputation: the links of flows that left, with the flow's
  // rate (the lowest level at which the link can fill differently); the links of flows that
  // joined; the flows that joined.
  std::vector<std::pair<topo::LinkId, double>> shrunk_links;
  std::vector<topo::LinkId> grown_links;
  std::vector<std::uint32_t> added_flows;
  std::vector<double> level_rates;            // scratch: the rates on one grown link
  std::vector<std::uint64_t> link_seen;       // grown-link stamp per link
  std::vector<std::uint64_t> link_deviating;  // `search` once the link's filling is recomputed
  std::vector<double> link_residual;          // filling
  std::vector<std::uint32_t> link_unfrozen;   // filling
  std::vector<Event> events;                  // filling heap
  std::vector<std::uint32_t> passing;         // flows passing their old rates at this level
  std::vector<topo::LinkId> start_links;      // the changed links (for refill())
  std::vector<topo::LinkId> component_links;  // refill()'s links
  std::vector<Share> shares;                  // refill()'s heap
  // Moving average of the share of active flows a step-by-step recomputation freed.
  double freed_share = 0;
  std::uint64_t search = 0;

  detail::IndexedHeap finishes;  // active flows by predicted end
  std::priority_queue<Injection, std::vector<Injection>, std::greater<>> injections;
  std::uint64_t injection_seq = 0;
  std::vector<sim::NetDelivery>* out = nullptr;  // advance()'s output while it runs
  std::uint64_t now = 0;
  std::uint64_t active = 0;
  std::uint64_t recomputations = 0;

  NetStats stats;
  std::vector<topo::LinkId> path;
  std::vector<std::uint32_t> component;

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
    std::uint32_t id = 0;  // both branches below set it
    if (!free_flows.empty()) {
      id = free_flows.back();
      free_flows.pop_back();
      flows[id] = Flow{};
      flow_rate[id] = 0;
      flow_old_rate[id] = 0;
    } else {
      id = static_cast<std::uint32_t>(flows.size());
      flows.emplace_back();
      flow_mark.push_back(0);
      flow_rate.push_back(0);
      flow_old_rate.push_back(0);
      flow_bottleneck.push_back(0);
      flow_new_bottleneck.push_back(0);
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
      grown_links.push_back(l);
    }
    added_flows.push_back(id);
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
      shrunk_links.emplace_back(l, flow_rate[id]);
    }
    f.active = false;
    finishes.erase(id);
    free_flows.push_back(id);
  }

  void schedule_finish(std::uint32_t id) {
    Flow& f = flows[id];
    f.finish = checked_add(f.last, transfer_ps(f.remaining, flow_rate[id]));
    finishes.set(id, f.finish);
  }

  // Brings the flow's progress to `t` at `rate`, its rate since f.last.
  static void progress_to(Flow& f, double rate, std::uint64_t t) {
    if (t > f.last) {
      f.remaining = std::max(0.0, f.remaining - rate * static_cast<double>(t - f.last));
      f.last = t;
    }
  }

  // The water level at which a link that gained flows fills up if the filling went as before
  // below it (its old flows take min(rate, level), its new ones (rate 0) the level), or a lower
  // bound of it: both are safe starting levels for its deviation. Each step y -> (capacity - sum
  // of the rates below y) / (flows at or above y) stays below the fill level and stops at it
  // (Newton-like on a concave piecewise-linear function); a few steps instead of a sort.
  double fill_level(topo::LinkId l) {
    level_rates.clear();
    std::size_t added = 0;
    for (const std::uint32_t id : link_flows[l]) {
      if (flow_rate[id] > 0) {
        level_rates.push_back(flow_rate[id]);
      } else {
        ++added;
      }
    }
    if (added == 0) {
      return std::numeric_limits<double>::infinity();
    }
    double level = capacity[l] / static_cast<double>(level_rates.size() + added);
    for (int step = 0; step < kFillLevelSteps; ++step) {
      double below = 0;
      std::size_t at_or_above = added;
      for (const double rate : level_rates) {
        if (rate < level) {
          below += rate;
        } else {
          ++at_or_above;
        }
      }
      const double next = (capacity[l] - below) / static_cast<double>(at_or_above);
      if (!(next > level)) {
        break;
      }
      level = next;
    }
    return std::max(0.0, level);
  }

  [[nodiscard]] bool changed() const noexcept { return !added_flows.empty() || !shrunk_links.empty(); }

  void push_event(double level, Step step, std::uint32_t id) {
    events.push_back(Event{level, step, id});
    std::push_heap(events.begin(), events.end(), std::greater<>{});
  }

  // The link's filling may differ from the last one from water level `level` on: its flows whose
  // rate is below the level keep it, the others are freed (their rates are recomputed), and the
  // link's fill level is followed from now on.
  void deviate(topo::LinkId link, double level, std::uint64_t free_mark, std::uint64_t fixed_mark) {
    link_deviating[link] = search;
    // A margin for rounding: freeing a flow that keeps its rate costs time, never correctness.
    const double keep_below = level * (1 - kLevelMargin);
    double taken = 0;
    std::uint32_t free = 0;
    for (const std::uint32_t id : link_flows[link]) {
      if (flow_mark[id] == free_mark) {
        ++free;
      } else if (flow_mark[id] == fixed_mark || flow_rate[id] < keep_below) {
        taken += flow_rate[id];
      } else {
        flow_mark[id] = free_mark;
        flow_old_rate[id] = flow_rate[id];
        component.push_back(id);
        // A flow at the level (typically one that shared the link as its bottleneck with others)
        // passes its old rate now: no heap entry.
        if (flow_rate[id] <= level * (1 + kLevelMargin)) {
          passing.push_back(id);
        } else {
          push_event(flow_rate[id] * (1 + kSameRate), Step::kPass, id);
        }
        ++free;
      }
    }
    link_residual[link] = std::max(0.0, capacity[link] - taken);
    link_unfrozen[link] = free;
    if (free > 0) {
      push_event(link_residual[link] / free, Step::kFill, link);
    }
  }

  // Fixes a free flow's rate at `rate`, which the filling of `link` gave it.
  void freeze(std::uint32_t id, double rate, topo::LinkId link, std::uint64_t free_mark,
              std::uint64_t fixed_mark) {
    const double old = flow_old_rate[id];
    if (old > 0 && std::abs(rate - old) <= kSameRate * old) {
      rate = old;  // the same rate but for rounding: nothing changes
    }
    flow_mark[id] = fixed_mark;
    flow_rate[id] = std::max(rate, kMinRate);
    flow_new_bottleneck[id] = link;
    const std::size_t base = slab(id);
    for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
      const topo::LinkId l = flow_links[base + k];
      if (link_deviating[l] == search) {
        link_residual[l] = std::max(0.0, link_residual[l] - rate);
        --link_unfrozen[l];
      }
    }
    // A flow that stops below its old rate takes less from each of its links from this level on.
    // (One that goes above it was seen passing its old rate; a new flow's links deviate from the
    // level at which they would fill, a lower bound whatever the new flow gets.)
    if (old > 0 && rate < old) {
      for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
        const topo::LinkId l = flow_links[base + k];
        if (link_deviating[l] != search) {
          deviate(l, rate, free_mark, fixed_mark);
        }
      }
    }
  }

  // The water reaches a free flow's old rate.
  void pass(std::uint32_t id, std::uint64_t free_mark, std::uint64_t fixed_mark) {
    if (flow_mark[id] != free_mark) {
      return;
    }
    if (link_deviating[flow_bottleneck[id]] != search) {
      // Its old bottleneck fills at its old rate, as before.
      freeze(id, flow_old_rate[id], flow_bottleneck[id], free_mark, fixed_mark);
      return;
    }
    // It will end above its old rate: it takes more from each of its links from here on.
    const std::size_t base = slab(id);
    for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
      const topo::LinkId l = flow_links[base + k];
      if (link_deviating[l] != search) {
        deviate(l, flow_old_rate[id], free_mark, fixed_mark);
      }
    }
  }

  // Max-min fair rates after flows joined or left, at time t.
  //
  // Progressive filling raises a water level; a flow freezes when a link of its path fills up. The
  // new filling runs as the last one did until a changed link behaves differently: a link that
  // lost a flow from that flow's rate on, a link that gained flows from the level at which it
  // fills (fill_level()). From such a level a link "deviates": its flows at or above the level are
  // freed and its filling is followed (residual capacity over free flows, as in the plain
  // method). A freed flow either reaches its old rate while its old bottleneck link still fills
  // as before (it keeps its rate), or freezes below it (its links deviate from there), or passes
  // its old rate (its links deviate from there). Links that never deviate fill as before, so the
  // flows on them keep their rates without being visited: on random traffic a recomputation
  // touches a few dozen of several hundred connected flows. The steps run by level in one heap,
  // a fill's entry a lower bound of the link's share (shares only grow as flows freeze), taken
  // when still current and put back otherwise.
  void recompute(std::uint64_t t) {
    ++recomputations;
    ++search;
    const std::uint64_t free_mark = 2 * search;
    const std::uint64_t fixed_mark = free_mark + 1;
    component.clear();
    events.clear();
    for (const std::uint32_t id : added_flows) {
      flow_mark[id] = free_mark;
      flow_old_rate[id] = 0;
      component.push_back(id);
    }
    added_flows.clear();
    start_links.clear();
    double start_level = std::numeric_limits<double>::infinity();
    for (const topo::LinkId l : grown_links) {
      if (link_seen[l] != search) {
        link_seen[l] = search;
        const double level = fill_level(l);
        start_level = std::min(start_level, level);
        start_links.push_back(l);
        push_event(level * (1 - kLevelMargin), Step::kDeviate, l);
      }
    }
    grown_links.clear();
    for (const auto& [l, level] : shrunk_links) {
      start_level = std::min(start_level, level);
      start_links.push_back(l);
      push_event(level * (1 - kLevelMargin), Step::kDeviate, l);
    }
    shrunk_links.clear();
    // When a change reaches half the flows (many flows sharing one bottleneck at one rate, as
    // the down-links of a fat tree's D-mod-k routes), following it step by step costs more than
    // refilling every free flow at once (bench: a quarter slowed the dragonfly down, never
    // falling back slowed the fat tree down).
    // Where changes have lately freed more than kRefillShare of the flows, refill at once (but
    // for every kProbeEvery-th change, which keeps the average current).
    const std::size_t give_up = std::max<std::size_t>(kStepwiseFlows, active / 2);
    if (freed_share > kRefillShare && recomputations % kProbeEvery != 0) {
      for (const std::uint32_t id : component) {
        flow_rate[id] = flow_old_rate[id];
      }
      events.clear();
      refill(t, start_level);
      return;
    }
    while (!events.empty() || !passing.empty()) {
      if (component.size() > give_up) {
        for (const std::uint32_t id : component) {
          flow_rate[id] = flow_old_rate[id];
        }
        events.clear();
        passing.clear();
        freed_share = (1 - kFreedWeight) * freed_share + kFreedWeight * 0.5;
        refill(t, start_level);
        return;
      }
      if (!passing.empty()) {
        const std::uint32_t id = passing.back();
        passing.pop_back();
        // Whether its old bottleneck fills as before is only known once every step below the
        // level ran: that case waits in the heap. One that deviated is known now.
        if (flow_mark[id] == free_mark && link_deviating[flow_bottleneck[id]] != search) {
          push_event(flow_old_rate[id] * (1 + kSameRate), Step::kPass, id);
        } else {
          pass(id, free_mark, fixed_mark);
        }
        continue;
      }
      const Event e = events.front();
      if (e.step == Step::kFill && link_unfrozen[e.id] != 0) {
        const double share = link_residual[e.id] / link_unfrozen[e.id];
        if (share > e.level) {
          // A stale entry: one sift down in place instead of a pop and a push.
          replace_top(events, Event{share, Step::kFill, e.id});
          continue;
        }
      }
      std::pop_heap(events.begin(), events.end(), std::greater<>{});
      events.pop_back();
      switch (e.step) {
        case Step::kDeviate:
          if (link_deviating[e.id] != search) {
            deviate(e.id, e.level, free_mark, fixed_mark);
          }
          break;
        case Step::kFill: {
          if (link_unfrozen[e.id] == 0) {
            break;
          }
          const double share = link_residual[e.id] / link_unfrozen[e.id];
          // Freezing changes no link's flow list, so iterating this one is safe.
          for (const std::uint32_t id : link_flows[e.id]) {
            if (flow_mark[id] == free_mark) {
              freeze(id, share, e.id, free_mark, fixed_mark);
            }
          }
          break;
        }
        case Step::kPass:
          pass(e.id, free_mark, fixed_mark);
          break;
      }
    }
    freed_share =
        (1 - kFreedWeight) * freed_share + kFreedWeight * static_cast<double>(component.size()) /
                                               static_cast<double>(std::max<std::uint64_t>(active, 1));
    for (const std::uint32_t id : component) {
      // Every free flow froze: a new flow's links all deviate, and a freed one passes its old rate.
      assert(flow_mark[id] == fixed_mark);
      // A flow whose rate did not change keeps its progress and predicted end (and its heap
      // place); the others move their progress to t at the old rate.
      flow_bottleneck[id] = flow_new_bottleneck[id];
      if (flow_rate[id] != flow_old_rate[id]) {
        progress_to(flows[id], flow_old_rate[id], t);
        schedule_finish(id);
      }
    }
  }

  // The other way to the same rates: every flow at or above `level` (the lowest level at which
  // the filling can differ, see recompute()) that is connected to a changed link through links
  // and such flows is given max-min fair rates on what the flows below the level leave of each
  // link (by uniqueness of the max-min allocation, the global answer; a group of free flows not
  // connected to a change keeps a full link on which it is fastest). The flows' rates are the
  // old ones (new flows: 0).
  void refill(std::uint64_t t, double level) {
    ++search;
    const std::uint64_t seen_mark = 2 * search;
    const std::uint64_t fixed_mark = seen_mark + 1;
    // A margin for rounding: freeing a flow that keeps its rate costs time, never correctness.
    const double keep_below = level * (1 - kLevelMargin);
    component.clear();
    component_links.clear();
    for (const topo::LinkId l : start_links) {
      if (link_seen[l] != search) {
        link_seen[l] = search;
        component_links.push_back(l);
      }
    }
    // Breadth-first over links and free flows; each link's kept flows leave it their rates.
    shares.clear();
    for (std::size_t i = 0; i < component_links.size(); ++i) {
      const topo::LinkId link = component_links[i];
      double kept = 0;
      std::uint32_t free = 0;
      for (const std::uint32_t id : link_flows[link]) {
        const double rate = flow_rate[id];
        if (rate > 0 && rate < keep_below) {
          kept += rate;
          continue;
        }
        ++free;
        if (flow_mark[id] >= seen_mark) {
          continue;
        }
        flow_mark[id] = seen_mark;
        flow_old_rate[id] = rate;
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
      link_residual[link] = std::max(0.0, capacity[link] - kept);
      link_unfrozen[link] = free;
      if (free > 0) {
        shares.push_back(Share{link_residual[link] / free, link});
      }
    }
    // Progressive filling of the free flows, the lowest share first (a heap entry is a lower
    // bound of its link's share, as in recompute()).
    std::make_heap(shares.begin(), shares.end(), std::greater<>{});
    std::size_t frozen = 0;
    while (frozen < component.size()) {
      // Every flow crosses a link, and a link with unfrozen flows has an entry.
      assert(!shares.empty());
      const Share top = shares.front();
      if (link_unfrozen[top.link] == 0) {
        std::pop_heap(shares.begin(), shares.end(), std::greater<>{});
        shares.pop_back();
        continue;
      }
      const double share = link_residual[top.link] / link_unfrozen[top.link];
      if (share > top.share) {
        // A stale entry: one sift down in place instead of a pop and a push.
        replace_top(shares, Share{share, top.link});
        continue;
      }
      std::pop_heap(shares.begin(), shares.end(), std::greater<>{});
      shares.pop_back();
      // Freezing changes no link's flow list, so iterating this one is safe; its kept flows and
      // the flows frozen already are skipped.
      for (const std::uint32_t id : link_flows[top.link]) {
        if (flow_mark[id] != seen_mark) {
          continue;
        }
        flow_mark[id] = fixed_mark;
        flow_rate[id] = std::max(share, kMinRate);
        flow_bottleneck[id] = top.link;
        ++frozen;
        const std::size_t base = slab(id);
        for (std::uint32_t k = 0; k < flow_nlinks[id]; ++k) {
          const topo::LinkId l = flow_links[base + k];
          link_residual[l] = std::max(0.0, link_residual[l] - share);
          --link_unfrozen[l];
        }
      }
    }
    for (const std::uint32_t id : component) {
      if (flow_rate[id] != flow_old_rate[id]) {
        progress_to(flows[id], flow_old_rate[id], t);
        schedule_finish(id);
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
  s.link_deviating.assign(links, 0);
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
  if (s.changed()) {
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
