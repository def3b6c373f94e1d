#include "gridlock/sim/engine.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <ctime>
#include <limits>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "detail/event_queue.hpp"
#include "detail/heap_queue.hpp"
#include "detail/window_queue.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/wall_clock.hpp"
#include "gridlock/sim/network.hpp"
#include "gridlock/sim/noise.hpp"

namespace gridlock::sim {
namespace {

constexpr std::uint32_t kDone = 0xFFFFFFFFU;
// An op counter with this bit set belongs to a completed op. A root receive taken off the posted
// queue keeps the position of the next possibly unmatched root receive in the other bits (see
// Engine::next_live_root); kDone is this bit with all others set.
constexpr std::uint32_t kDoneBit = 0x80000000U;
constexpr std::uint32_t kNil = 0xFFFFFFFFU;
// The low 32 bits of an event's payload: an event kind in the top three bits, an index below.
constexpr std::uint32_t kKindShift = 29;
constexpr std::uint32_t kIndexMask = (1U << kKindShift) - 1;
// An event's index holds an op's position in its rank's program: the engine's own bound on a rank's
// ops, below the schedule's (sim::kMaxOpsPerRank).
constexpr std::uint32_t kEngineOpsPerRankLimit = 1U << kKindShift;
enum EventKind : std::uint32_t {
  kEventOp = 0,          // host, op: an operation whose dependencies are satisfied
  kEventCtsSend = 1,     // receiver, recv op: send the clear-to-send of a matched rendezvous
  kEventWake = 2,        // host, group kind: the wake-up entry of a parked group (see Group)
  kEventCtsArrive = 3,   // sender, send op: the clear-to-send arrives; the data leaves
  kEventMessage = 4,     // sender, send op: a message (or, with the handshake, its request-to-send)
  kEventRendezvous = 5,  // sender, send op: the data of a handshaken rendezvous arrives
};
constexpr std::uint32_t event_low(EventKind kind, std::uint32_t index) {
  return static_cast<std::uint32_t>(kind) << kKindShift | index;
}
constexpr std::uint8_t kMessageKind = 4;
constexpr std::size_t kMaxStuckListed = 16;

std::uint64_t payload_of(std::uint32_t host, std::uint32_t op_and_kind) {
  return static_cast<std::uint64_t>(host) << 32U | op_and_kind;
}

[[noreturn]] void overflow(std::uint32_t rank) {
  throw InputError(fmt::format(
      "simulated time overflows 2^64 ps (about 213 days) at rank {}: check the sizes and parameters", rank));
}

// The weakly connected parts of a repeating program (Schedule::repeats): each part starts again
// when all its ops have completed, as if the program were followed by itself with every op of
// the next iteration requiring the last ops of its part in this one.
struct RepeatShape {
  std::vector<std::uint32_t> part_of;     // per op
  std::vector<std::uint32_t> op_begin;    // per part, then the end: its ops in `ops`
  std::vector<std::uint32_t> ops;         // ops grouped by part, in program order
  std::vector<std::uint32_t> root_begin;  // per part, then the end: its roots in `roots`
  std::vector<std::uint32_t> roots;       // roots grouped by part, in Program::roots order
  [[nodiscard]] std::uint32_t parts() const noexcept {
    return static_cast<std::uint32_t>(op_begin.size() - 1);
  }
  [[nodiscard]] std::uint32_t part_size(std::uint32_t part) const noexcept {
    return op_begin[part + 1] - op_begin[part];
  }
};

// The parts of `prog` (its requires and irequires edges undirected), found with a union-find in
// `parent` (scratch). Part numbers follow the parts' first ops.
RepeatShape make_repeat_shape(const Program& prog, std::vector<std::uint32_t>& parent) {
  const auto n = static_cast<std::uint32_t>(prog.ops.size());
  parent.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    parent[i] = i;
  }
  auto find = [&parent](std::uint32_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t k = prog.succ_begin[2 * static_cast<std::size_t>(i)];
         k < prog.succ_begin[2 * static_cast<std::size_t>(i) + 2]; ++k) {
      const std::uint32_t a = find(i);
      const std::uint32_t b = find(prog.succ[k]);
      if (a != b) {
        parent[std::max(a, b)] = std::min(a, b);  // the smaller op leads: parts in first-op order
      }
    }
  }
  RepeatShape shape;
  shape.part_of.assign(n, 0);
  std::vector<std::uint32_t> part_of_leader(n, kNil);
  std::uint32_t parts = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t leader = find(i);
    if (part_of_leader[leader] == kNil) {
      part_of_leader[leader] = parts++;
    }
    shape.part_of[i] = part_of_leader[leader];
  }
  // Counting sort of the ops and the roots by part, keeping their order within a part.
  auto group = [&](std::span<const std::uint32_t> items, std::vector<std::uint32_t>& begin,
                   std::vector<std::uint32_t>& out) {
    begin.assign(parts + 1, 0);
    for (const std::uint32_t op : items) {
      ++begin[shape.part_of[op] + 1];
    }
    for (std::uint32_t p = 0; p < parts; ++p) {
      begin[p + 1] += begin[p];
    }
    out.resize(items.size());
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
    for (const std::uint32_t op : items) {
      out[fill[shape.part_of[op]]++] = op;
    }
  };
  std::vector<std::uint32_t> all(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    all[i] = i;
  }
  group(all, shape.op_begin, shape.ops);
  group(prog.roots, shape.root_begin, shape.roots);
  return shape;
}

// Kinds of events that wait for a busy host; each has its own parked group per host.
enum GroupKind : std::uint32_t { kGroupCalc = 0, kGroupSend = 1, kGroupMessage = 2, kGroupKinds = 3 };

template <class Queue>
class Engine {
 public:
  // `rerun`: this run repeats a windowed run that failed, in global order (for progress reports).
  Engine(const Schedule& schedule, const SimOptions& options, Queue queue, bool rerun = false)
      : queue_(std::move(queue)),
        s_(schedule),
        p_(options.params),
        record_(options.record_timeline),
        noise_(options.noise != nullptr && options.noise->pattern != nullptr ? options.noise : nullptr),
        loggopsim_noise_(noise_ != nullptr && options.noise_rule == NoiseRule::kLogGOPSim),
        max_slices_(options.max_timeline_slices),
        ranks_(schedule.num_ranks()),
        ncpu_(schedule.num_cpus()),
        nnic_(schedule.num_nics()),
        // The folding argument (see park()) needs one CPU and one NIC per host.
        multi_(ncpu_ > 1 || nnic_ > 1),
        fold_(options.fold_retries && !multi_),
        handshake_(options.params.rendezvous_handshake),
        net_(options.network),
        on_op_done_(options.on_op_done),
        progress_(options.progress),
        progress_every_(options.progress_every_events),
        rerun_(rerun),
        repeating_(schedule.has_repeating()),
        stop_flag_(options.stop_flag),
        time_limit_(options.repeat_time_limit.ps) {}

  // Runs the schedule. With WindowQueue, check order_failed() first: if true, the result is void.
  SimResult run();
  [[nodiscard]] bool order_failed() const noexcept { return queue_.failed(); }

 private:
  struct Node {
    std::uint32_t a;  // RQ: recv op; UQ: sender rank
    std::uint32_t b;  // UQ: send op
    std::uint32_t next;
  };
  // Per-host bookkeeping in one cache line; CPU and NIC free times live in times_.
  // The posted-receive queue of a host is, in posting order, the receives posted at time 0 (its
  // program's root receives, positions [root_next, root_end) of Program::roots that are still
  // unmatched) followed by the linked list rq. Root receives need no node: a 1,024-rank chain
  // broadcast posts 10 M of them at once.
  struct Host {
    const Program* prog;
    const std::uint32_t* peers;  // Schedule::peer_offsets of the rank
    std::uint32_t base;
    std::uint32_t rq_head;
    std::uint32_t rq_tail;
    std::uint32_t uq_head;
    std::uint32_t uq_tail;
    std::uint32_t root_next;
    std::uint32_t root_end;
    // A repeating program's index into shapes_ and its first part in part_left_ (kNil: the
    // program does not repeat).
    std::uint32_t shape;
    std::uint32_t part_base;
  };
  // Events that found their host busy and wait for the same free time, in stamp order. LogGOPSim
  // re-queues each of them every time the host frees up (quadratic when messages pile up at a
  // slow receiver); a group is re-timed in O(1) when that is provably what per-event retries
  // would do, and otherwise gives its head back to the ordinary retry queue.
  struct Group {
    std::uint64_t due = 0;  // The time all members are next tried at.
    std::uint32_t head = kNil;
    std::uint32_t tail = kNil;
  };
  struct Parked {
    std::uint64_t ts;
    std::uint64_t payload;
    std::uint32_t next;
  };
  struct Ready {
    std::uint32_t host;
    std::uint32_t op;
    OpType type;
  };

  [[nodiscard]] std::uint64_t add(std::uint64_t a, std::uint64_t b, std::uint32_t rank) const {
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) {
      overflow(rank);
    }
    return r;
  }
  [[nodiscard]] std::uint64_t mul(std::uint64_t a, std::uint64_t b, std::uint32_t rank) const {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) {
      overflow(rank);
    }
    return r;
  }

  // End of CPU work of length d ready at t on `host`. Without noise (the common case, one
  // predictable branch) it is t + d; with noise the detour pattern decides (docs/sim-model.md).
  [[nodiscard]] std::uint64_t cpu_work(std::uint32_t host, std::uint64_t t, std::uint64_t d) {
    if (noise_ == nullptr) {
      return add(t, d, host);
    }
    return noisy_work(host, t, d);
  }
  // End of CPU work of length d from t of which only `noisy` is exposed to noise, under
  // LogGOPSim's rule (noise_ set): the rest of a detour in progress at t and every detour that
  // starts within `noisy` are added to the end, and nothing else moves.
  [[nodiscard]] std::uint64_t loggopsim_work(std::uint32_t host, std::uint64_t t, std::uint64_t d,
                                             std::uint64_t noisy) {
    NoiseState& state = noise_state_[host];
    return add(add(t, d, host), noise_->pattern->loggopsim_noise(t, noisy, state.offset, state.cursor), host);
  }
  // The CPU part of a send ready at t with `per_byte` CPU time after o_s: when it starts, when
  // o_s ends (the message leaves then) and when the CPU is free again.
  struct SendCpu {
    std::uint64_t start;
    std::uint64_t o_end;
    std::uint64_t cpu_end;
  };
  [[nodiscard]] SendCpu send_cpu(std::uint32_t host, std::uint64_t t, std::uint64_t per_byte) {
    if (noise_ == nullptr) {
      const std::uint64_t o_end = add(t, p_.overhead_send.ps, host);
      return {t, o_end, add(o_end, per_byte, host)};
    }
    if (loggopsim_noise_) {
      // The message leaves at t + o_s whatever noise falls into o_s (LogGOPSim's rule).
      const std::uint64_t o_end = add(t, p_.overhead_send.ps, host);
      return {t, o_end,
              loggopsim_work(host, t, add(p_.overhead_send.ps, per_byte, host), p_.overhead_send.ps)};
    }
    // A detour in progress delays the start, o_s is noisy work and the message leaves when it
    // ends; the per-byte part follows it (also noisy).
    const std::uint64_t start = noisy_work(host, t, 0);
    const std::uint64_t o_end = noisy_work(host, start, p_.overhead_send.ps);
    return {start, o_end, noisy_work(host, o_end, per_byte)};
  }
  // The CPU part of handling a message at t: o_r then `per_byte` (LogGOPSim's rule exposes
  // only o_r to noise).
  [[nodiscard]] std::uint64_t receive_cpu(std::uint32_t host, std::uint64_t t, std::uint64_t per_byte) {
    if (loggopsim_noise_) {
      return loggopsim_work(host, t, add(p_.overhead_recv.ps, per_byte, host), p_.overhead_recv.ps);
    }
    return cpu_work(host, t, add(p_.overhead_recv.ps, per_byte, host));
  }
  [[nodiscard]] std::uint64_t noisy_work(std::uint32_t host, std::uint64_t t, std::uint64_t d) {
    NoiseState& state = noise_state_[host];
    const std::uint64_t end = noise_->pattern->finish(t, d, state.offset, state.cursor);
    if (end < t || end - t < d) {
      overflow(host);
    }
    return end;
  }

  // `when`: the time the dependency was satisfied. With one CPU and one NIC per host the op's
  // own CPU free time already covers it; with several it may not, so it is kept per op.
  void decrement(std::uint32_t host, std::uint32_t op, std::uint64_t when) {
    const std::size_t slot = hosts_[host].base + op;
    if (multi_) {
      ready_at_[slot] = std::max(ready_at_[slot], when);
    }
    if (--counter_[slot] == 0) {
      ready_.push_back(Ready{host, op, hosts_[host].prog->ops[op].type});
    }
  }
  void mark_started(std::uint32_t host, std::uint32_t op, std::uint64_t when) {
    const Program& pr = *hosts_[host].prog;
    for (std::uint32_t k = pr.succ_begin[2 * static_cast<std::size_t>(op) + 1];
         k < pr.succ_begin[2 * static_cast<std::size_t>(op) + 2]; ++k) {
      decrement(host, pr.succ[k], when);
    }
  }
  void mark_done(std::uint32_t host, std::uint32_t op, std::uint64_t when) {
    const Program& pr = *hosts_[host].prog;
    std::uint32_t& counter = counter_[hosts_[host].base + op];
    // A root receive matched earlier keeps its skip link.
    if ((counter & kDoneBit) == 0) {
      counter = kDone;
    }
    ++completed_;
    if (on_op_done_) [[unlikely]] {
      on_op_done_(host, op, SimTime{when});
    }
    for (std::uint32_t k = pr.succ_begin[2 * static_cast<std::size_t>(op)];
         k < pr.succ_begin[2 * static_cast<std::size_t>(op) + 1]; ++k) {
      decrement(host, pr.succ[k], when);
    }
    if (repeating_) [[unlikely]] {
      if (hosts_[host].shape == kNil) {
        --finite_left_;
        finite_end_ = std::max(finite_end_, when);
      } else {
        part_done(host, op, when);
      }
    }
  }
  // Op `op` of a repeating program completed at `when`: the last one of its part re-arms the
  // part (dependency counts from the program) and makes its roots ready, as the first ops of the
  // next iteration would become ready when the last ones of this one complete.
  void part_done(std::uint32_t host, std::uint32_t op, std::uint64_t when) {
    const Host& h = hosts_[host];
    const RepeatShape& shape = shapes_[h.shape];
    const std::uint32_t part = shape.part_of[op];
    const std::size_t slot = static_cast<std::size_t>(h.part_base) + part;
    if (--part_left_[slot] > 0) {
      return;
    }
    ++part_cycles_[slot];
    part_left_[slot] = shape.part_size(part);
    for (std::uint32_t k = shape.op_begin[part]; k < shape.op_begin[part + 1]; ++k) {
      const std::uint32_t o = shape.ops[k];
      counter_[h.base + o] = h.prog->dep_count[o];
      if (multi_) {
        ready_at_[h.base + o] = when;
      }
    }
    for (std::uint32_t k = shape.root_begin[part]; k < shape.root_begin[part + 1]; ++k) {
      const std::uint32_t o = shape.roots[k];
      ready_.push_back(Ready{host, o, h.prog->ops[o].type});
    }
  }
  // The run is over: every rank that does not repeat has finished (only with repeating ones).
  [[nodiscard]] bool finite_done() const noexcept { return repeating_ && finite_left_ == 0; }
  // SimOptions::stop_flag is set: the run stops here (one load and compare per event).
  [[nodiscard]] bool stop_requested() noexcept {
    if (stop_flag_ != nullptr && *stop_flag_) [[unlikely]] {
      stopped_ = true;
    }
    return stopped_;
  }
  // Stops a run with repeating programs at an event past the time limit (true: do not process it).
  [[nodiscard]] bool past_time_limit(std::uint64_t t) {
    if (repeating_ && t > time_limit_) [[unlikely]] {
      limit_reached_ = true;
      return true;
    }
    return false;
  }

  // The first position >= p of an unmatched root receive of `h` (or root_end). Matched ones link
  // to a later position; the links passed over are pointed at the result, so runs of matched
  // receives are skipped in amortised constant time whatever order they were matched in.
  std::uint32_t next_live_root(const Host& h, std::uint32_t p) {
    const std::uint32_t* roots = h.prog->roots.data();
    std::uint32_t q = p;
    while (q < h.root_end) {
      const std::uint32_t c = counter_[h.base + roots[q]];
      if ((c & kDoneBit) == 0) {
        break;
      }
      q = c & ~kDoneBit;
    }
    while (p != q) {
      std::uint32_t& c = counter_[h.base + roots[p]];
      p = c & ~kDoneBit;
      c = kDoneBit | q;
    }
    return q;
  }

  std::uint32_t new_node(std::uint32_t a, std::uint32_t b) {
    if (free_node_ != kNil) {
      const std::uint32_t id = free_node_;
      free_node_ = pool_[id].next;
      pool_[id] = Node{a, b, kNil};
      return id;
    }
    pool_.push_back(Node{a, b, kNil});
    return static_cast<std::uint32_t>(pool_.size() - 1);
  }
  void append(std::uint32_t& head, std::uint32_t& tail, std::uint32_t node) {
    if (tail == kNil) {
      head = node;
    } else {
      pool_[tail].next = node;
    }
    tail = node;
  }
  void unlink(std::uint32_t& head, std::uint32_t& tail, std::uint32_t prev, std::uint32_t node) {
    const std::uint32_t next = pool_[node].next;
    if (prev == kNil) {
      head = next;
    } else {
      pool_[prev].next = next;
    }
    if (tail == node) {
      tail = prev;
    }
    pool_[node].next = free_node_;
    free_node_ = node;
  }

  // Does receive `recv` posted on `host` match a message from `sender` with `tag`?
  [[nodiscard]] bool matches(std::uint32_t host, std::uint32_t recv_op, std::uint32_t sender,
                             std::uint32_t tag) const {
    const Op& recv = hosts_[host].prog->ops[recv_op];
    if (recv.tag != kAnyTag && recv.tag != tag) {
      return false;
    }
    return recv.peer_offset == kAnySource || peer_of(host, recv_op) == sender;
  }

  void slice(std::uint32_t rank, std::uint8_t track, std::uint8_t kind, std::uint32_t peer,
             std::uint64_t bytes, std::uint64_t start, std::uint64_t end) {
    if (record_ && timeline_.size() < max_slices_) {
      timeline_.push_back(TimelineSlice{rank, track, kind, peer, bytes, SimTime{start}, SimTime{end}});
    }
  }

  // A message (event `payload` for host `to`) leaves `from` when its o_s ends at `o_end`: it
  // arrives L later (LogGOPS), or when the network model delivers it.
  void send_message(std::uint32_t from, std::uint32_t to, std::uint64_t o_end, std::uint64_t bytes,
                    std::uint64_t payload) {
    if (net_ != nullptr) {
      net_->inject(o_end, from, to, bytes, payload);
      return;
    }
    queue_.push_new(add(o_end, p_.latency.ps, from), payload, to);
  }

  // A rendezvous send completes when its receive is matched at time t (LogGOPSim: the
  // sender's CPU and NIC are moved forward to t).
  void rendezvous_matched(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t) {
    // Windowed processing cannot move another host's state at the current time.
    queue_.require_local(sender);
    const Op& op = hosts_[sender].prog->ops[send_op];
    std::uint64_t& cpu = cpu_free(sender, op.cpu);
    std::uint64_t& nic = nic_send_free(sender, op.nic);
    cpu = std::max(cpu, t);
    nic = std::max(nic, t);
    mark_done(sender, send_op, t);
  }

  // The time at which the resources the parked event `payload` of `kind` needs are free.
  [[nodiscard]] std::uint64_t free_time(GroupKind kind, std::uint32_t host) {
    const std::uint64_t cpu = cpu_free(host, 0);
    switch (kind) {
      case kGroupCalc:
        return cpu;
      case kGroupSend:
        return std::max(cpu, nic_send_free(host, 0));
      case kGroupMessage:
        return std::max(cpu, nic_recv_free(host, 0));
      case kGroupKinds:
        break;
    }
    return cpu;
  }
  [[nodiscard]] static std::uint64_t wake_payload(std::uint32_t host, GroupKind kind) {
    return payload_of(host, event_low(kEventWake, kind));
  }
  void park(std::uint32_t host, GroupKind kind, std::uint64_t free, std::uint64_t ts, std::uint64_t payload);
  void process_wake(std::uint32_t host, GroupKind kind, std::uint64_t t);
  void process(const typename Queue::Item& event);
  void dispatch(std::uint64_t payload, std::uint64_t t, std::uint64_t ts);
  void process_cts_send(std::uint32_t host, std::uint32_t recv_op, std::uint64_t t, std::uint64_t ts);
  void process_cts_arrive(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t, std::uint64_t ts);
  void process_rendezvous_data(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t,
                               std::uint64_t ts);
  // With the handshake: a rendezvous message matched by receive `recv_op` on `host` at `t`.
  void handshake_matched(std::uint32_t host, std::uint32_t recv_op, std::uint32_t sender,
                         std::uint32_t send_op, std::uint64_t t);
  void process_op(std::uint32_t host, std::uint32_t op_index, std::uint64_t t, std::uint64_t ts);
  // The message of `send_op` (event `kind`) arriving at its receiver at t: parks it while the
  // receiver's CPU or receive NIC is busy (false), else charges o_r, the per-byte parts (none if
  // `one_byte`) and g, and sets `cpu_end` to the end of the CPU part (true).
  bool handle_arrival(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t, std::uint64_t ts,
                      EventKind kind, bool one_byte, std::uint64_t& cpu_end);
  void process_message(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t, std::uint64_t ts);
  void flush_ready(std::uint64_t now);
  void report_stuck(SimResult& result) const;
  // run()'s set-up: the noise cursors, each rank's host, the dependency counters and the time
  // slots; returns the operations and the root operations of the schedule. Throws InputError
  // for a schedule beyond the simulator's limits.
  std::pair<std::uint64_t, std::uint64_t> prepare();
  // prepare() for the repeating ranks: their parts and their counters.
  void prepare_repeating();
  // The progress counts: with repeating programs only the ranks that do not repeat count.
  [[nodiscard]] SimProgress progress_at(std::uint64_t total, std::uint64_t now) const {
    if (repeating_) {
      return SimProgress{events_, finite_total_ - finite_left_, finite_total_, SimTime{now}, rerun_};
    }
    return SimProgress{events_, completed_, total, SimTime{now}, rerun_};
  }
  // The counts and each rank's finish time (the latest of its CPUs) into `result`.
  void collect_finish(std::uint64_t total, SimResult& result) const;
  // The event loop with a network model (HeapQueue only): the model's next step runs once every
  // engine event before it is processed, and its deliveries become message events.
  void run_with_network(std::uint64_t total, std::uint64_t& next_report, std::uint64_t every);

  Queue queue_;
  const Schedule& s_;
  LogGOPSParams p_;
  bool record_;
  const NoiseInjection* noise_;
  bool loggopsim_noise_;  // Noise under LogGOPSim's rule (SimOptions::noise_rule).
  // Per host: its phase and where it is in the pattern, side by side in one cache line.
  struct alignas(64) NoiseState {
    noise::DetourPattern::Cursor cursor;
    std::uint64_t offset = 0;
  };
  std::vector<NoiseState> noise_state_;
  std::uint64_t max_slices_;
  std::uint32_t ranks_;
  std::uint32_t ncpu_;
  std::uint32_t nnic_;
  bool multi_;  // Several CPUs or NICs per host: track when each op became ready.
  bool fold_;
  bool handshake_;  // Rendezvous messages use the request-to-send / clear-to-send handshake.

  std::uint64_t& cpu_free(std::uint32_t host, std::uint8_t cpu) { return times_[host * stride_ + cpu]; }
  std::uint64_t& nic_send_free(std::uint32_t host, std::uint8_t nic) {
    return times_[host * stride_ + ncpu_ + nic];
  }
  std::uint64_t& nic_recv_free(std::uint32_t host, std::uint8_t nic) {
    return times_[host * stride_ + ncpu_ + nnic_ + nic];
  }
  // Absolute peer of op `op` of `rank` without a division: rank + offset < 2P.
  [[nodiscard]] std::uint32_t peer_of(std::uint32_t rank, std::uint32_t op) const {
    const std::uint64_t p = static_cast<std::uint64_t>(rank) + hosts_[rank].peers[op];
    return static_cast<std::uint32_t>(p >= ranks_ ? p - ranks_ : p);
  }

  std::vector<Host> hosts_;
  std::vector<std::uint32_t> counter_;
  std::vector<std::uint64_t> times_;  // per host: ncpu CPU, nnic NIC-send, nnic NIC-receive free times
  std::size_t stride_ = 0;
  std::vector<Node> pool_;
  std::uint32_t free_node_ = kNil;
  std::vector<Ready> ready_;
  std::vector<std::uint64_t> ready_at_;    // Per op, when multi_: latest satisfied dependency.
  std::vector<std::uint64_t> handled_at_;  // Per pool node, when multi_: unexpected message handled.
  // Per op, when handshake_: a matched rendezvous receive holds payload_of(sender, send op), the
  // send holds its receive's op index.
  std::vector<std::uint64_t> matched_;
  std::vector<Group> groups_;  // kGroupKinds per host, when folding
  std::vector<Parked> parked_;
  std::vector<std::uint32_t> provisional_parked_;  // Windowed: parked entries with a provisional stamp.
  std::uint32_t free_parked_ = kNil;
  std::uint64_t completed_ = 0;
  std::uint64_t messages_ = 0;
  std::uint64_t events_ = 0;
  std::vector<TimelineSlice> timeline_;
  NetworkModel* net_;  // Null: LogGOPS delivery.
  std::vector<NetDelivery> deliveries_;
  const std::function<void(std::uint32_t, std::uint32_t, SimTime)>& on_op_done_;
  const std::function<void(const SimProgress&)>& progress_;
  std::uint64_t progress_every_;
  bool rerun_;  // This run repeats a windowed one in global order (reported to progress_).
  // Repeating programs (Schedule::repeats); the flags side by side (clang-analyzer's padding check).
  bool repeating_ = false;
  bool limit_reached_ = false;
  bool stopped_ = false;  // the stop flag was seen set
  std::vector<RepeatShape> shapes_;
  std::vector<std::uint32_t> part_left_;    // per part of a repeating rank: ops left in this cycle
  std::vector<std::uint64_t> part_cycles_;  // per part of a repeating rank: cycles completed
  std::uint64_t finite_total_ = 0;          // ops of the ranks that do not repeat
  std::uint64_t finite_left_ = 0;           // of which not yet completed
  std::uint64_t stopped_at_ = 0;            // time of the last event processed
  std::uint64_t finite_end_ = 0;            // latest completion of an op that does not repeat
  const bool* stop_flag_ = nullptr;         // SimOptions::stop_flag
  std::uint64_t time_limit_ = std::numeric_limits<std::uint64_t>::max();
};

template <class Queue>
void Engine<Queue>::process_op(std::uint32_t host, std::uint32_t op_index, std::uint64_t t,
                               std::uint64_t ts) {
  const Op& op = hosts_[host].prog->ops[op_index];
  std::uint64_t& cpu = cpu_free(host, op.cpu);
  switch (op.type) {
    case OpType::kCalc: {
      if (cpu > t) {
        park(host, kGroupCalc, cpu, ts, payload_of(host, op_index));
        return;
      }
      cpu = loggopsim_noise_ ? loggopsim_work(host, t, op.size, op.size) : cpu_work(host, t, op.size);
      slice(host, 0, static_cast<std::uint8_t>(OpType::kCalc), 0, 0, t, cpu);
      mark_started(host, op_index, t);
      mark_done(host, op_index, cpu);
      return;
    }
    case OpType::kSend: {
      std::uint64_t& nic = nic_send_free(host, op.nic);
      const std::uint64_t free = std::max(cpu, nic);
      if (free > t) {
        park(host, kGroupSend, free, ts, payload_of(host, op_index));
        return;
      }
      mark_started(host, op_index, t);
      // With the handshake a rendezvous send first sends only a request-to-send, which costs like
      // a one-byte message; the data follows the clear-to-send (process_cts_arrive).
      const bool request_only = handshake_ && op.size > p_.eager_threshold_bytes;
      const std::uint64_t extra = op.size == 0 || request_only ? 0 : op.size - 1;
      const auto [start, o_end, cpu_end] = send_cpu(host, t, mul(extra, p_.overhead_per_byte.ps, host));
      cpu = cpu_end;
      nic = add(add(start, p_.gap.ps, host), mul(extra, p_.gap_per_byte.ps, host), host);
      const std::uint32_t to = peer_of(host, op_index);
      slice(host, 0, static_cast<std::uint8_t>(OpType::kSend), to, op.size, t, cpu);
      slice(host, 1, kMessageKind, to, op.size, t, nic);
      send_message(host, to, o_end, request_only ? 1 : op.size,
                   payload_of(host, event_low(kEventMessage, op_index)));
      ++messages_;
      if (op.size <= p_.eager_threshold_bytes) {
        mark_done(host, op_index, cpu);
      }
      return;
    }
    case OpType::kRecv: {
      mark_started(host, op_index, t);
      std::uint32_t prev = kNil;
      for (std::uint32_t node = hosts_[host].uq_head; node != kNil; prev = node, node = pool_[node].next) {
        const std::uint32_t sender = pool_[node].a;
        const std::uint32_t send_op = pool_[node].b;
        const Op& sop = hosts_[sender].prog->ops[send_op];
        if (!matches(host, op_index, sender, sop.tag)) {
          continue;
        }
        const std::uint64_t bytes = sop.size;
        // The message was handled on arrival; the receive completes when both are done.
        const std::uint64_t done = multi_ ? std::max(t, handled_at_[node]) : t;
        unlink(hosts_[host].uq_head, hosts_[host].uq_tail, prev, node);
        if (bytes > p_.eager_threshold_bytes) {
          if (handshake_) {
            handshake_matched(host, op_index, sender, send_op, done);
            return;
          }
          rendezvous_matched(sender, send_op, t);
        }
        mark_done(host, op_index, done);
        return;
      }
      const std::uint32_t node = new_node(op_index, 0);
      append(hosts_[host].rq_head, hosts_[host].rq_tail, node);
      return;
    }
  }
}

template <class Queue>
bool Engine<Queue>::handle_arrival(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t,
                                   std::uint64_t ts, EventKind kind, bool one_byte, std::uint64_t& cpu_end) {
  const Op& sop = hosts_[sender].prog->ops[send_op];
  const std::uint32_t host = peer_of(sender, send_op);
  std::uint64_t& cpu = cpu_free(host, sop.cpu);
  std::uint64_t& nic = nic_recv_free(host, sop.nic);
  const std::uint64_t free = std::max(cpu, nic);
  if (free > t) {
    park(host, kGroupMessage, free, ts, payload_of(sender, event_low(kind, send_op)));
    return false;
  }
  const std::uint64_t extra = sop.size == 0 || one_byte ? 0 : sop.size - 1;
  std::uint64_t nic_part = mul(extra, p_.gap_per_byte.ps, host);
  std::uint64_t cpu_part = std::max(mul(extra, p_.overhead_per_byte.ps, host), nic_part);
  if (net_ != nullptr) {
    // The model delivered the last byte: the NIC has received the data, and only the part of the
    // copy that LogGOPS would not overlap with the arrival (O above G) is left for the CPU.
    cpu_part -= nic_part;
    nic_part = 0;
  }
  cpu = receive_cpu(host, t, cpu_part);
  nic = add(add(t, p_.gap.ps, host), nic_part, host);
  slice(host, 0, static_cast<std::uint8_t>(OpType::kRecv), sender, sop.size, t, cpu);
  slice(host, 1, kMessageKind, sender, sop.size, t, nic);
  cpu_end = cpu;
  return true;
}

template <class Queue>
void Engine<Queue>::process_message(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t,
                                    std::uint64_t ts) {
  const Op& sop = hosts_[sender].prog->ops[send_op];
  const std::uint32_t host = peer_of(sender, send_op);
  // With the handshake a rendezvous message is first only its request-to-send (one byte).
  const bool request_only = handshake_ && sop.size > p_.eager_threshold_bytes;
  std::uint64_t cpu = 0;
  if (!handle_arrival(sender, send_op, t, ts, kEventMessage, request_only, cpu)) {
    return;
  }
  Host& h = hosts_[host];
  std::uint32_t recv_op = kNil;
  h.root_next = next_live_root(h, h.root_next);
  for (std::uint32_t p = h.root_next; p < h.root_end; p = next_live_root(h, p + 1)) {
    const std::uint32_t op = h.prog->roots[p];
    if (matches(host, op, sender, sop.tag)) {
      recv_op = op;
      counter_[h.base + op] = kDoneBit | (p + 1);  // Off the posted queue.
      break;
    }
  }
  std::uint32_t prev = kNil;
  for (std::uint32_t node = recv_op == kNil ? h.rq_head : kNil; node != kNil;
       prev = node, node = pool_[node].next) {
    if (matches(host, pool_[node].a, sender, sop.tag)) {
      recv_op = pool_[node].a;
      unlink(h.rq_head, h.rq_tail, prev, node);
      break;
    }
  }
  if (recv_op != kNil) {
    if (request_only) {
      handshake_matched(host, recv_op, sender, send_op, cpu);
      return;
    }
    if (sop.size > p_.eager_threshold_bytes) {
      rendezvous_matched(sender, send_op, t);
    }
    mark_done(host, recv_op, cpu);
    return;
  }
  const std::uint32_t node = new_node(sender, send_op);
  append(hosts_[host].uq_head, hosts_[host].uq_tail, node);
  if (multi_) {
    if (handled_at_.size() <= node) {
      handled_at_.resize(pool_.size());
    }
    handled_at_[node] = cpu;
  }
}

template <class Queue>
void Engine<Queue>::handshake_matched(std::uint32_t host, std::uint32_t recv_op, std::uint32_t sender,
                                      std::uint32_t send_op, std::uint64_t t) {
  matched_[hosts_[host].base + recv_op] = payload_of(sender, send_op);
  matched_[hosts_[sender].base + send_op] = recv_op;
  // The clear-to-send is an operation of its own: it waits for the receiver's CPU and NIC.
  queue_.push_new(t, payload_of(host, event_low(kEventCtsSend, recv_op)), host);
}

template <class Queue>
void Engine<Queue>::process_cts_send(std::uint32_t host, std::uint32_t recv_op, std::uint64_t t,
                                     std::uint64_t ts) {
  const Op& rop = hosts_[host].prog->ops[recv_op];
  std::uint64_t& cpu = cpu_free(host, rop.cpu);
  std::uint64_t& nic = nic_send_free(host, rop.nic);
  const std::uint64_t free = std::max(cpu, nic);
  if (free > t) {
    park(host, kGroupSend, free, ts, payload_of(host, event_low(kEventCtsSend, recv_op)));
    return;
  }
  const std::uint64_t matched = matched_[hosts_[host].base + recv_op];
  const auto sender = static_cast<std::uint32_t>(matched >> 32U);
  const auto send_op = static_cast<std::uint32_t>(matched);
  const auto [start, o_end, cpu_end] = send_cpu(host, t, 0);
  // Under gridlock's rule the clear-to-send has no per-byte part to wait for a detour after o_s.
  cpu = loggopsim_noise_ ? cpu_end : o_end;
  nic = add(start, p_.gap.ps, host);
  slice(host, 0, static_cast<std::uint8_t>(OpType::kSend), sender, 0, t, cpu);
  slice(host, 1, kMessageKind, sender, 0, t, nic);
  send_message(host, sender, o_end, 0, payload_of(sender, event_low(kEventCtsArrive, send_op)));
}

template <class Queue>
void Engine<Queue>::process_cts_arrive(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t,
                                       std::uint64_t ts) {
  const Op& sop = hosts_[sender].prog->ops[send_op];
  std::uint64_t& cpu = cpu_free(sender, sop.cpu);
  std::uint64_t& nic_recv = nic_recv_free(sender, sop.nic);
  const std::uint64_t free = std::max(cpu, nic_recv);
  if (free > t) {
    park(sender, kGroupMessage, free, ts, payload_of(sender, event_low(kEventCtsArrive, send_op)));
    return;
  }
  const std::uint32_t to = peer_of(sender, send_op);
  const std::uint64_t handled = receive_cpu(sender, t, 0);
  nic_recv = add(t, p_.gap.ps, sender);
  slice(sender, 0, static_cast<std::uint8_t>(OpType::kRecv), to, 0, t, handled);
  // The data leaves once the clear-to-send is handled and the NIC can send; the resources are
  // claimed now, so later events of this host find them busy until then.
  std::uint64_t& nic_send = nic_send_free(sender, sop.nic);
  const std::uint64_t extra = sop.size - 1;  // > S >= 0
  const auto [start, o_end, cpu_end] =
      send_cpu(sender, std::max(handled, nic_send), mul(extra, p_.overhead_per_byte.ps, sender));
  cpu = cpu_end;
  nic_send = add(add(start, p_.gap.ps, sender), mul(extra, p_.gap_per_byte.ps, sender), sender);
  slice(sender, 0, static_cast<std::uint8_t>(OpType::kSend), to, sop.size, start, cpu);
  slice(sender, 1, kMessageKind, to, sop.size, start, nic_send);
  send_message(sender, to, o_end, sop.size, payload_of(sender, event_low(kEventRendezvous, send_op)));
  mark_done(sender, send_op, cpu);
}

template <class Queue>
void Engine<Queue>::process_rendezvous_data(std::uint32_t sender, std::uint32_t send_op, std::uint64_t t,
                                            std::uint64_t ts) {
  std::uint64_t cpu = 0;
  if (!handle_arrival(sender, send_op, t, ts, kEventRendezvous, false, cpu)) {
    return;
  }
  const auto recv_op = static_cast<std::uint32_t>(matched_[hosts_[sender].base + send_op]);
  mark_done(peer_of(sender, send_op), recv_op, cpu);
}

template <class Queue>
void Engine<Queue>::park(std::uint32_t host, GroupKind kind, std::uint64_t free, std::uint64_t ts,
                         std::uint64_t payload) {
  if (!fold_) {
    queue_.push_retry(free, ts, payload, host);
    return;
  }
  Group& group = groups_[static_cast<std::size_t>(host) * kGroupKinds + kind];
  // Only an event that LogGOPSim would retry at the group's time, after all its members, may join.
  if (group.head != kNil && (group.due != free || ts < parked_[group.tail].ts)) {
    queue_.push_retry(free, ts, payload, host);
    return;
  }
  std::uint32_t id = free_parked_;
  if (id != kNil) {
    free_parked_ = parked_[id].next;
    parked_[id] = Parked{ts, payload, kNil};
  } else {
    id = static_cast<std::uint32_t>(parked_.size());
    parked_.push_back(Parked{ts, payload, kNil});
  }
  if constexpr (Queue::kWindowed) {
    if (Queue::provisional(ts)) {
      provisional_parked_.push_back(id);
    }
  }
  if (group.head == kNil) {
    group.head = id;
    group.due = free;
    // The wake-up entry carries the head's stamp, so it runs exactly where the head's own retry
    // would have run.
    queue_.push_retry(free, ts, wake_payload(host, kind), host);
  } else {
    parked_[group.tail].next = id;
  }
  group.tail = id;
}

template <class Queue>
void Engine<Queue>::process_wake(std::uint32_t host, GroupKind kind, std::uint64_t t) {
  Group& group = groups_[static_cast<std::size_t>(host) * kGroupKinds + kind];
  assert(group.head != kNil && group.due == t);
  const std::uint32_t id = group.head;
  const Parked head = parked_[id];
  const std::uint64_t free = free_time(kind, host);
  if (free > t && cpu_free(host, 0) > t) {
    // Every member would be retried at (t, its stamp) and find the host exactly as the head did:
    // while the CPU is busy no event of this host can run at t (recvs use no CPU and only ever
    // raise free times to t), so each one's retry is a no-op that moves it to `free`.
    group.due = free;
    queue_.push_retry(free, head.ts, wake_payload(host, kind), host);
    return;
  }
  group.head = head.next;
  if (group.head == kNil) {
    group.tail = kNil;
  }
  parked_[id].next = free_parked_;
  free_parked_ = id;
  if (group.head != kNil) {
    queue_.push_retry(t, parked_[group.head].ts, wake_payload(host, kind), host);
  }
  if (free > t) {
    // Only a NIC is busy: an event of another kind may still run at t and change the CPU's free
    // time, so the members are not moved together; the head retries on its own.
    queue_.push_retry(free, head.ts, head.payload, host);
    return;
  }
  dispatch(head.payload, t, head.ts);
}

template <class Queue>
void Engine<Queue>::flush_ready(std::uint64_t now) {
  if (ready_.empty()) {
    return;
  }
  // LogGOPSim order: hosts ascending; on each host sends, then receives, then calcs, each in the
  // order they became ready. Ready lists are tiny, so insertion sort.
  for (std::size_t i = 1; i < ready_.size(); ++i) {
    const Ready item = ready_[i];
    std::size_t j = i;
    while (j > 0 && (ready_[j - 1].host > item.host ||
                     (ready_[j - 1].host == item.host && ready_[j - 1].type > item.type))) {
      ready_[j] = ready_[j - 1];
      --j;
    }
    ready_[j] = item;
  }
  for (const Ready& r : ready_) {
    const Op& op = hosts_[r.host].prog->ops[r.op];
    // An op cannot start before it became ready: with several CPUs, the one it runs on may have
    // been idle since long before its dependencies were satisfied.
    std::uint64_t time = std::max(cpu_free(r.host, op.cpu), now);
    if (multi_) {
      time = std::max(time, ready_at_[hosts_[r.host].base + r.op]);
    }
    if (op.type == OpType::kSend) {
      time = std::max(time, nic_send_free(r.host, op.nic));
    }
    queue_.push_new(time, payload_of(r.host, r.op), r.host);
  }
  ready_.clear();
}

template <class Queue>
void Engine<Queue>::dispatch(std::uint64_t payload, std::uint64_t t, std::uint64_t ts) {
  const auto host = static_cast<std::uint32_t>(payload >> 32U);
  const auto low = static_cast<std::uint32_t>(payload);
  const std::uint32_t index = low & kIndexMask;
  switch (static_cast<EventKind>(low >> kKindShift)) {
    case kEventOp:
      process_op(host, index, t, ts);
      return;
    case kEventMessage:
      process_message(host, index, t, ts);
      return;
    case kEventWake:
      process_wake(host, static_cast<GroupKind>(index), t);
      return;
    case kEventCtsSend:
      process_cts_send(host, index, t, ts);
      return;
    case kEventCtsArrive:
      process_cts_arrive(host, index, t, ts);
      return;
    case kEventRendezvous:
      process_rendezvous_data(host, index, t, ts);
      return;
  }
  // Only this file encodes events: another kind is a corrupt queue, not a bad schedule.
  throw InternalError(
      fmt::format("the simulator dequeued an event of unknown kind {} (sim engine)", low >> kKindShift));
}

template <class Queue>
void Engine<Queue>::process(const typename Queue::Item& event) {
  ++events_;
  dispatch(event.payload, event.time, event.ts);
  flush_ready(event.time);
}

template <class Queue>
void Engine<Queue>::report_stuck(SimResult& result) const {
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    if (hosts_[r].shape != kNil) {
      continue;  // A repeating rank is never done.
    }
    const Program& pr = *hosts_[r].prog;
    bool rank_stuck = false;
    for (std::uint32_t i = 0; i < pr.ops.size(); ++i) {
      const std::uint32_t c = counter_[hosts_[r].base + i];
      if ((c & kDoneBit) != 0) {
        continue;
      }
      if (!rank_stuck) {
        rank_stuck = true;
        ++result.stuck_ranks;
        if (result.stuck.size() < kMaxStuckListed) {
          std::string state;
          if (c > 0) {
            state = fmt::format("never started: waits for {} unfinished dependencies", c);
          } else if (pr.ops[i].type == OpType::kRecv) {
            state = "posted, but no matching message ever arrived";
          } else if (pr.ops[i].type == OpType::kSend) {
            state = "rendezvous send: the receiver never posted a matching receive";
          } else {
            state = "ready but never ran";
          }
          result.stuck.push_back(StuckOp{r, i, describe_op(s_, r, i), std::move(state)});
        }
      }
    }
  }
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    if (hosts_[r].shape != kNil) {
      continue;  // Messages of the next iteration may wait there when the run stops.
    }
    for (std::uint32_t node = hosts_[r].uq_head; node != kNil; node = pool_[node].next) {
      ++result.unexpected_left;
      if (result.stuck.size() < kMaxStuckListed) {
        result.stuck.push_back(StuckOp{pool_[node].a, pool_[node].b,
                                       describe_op(s_, pool_[node].a, pool_[node].b),
                                       fmt::format("message to rank {} was never received", r)});
      }
    }
  }
}

template <class Queue>
void Engine<Queue>::run_with_network(std::uint64_t total, std::uint64_t& next_report, std::uint64_t every) {
  if constexpr (std::is_same_v<Queue, detail::HeapQueue>) {
    // A model that neither delivers nor moves its next time forward would spin here for ever.
    std::uint64_t last_net = 0;
    std::uint32_t stalled = 0;
    for (;;) {
      if (finite_done() || limit_reached_ || stop_requested()) {
        return;
      }
      const std::uint64_t net_time = net_->next_time();
      if (net_time != kNetIdle && (queue_.empty() || net_time < queue_.next_time())) {
        deliveries_.clear();
        net_->advance(net_time, deliveries_);
        for (const NetDelivery& d : deliveries_) {
          assert(d.time_ps >= net_time);
          queue_.push_new(d.time_ps, d.token, d.dst);
        }
        stalled = deliveries_.empty() && net_time == last_net ? stalled + 1 : 0;
        if (stalled > 1'000'000) {
          throw InternalError(fmt::format("the network model ({}) makes no progress at {} ps (sim engine)",
                                          net_->describe(), net_time));
        }
        last_net = net_time;
        continue;
      }
      if (queue_.empty()) {
        return;
      }
      const typename Queue::Item event = queue_.pop();
      if (past_time_limit(event.time)) {
        return;
      }
      stopped_at_ = event.time;
      process(event);
      if (events_ >= next_report) [[unlikely]] {
        progress_(progress_at(total, event.time));
        next_report = events_ + every;
      }
    }
  }
}

template <class Queue>
std::pair<std::uint64_t, std::uint64_t> Engine<Queue>::prepare() {
  hosts_.resize(ranks_);
  if (noise_ != nullptr) {
    if (noise_->offset_ps.size() != 1 && noise_->offset_ps.size() != ranks_) {
      throw InputError(fmt::format("noise injection has {} phases for {} ranks (give one or one per rank)",
                                   noise_->offset_ps.size(), ranks_));
    }
    // Every rank's first query is at t >= 0, pattern time >= its phase: one cursor each from
    // there, found together (a binary search per rank over a long trace misses the cache at
    // nearly every step; docs/performance.md, "Simulator under noise").
    const std::vector<std::uint64_t>& phases = noise_->offset_ps;
    const std::vector<noise::DetourPattern::Cursor> cursors = noise_->pattern->cursors_at(phases);
    noise_state_.resize(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r) {
      const std::size_t i = phases.size() == 1 ? 0 : r;
      noise_state_[r] = NoiseState{cursors[i], phases[i]};
    }
  }
  std::uint64_t total = 0;
  std::uint64_t roots = 0;
  std::uint32_t root_begin = 0;
  std::uint32_t root_end = 0;
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    const Program* prog = &s_.program_of(r);
    if (r == 0 || prog != hosts_[r - 1].prog) {
      // Roots are ordered by type (sends, receives, calcs), so the root receives are one run.
      const auto type_below = [prog](OpType type) {
        return [prog, type](std::uint32_t op) { return prog->ops[op].type < type; };
      };
      root_begin = static_cast<std::uint32_t>(
          std::partition_point(prog->roots.begin(), prog->roots.end(), type_below(OpType::kRecv)) -
          prog->roots.begin());
      root_end = static_cast<std::uint32_t>(
          std::partition_point(prog->roots.begin(), prog->roots.end(), type_below(OpType::kCalc)) -
          prog->roots.begin());
    }
    hosts_[r] = Host{prog,
                     s_.peer_offsets(r).data(),
                     static_cast<std::uint32_t>(total),
                     kNil,
                     kNil,
                     kNil,
                     kNil,
                     root_begin,
                     root_end,
                     kNil,
                     0};
    if (prog->ops.size() >= kEngineOpsPerRankLimit) {
      throw InputError(fmt::format("rank {} has {} operations; the simulator handles at most {} per rank", r,
                                   prog->ops.size(), kEngineOpsPerRankLimit - 1));
    }
    total += prog->ops.size();
    roots += prog->roots.size();
    if (total >= kDone) {
      throw InputError(
          fmt::format("the schedule has more than {} operations, the simulator's limit", kDone - 1));
    }
  }
  counter_.resize(total);
  if (multi_) {
    ready_at_.assign(total, 0);
  }
  if (handshake_) {
    matched_.assign(total, 0);
  }
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    std::copy(hosts_[r].prog->dep_count.begin(), hosts_[r].prog->dep_count.end(),
              counter_.begin() + hosts_[r].base);
  }
  stride_ = ncpu_ + 2 * static_cast<std::size_t>(nnic_);
  times_.assign(ranks_ * stride_, 0);
  if (fold_) {
    groups_.assign(static_cast<std::size_t>(ranks_) * kGroupKinds, Group{});
  }
  pool_.reserve(ranks_);
  finite_total_ = total;
  if (repeating_) {
    prepare_repeating();
  }
  finite_left_ = finite_total_;
  return {total, roots};
}

template <class Queue>
void Engine<Queue>::prepare_repeating() {
  std::unordered_map<const Program*, std::uint32_t> shape_of;
  std::vector<std::uint32_t> parent;
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    if (!s_.repeats(r)) {
      continue;
    }
    Host& h = hosts_[r];
    const Program* prog = h.prog;
    finite_total_ -= prog->ops.size();
    // Its root receives are posted through the ordinary path (process_op), which matches the
    // unexpected queue first: a later iteration's may find messages waiting there.
    h.root_next = 0;
    h.root_end = 0;
    auto [it, added] = shape_of.try_emplace(prog, static_cast<std::uint32_t>(shapes_.size()));
    if (added) {
      shapes_.push_back(make_repeat_shape(*prog, parent));
    }
    h.shape = it->second;
    h.part_base = static_cast<std::uint32_t>(part_left_.size());
    // Each part starts with all its ops left.
    const RepeatShape& shape = shapes_[h.shape];
    for (std::uint32_t p = 0; p < shape.parts(); ++p) {
      part_left_.push_back(shape.part_size(p));
    }
  }
  if (finite_total_ == 0) {
    throw InputError(
        "every rank with operations repeats: nothing would end the run (a repeating program runs until "
        "the ranks that do not repeat have finished)");
  }
  part_cycles_.assign(part_left_.size(), 0);
}

template <class Queue>
void Engine<Queue>::collect_finish(std::uint64_t total, SimResult& result) const {
  result.ops_total = total;
  result.ops_completed = completed_;
  if (repeating_) {
    result.ops_total = finite_total_;
    result.ops_completed = finite_total_ - finite_left_;
    result.stopped_at = SimTime{std::max(stopped_at_, finite_end_)};
    result.time_limit_reached = limit_reached_;
    result.repeat_cycles.assign(ranks_, 0);
    for (std::uint32_t r = 0; r < ranks_; ++r) {
      const Host& h = hosts_[r];
      if (h.shape == kNil) {
        continue;
      }
      const std::uint32_t parts = shapes_[h.shape].parts();
      std::uint64_t fewest = parts == 0 ? 0 : std::numeric_limits<std::uint64_t>::max();
      for (std::uint32_t p = 0; p < parts; ++p) {
        fewest = std::min(fewest, part_cycles_[h.part_base + p]);
      }
      result.repeat_cycles[r] = fewest;
    }
  }
  result.messages = messages_;
  result.events = events_;
  result.finish.resize(ranks_);
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    std::uint64_t f = 0;
    for (std::uint32_t c = 0; c < ncpu_; ++c) {
      f = std::max(f, times_[r * stride_ + c]);
    }
    result.finish[r] = SimTime{f};
    if (f > result.max_finish.ps) {
      result.max_finish = SimTime{f};
      result.max_finish_rank = r;
    }
  }
}

template <class Queue>
SimResult Engine<Queue>::run() {
  SimResult result;
  const auto [total, roots] = prepare();
  if (net_ != nullptr) {
    net_->begin(ranks_, p_);
  }
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  // The initial ops have the smallest stamps and time 0: run them in order without queueing.
  queue_.set_next_ts(roots);
  std::uint64_t index = 0;
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    const Program& pr = *hosts_[r].prog;
    queue_.enter_root(r);
    for (const std::uint32_t op : pr.roots) {
      ++events_;
      if (pr.ops[op].type == OpType::kRecv && hosts_[r].shape == kNil) {
        // No message has been handled yet (none arrives before every root has run), so a root
        // receive only starts and joins the posted queue, where it already is (Host).
        mark_started(r, op, 0);
      } else {
        dispatch(payload_of(r, op), 0, index);
      }
      ++index;
      flush_ready(0);
    }
  }
  queue_.end_roots();
  // Progress is one compare per event; the call itself comes every few million events.
  const std::uint64_t every = std::max<std::uint64_t>(1, progress_every_);
  std::uint64_t next_report = progress_ ? events_ + every : std::numeric_limits<std::uint64_t>::max();
  if constexpr (std::is_same_v<Queue, detail::HeapQueue>) {
    if (net_ != nullptr) {
      run_with_network(total, next_report, every);
    }
  }
  while (!queue_.empty() && !queue_.failed() && !finite_done() && !limit_reached_ && !stop_requested()) {
    if constexpr (Queue::kWindowed) {
      if (queue_.window_done()) {
        // Stamps handed out in the window become LogGOPSim's (detail/window_queue.hpp).
        queue_.close_window();
        for (const std::uint32_t id : provisional_parked_) {
          parked_[id].ts = queue_.final_stamp(parked_[id].ts);
        }
        provisional_parked_.clear();
      }
    }
    const typename Queue::Item event = queue_.pop();
    if (past_time_limit(event.time)) {
      break;
    }
    stopped_at_ = event.time;
    process(event);
    if (events_ >= next_report) [[unlikely]] {
      progress_(progress_at(total, event.time));
      next_report = events_ + every;
    }
  }
  result.wall_seconds = seconds_since(start);
  result.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;

  if (queue_.failed()) {
    return result;
  }
  collect_finish(total, result);
  if (stopped_) {
    // Stopped as asked: what did not run was cut off, not stuck.
    result.stopped_by_request = true;
    result.stopped_at = SimTime{stopped_at_};
    result.complete = true;
    result.timeline = std::move(timeline_);
    return result;
  }
  report_stuck(result);
  if (net_ != nullptr) {
    result.network_in_flight = net_->in_flight();
  }
  if (repeating_) {
    // Messages of the repeating ranks are still on their way when the run stops.
    result.complete = finite_left_ == 0 && !limit_reached_ && result.unexpected_left == 0;
  } else {
    result.complete = completed_ == total && result.unexpected_left == 0 && result.network_in_flight == 0;
  }
  result.timeline = std::move(timeline_);
  return result;
}

// Below this many ranks the hosts' state fits in the caches, so visiting them at random costs
// little and the windows' bookkeeping can cost more (docs/performance.md, "Simulator under noise").
constexpr std::uint32_t kWindowedMinRanks = 2048;

// Windowed processing (detail/window_queue.hpp) applies when every event that one host causes on
// another is at least o_s + L later; returns that lookahead, or 0 where the global order is used:
// no timeline (its slices would come out host by host), and, under EventOrder::kAuto, only with
// noise at a phase per rank, the stream in which nearly every event has its own time, on at
// least kWindowedMinRanks ranks.
std::uint64_t window_lookahead(const Schedule& schedule, const SimOptions& options) {
  if (options.event_order == EventOrder::kGlobal || options.record_timeline || schedule.num_ranks() < 2 ||
      options.network != nullptr || schedule.has_repeating() || options.stop_flag != nullptr) {
    return 0;
  }
  if (options.event_order == EventOrder::kAuto &&
      (options.noise == nullptr || options.noise->pattern == nullptr || options.noise->offset_ps.size() < 2 ||
       schedule.num_ranks() < kWindowedMinRanks)) {
    return 0;
  }
  std::uint64_t lookahead = 0;
  if (__builtin_add_overflow(options.params.overhead_send.ps, options.params.latency.ps, &lookahead)) {
    lookahead = std::numeric_limits<std::uint64_t>::max();
  }
  return lookahead;
}

const char* type_name(OpType type) {
  switch (type) {
    case OpType::kSend:
      return "send";
    case OpType::kRecv:
      return "recv";
    case OpType::kCalc:
      return "calc";
  }
  return "?";
}

}  // namespace

const char* to_string(NoiseRule rule) noexcept {
  return rule == NoiseRule::kLogGOPSim ? "loggopsim" : "gridlock";
}

NoiseRule parse_noise_rule(const std::string& text, const std::string& what) {
  if (text == "gridlock") {
    return NoiseRule::kGridlock;
  }
  if (text == "loggopsim") {
    return NoiseRule::kLogGOPSim;
  }
  throw InputError(
      fmt::format("{} '{}': give gridlock (noise before a send delays its message; the default) "
                  "or loggopsim (LogGOPSim's rule; docs/sim-model.md, \"Differences\")",
                  what, text));
}

std::string describe_op(const Schedule& schedule, std::uint32_t rank, std::uint32_t op_index) {
  const Op& op = schedule.program_of(rank).ops[op_index];
  std::string text;
  if (op.type == OpType::kCalc) {
    text = fmt::format("rank {} op {}: calc {}ps", rank, op_index, op.size);
  } else {
    const std::uint32_t peer = schedule.peer(rank, op_index);
    text = fmt::format("rank {} op {}: {} {}b {} {}", rank, op_index, type_name(op.type), op.size,
                       op.type == OpType::kSend ? "to" : "from",
                       peer == kAnySource ? std::string("-1") : std::to_string(peer));
    text += op.tag == kAnyTag ? std::string(" tag -1") : fmt::format(" tag {}", op.tag);
  }
  if (rank < schedule.sources().size()) {
    const RankSource& src = schedule.sources()[rank];
    if (const std::string_view label = schedule.label_of(rank, op_index); !label.empty()) {
      text += fmt::format(" (label {})", label);
    }
    if (op_index < src.where.size()) {
      text += fmt::format(" at line {}", src.where[op_index].line);
    }
  }
  return text;
}

void describe_stuck_ops(SimResult& result, const Schedule& schedule) {
  for (StuckOp& s : result.stuck) {
    if (s.rank < schedule.num_ranks() && s.op < schedule.program_of(s.rank).ops.size()) {
      s.description = describe_op(schedule, s.rank, s.op);
    }
  }
}

std::string stuck_report(const SimResult& result) {
  std::string text = fmt::format(
      "the simulation deadlocked or left messages unmatched: {} of {} operations completed, {} ranks have "
      "unfinished operations, {} messages were never received\n",
      result.ops_completed, result.ops_total, result.stuck_ranks, result.unexpected_left);
  if (result.network_in_flight > 0) {
    text += fmt::format("  {} messages were still in the network model\n", result.network_in_flight);
  }
  for (const StuckOp& s : result.stuck) {
    text += fmt::format("  {}: {}\n", s.description, s.state);
  }
  if (result.stuck_ranks + result.unexpected_left > result.stuck.size()) {
    text += "  ...\n";
  }
  return text;
}

SimResult simulate(const Schedule& schedule, const SimOptions& options) {
  if (schedule.num_ranks() == 0) {
    SimResult empty;
    empty.complete = true;
    return empty;
  }
  if (schedule.has_repeating()) {
    if (options.repeat_time_limit.ps == 0) {
      throw InputError(
          "a schedule with repeating programs needs SimOptions::repeat_time_limit: without one a rank that "
          "never finishes would keep the repeating ones running for ever");
    }
    if (options.params.rendezvous_handshake) {
      // A handshaken send completes at its clear-to-send, before its data arrives: its part could
      // start again and match anew while the data of the last iteration is still on its way.
      throw InputError("repeating programs cannot be simulated with the rendezvous handshake");
    }
  }
  if (const std::uint64_t lookahead = window_lookahead(schedule, options); lookahead > 0) {
    SimResult result;
    bool ok = false;
    try {
      Engine<detail::WindowQueue> engine(schedule, options,
                                         detail::WindowQueue(lookahead, schedule.num_ranks()));
      result = engine.run();
      ok = !engine.order_failed();
    } catch (const InputError&) {
      // Rerun in global order below: it reports the error exactly where LogGOPSim's order meets it.
    }
    if (ok) {
      result.windowed = true;
      return result;
    }
    // The attempt's time is spent all the same: count it, so events per second stay honest.
    SimResult global = Engine<detail::EventQueue>(schedule, options, detail::EventQueue{}, true).run();
    global.wall_seconds += result.wall_seconds;
    global.cpu_seconds += result.cpu_seconds;
    return global;
  }
  if (options.network != nullptr) {
    return Engine<detail::HeapQueue>(schedule, options, detail::HeapQueue{}).run();
  }
  return Engine<detail::EventQueue>(schedule, options, detail::EventQueue{}).run();
}

}  // namespace gridlock::sim
