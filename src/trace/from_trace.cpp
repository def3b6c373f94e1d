#include "gridlock/trace/from_trace.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/sim/generate.hpp"

namespace gridlock::trace {
namespace {

constexpr std::uint32_t kNotKept = 0xFFFFFFFFU;
// Tags one collective uses (sim::emit_collective: tag_base .. tag_base + 5).
constexpr std::uint32_t kTagsPerCollective = 6;
// A position made of more ops than this is joined by a zero-time calc first, so that the ops
// after it carry one dependency, not dozens (a Waitall over a large halo).
constexpr std::size_t kMaxPositionOps = 8;
// Unmatched channels listed in an error message.
constexpr std::size_t kListed = 5;

// One collective call, as all members of its communicator made it: the k-th collective on a
// communicator is the same operation on every member (MPI's ordering rule).
struct Instance {
  CollectiveOp op = CollectiveOp::kBarrier;
  std::uint32_t root = kNoRoot;  // in the communicator
  std::uint32_t first_rank = 0;  // the first rank that called it (messages)
  std::uint32_t seen = 0;        // kept members that called it
  std::uint64_t max_sent = 0;
  std::uint64_t max_received = 0;
  std::uint64_t sum_sent = 0;
  std::uint64_t sum_received = 0;
};

// A point-to-point channel: sender, receiver (traced world ranks) and schedule tag.
struct Channel {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::uint32_t tag = 0;
  friend bool operator==(const Channel&, const Channel&) = default;
};

struct ChannelHash {
  std::size_t operator()(const Channel& c) const noexcept {
    std::uint64_t h = (static_cast<std::uint64_t>(c.from) << 32U) ^ c.to;
    h ^= (static_cast<std::uint64_t>(c.tag) + 0x9E3779B97F4A7C15ULL) + (h << 6U) + (h >> 2U);
    return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ULL);
  }
};

struct ChannelCounts {
  std::uint64_t sends = 0;
  std::uint64_t recvs = 0;
};

// The generator kind and step of one collective instance, or nullopt when it is not converted.
struct Mapped {
  sim::CollectiveStep first;
  std::optional<sim::CollectiveStep> second;  // reduce_scatter: reduce, then scatter
};

std::uint64_t mean(std::uint64_t sum, std::uint64_t n) { return n == 0 ? 0 : sum / n; }

// The completions and cancellations of one rank's requests, by request id: both passes look a
// request's completion up where the request starts. Receives and nonblocking collectives are kept
// apart (a corrupt trace may use one id for both).
struct RequestIndex {
  explicit RequestIndex(std::span<const Event> events) {
    for (const Event& e : events) {
      if (e.kind == EventKind::kIrecv) {
        recv_done[e.request] = &e;
      } else if (e.kind == EventKind::kNonblockingCollectiveComplete) {
        nbc_done[e.request] = &e;
      } else if (e.kind == EventKind::kRequestCancelled) {
        cancelled[e.request] = true;
      }
    }
  }
  std::unordered_map<std::uint64_t, const Event*> recv_done;
  std::unordered_map<std::uint64_t, const Event*> nbc_done;
  std::unordered_map<std::uint64_t, bool> cancelled;
};

class Converter {
 public:
  Converter(TraceReader& trace, const ConvertOptions& options)
      : trace_(trace), info_(trace.info()), opt_(options) {
    if (!(options.compute_scale > 0.0) || options.compute_scale > 1e6 ||
        !std::isfinite(options.compute_scale)) {
      throw InputError(
          fmt::format("--compute-scale {}: use a factor above 0 and at most 1e6 (or --no-compute)",
                      options.compute_scale));
    }
    if (info_.num_ranks == 0) {
      throw InputError(fmt::format("{}: the trace has no ranks", info_.path));
    }
    kept_.assign(info_.num_ranks, kNotKept);
    if (options.ranks.empty()) {
      for (std::uint32_t r = 0; r < info_.num_ranks; ++r) {
        kept_[r] = r;
      }
      num_kept_ = info_.num_ranks;
    } else {
      for (const std::uint32_t r : options.ranks) {
        if (r >= info_.num_ranks) {
          throw InputError(fmt::format("--ranks-subset: rank {} is not in the trace (ranks 0 .. {})", r,
                                       info_.num_ranks - 1));
        }
        if (kept_[r] == kNotKept) {
          kept_[r] = num_kept_++;
        }
      }
    }
    for (const auto& [kind, algo] : options.algorithms) {
      const std::vector<std::string> algos = sim::collective_algorithms(kind);
      if (std::find(algos.begin(), algos.end(), algo) == algos.end()) {
        throw InputError(fmt::format("--algo {}={}: use one of {}", kind, algo, fmt::join(algos, ", ")));
      }
    }
    // The kept members of each communicator, in communicator order.
    for (const auto& [id, comm] : info_.comms) {
      if (std::string why = bad_members(id, comm); !why.empty()) {
        bad_comms_.emplace(id, std::move(why));
        continue;
      }
      std::vector<std::uint32_t>& kept = kept_members_[id];
      if (comm.self) {
        continue;  // each rank alone: its members list (if any) is not used
      }
      for (const std::uint32_t m : comm.members) {
        if (kept_[m] != kNotKept) {
          kept.push_back(kept_[m]);
        }
      }
    }
    copies_ = options.extrapolate;
    if (copies_ == 0 || static_cast<std::uint64_t>(copies_) * num_kept_ > sim::kMaxRanks) {
      throw InputError(fmt::format("--extrapolate {}: use 1 .. {} for {} ranks", options.extrapolate,
                                   sim::kMaxRanks / num_kept_, num_kept_));
    }
    report_.traced_ranks = info_.num_ranks;
    report_.ranks = num_kept_ * copies_;
    report_.copies = copies_;
    report_.wall_ns.assign(num_kept_, 0);
    report_.compute_ns.assign(num_kept_, 0);
  }

  ConvertedTrace run() {
    trace_.for_each_rank([this](std::uint32_t rank, std::span<const Event> events) { survey(rank, events); });
    check_matching();
    if (copies_ > 1) {
      check_extrapolable();
    }
    sim::ScheduleBuilder builder(num_kept_ * copies_);
    trace_.for_each_rank([&](std::uint32_t rank, std::span<const Event> events) {
      if (kept_[rank] != kNotKept) {
        for (std::uint32_t copy = 0; copy < copies_; ++copy) {
          build_rank(builder, rank, copy, events);
        }
      }
    });
    // Each copy of a rank has the traced rank's times.
    for (std::vector<std::uint64_t>* per_rank : {&report_.wall_ns, &report_.compute_ns}) {
      const std::vector<std::uint64_t> once = *per_rank;
      for (std::uint32_t copy = 1; copy < copies_; ++copy) {
        per_rank->insert(per_rank->end(), once.begin(), once.end());
      }
    }
    return {builder.finish(), std::move(report_)};
  }

 private:
  // ---- pass 1: collectives, message channels, tags ----

  const Communicator& comm_of(const Event& e, std::uint32_t rank) const {
    const auto it = info_.comms.find(e.comm);
    if (it == info_.comms.end()) {
      throw InputError(
          fmt::format("{}: rank {}: an event at {} ns names communicator {}, which the archive does "
                      "not define (an intercommunicator or a communicator the tracer could not "
                      "follow; docs/tracing.md \"Limits\")",
                      info_.path, rank, e.time_ns, e.comm));
    }
    if (const auto bad = bad_comms_.find(e.comm); bad != bad_comms_.end()) {
      throw InputError(fmt::format("{} (named by rank {} at {} ns)", bad->second, rank, e.time_ns));
    }
    return it->second;
  }

  // Why a communicator's members are not distinct ranks of the trace (empty if they are): such
  // a definition would make collectives emit messages to ranks that do not exist or to one rank
  // twice. Refused when an event names it (comm_of), so that a trace that never uses it converts.
  [[nodiscard]] std::string bad_members(std::uint32_t id, const Communicator& comm) const {
    if (comm.self) {
      return {};
    }
    std::vector<bool> seen(info_.num_ranks, false);
    for (std::size_t i = 0; i < comm.members.size(); ++i) {
      const std::uint32_t m = comm.members[i];
      if (m >= info_.num_ranks || seen[m]) {
        return fmt::format(
            "{}: communicator {} ('{}'): member {} is rank {}, which {} (a corrupt archive: its "
            "communicator definitions do not match its {} ranks)",
            info_.path, id, comm.name, i, m,
            m >= info_.num_ranks ? "is not a rank of the trace" : "is a member already", info_.num_ranks);
      }
      seen[m] = true;
    }
    return {};
  }

  std::uint32_t comm_size(const Communicator& c) const {
    return c.self ? 1 : static_cast<std::uint32_t>(c.members.size());
  }

  // The traced world rank of communicator rank `peer`.
  std::uint32_t world_of(const Event& e, std::uint32_t rank, std::uint32_t peer) const {
    const Communicator& c = comm_of(e, rank);
    if (c.self) {
      if (peer != 0) {
        throw InputError(
            fmt::format("{}: rank {}: a message at {} ns to or from rank {} of a self communicator",
                        info_.path, rank, e.time_ns, peer));
      }
      return rank;
    }
    if (peer >= c.members.size()) {
      throw InputError(
          fmt::format("{}: rank {}: a message at {} ns names rank {} of communicator {} ('{}'), which "
                      "has {} ranks",
                      info_.path, rank, e.time_ns, peer, e.comm, c.name, c.members.size()));
    }
    return c.members[peer];
  }

  std::uint32_t tag_of(std::uint32_t comm, std::uint32_t tag) {
    const std::uint64_t key = (static_cast<std::uint64_t>(comm) << 32U) | tag;
    const auto [it, added] = tags_.try_emplace(key, static_cast<std::uint32_t>(tags_.size()));
    return it->second;
  }

  [[nodiscard]] std::uint32_t known_tag(std::uint32_t comm, std::uint32_t tag) const {
    return tags_.at((static_cast<std::uint64_t>(comm) << 32U) | tag);
  }

  void survey(std::uint32_t rank, std::span<const Event> events) {
    report_.events += events.size();
    // A nonblocking collective is numbered among its communicator's collectives when it starts
    // (MPI orders them by start), but its communicator is named at its completion. A nonblocking
    // receive is counted where pass 2 converts it: at its request, with the sender and tag of its
    // completion (so that a completion without its request, or a request id used twice, gives
    // unmatched messages here rather than a schedule that deadlocks).
    const RequestIndex index(events);
    const auto& nbc_done = index.nbc_done;
    const auto& recv_done = index.recv_done;
    const auto& cancelled = index.cancelled;
    const bool kept = kept_[rank] != kNotKept;
    std::unordered_map<std::uint32_t, std::uint64_t> calls;  // collectives so far per communicator
    for (const Event& e : events) {
      switch (e.kind) {
        case EventKind::kSend:
        case EventKind::kIsend:
          if (e.kind == EventKind::kIsend && cancelled.contains(e.request)) {
            break;
          }
          count_channel(rank, world_of(e, rank, e.peer), tag_of(e.comm, e.tag), true);
          break;
        case EventKind::kRecv:
          count_channel(world_of(e, rank, e.peer), rank, tag_of(e.comm, e.tag), false);
          break;
        case EventKind::kIrecvRequest:
          if (const auto it = recv_done.find(e.request);
              it != recv_done.end() && !cancelled.contains(e.request)) {
            const Event& d = *it->second;
            count_channel(world_of(d, rank, d.peer), rank, tag_of(d.comm, d.tag), false);
          }
          break;
        case EventKind::kCollectiveEnd:
          if (kept) {
            add_instance(rank, e, calls[e.comm]++);
          }
          break;
        case EventKind::kNonblockingCollective:
          if (const auto it = nbc_done.find(e.request); it != nbc_done.end() && kept) {
            add_instance(rank, *it->second, calls[it->second->comm]++);
          }
          break;
        default:
          break;
      }
    }
    if (kept && !events.empty()) {
      // The program's own run: from MPI_Init's end to MPI_Finalize's start (start-up and tear-down
      // take a second or more and are not in the schedule), else the first and last events.
      std::uint64_t begin = events.front().time_ns;
      std::uint64_t end = events.back().time_ns;
      for (const Event& e : events) {
        if (e.kind == EventKind::kLeave && is_region(e.peer, "MPI_Init", "MPI_Init_thread")) {
          begin = e.time_ns;
          break;
        }
      }
      for (auto it = events.rbegin(); it != events.rend(); ++it) {
        if (it->kind == EventKind::kEnter && is_region(it->peer, "MPI_Finalize", "MPI_Finalize")) {
          end = it->time_ns;
          break;
        }
      }
      report_.wall_ns[kept_[rank]] = end - std::min(end, begin);
    }
  }

  [[nodiscard]] bool is_region(std::uint32_t region, std::string_view a, std::string_view b) const {
    const auto it = info_.regions.find(region);
    return it != info_.regions.end() && (it->second.name == a || it->second.name == b);
  }

  void count_channel(std::uint32_t from, std::uint32_t to, std::uint32_t tag, bool send) {
    if (kept_[from] == kNotKept || kept_[to] == kNotKept) {
      return;
    }
    ChannelCounts& c = channels_[Channel{from, to, tag}];
    (send ? c.sends : c.recvs) += 1;
  }

  void add_instance(std::uint32_t rank, const Event& e, std::uint64_t index) {
    const Communicator& c = comm_of(e, rank);
    if (c.self) {
      return;  // a collective of one rank sends nothing
    }
    std::vector<Instance>& list = instances_[e.comm];
    if (index == list.size()) {
      list.push_back(Instance{.op = e.op, .root = e.peer, .first_rank = rank});
    }
    Instance& in = list[index];
    if (in.op != e.op) {
      throw InputError(
          fmt::format("{}: collective {} on communicator {} ('{}') is {} on rank {} but {} on rank {}: "
                      "the members did not call the same collectives (a trace of an erroneous program, "
                      "or of different runs merged)",
                      info_.path, index + 1, e.comm, c.name, collective_name(in.op), in.first_rank,
                      collective_name(e.op), rank));
    }
    ++in.seen;
    in.max_sent = std::max(in.max_sent, e.bytes);
    in.max_received = std::max(in.max_received, e.received);
    in.sum_sent += e.bytes;
    in.sum_received += e.received;
  }

  void check_matching() {
    std::vector<std::pair<Channel, ChannelCounts>> bad;
    for (const auto& [channel, counts] : channels_) {
      if (counts.sends != counts.recvs) {
        bad.emplace_back(channel, counts);
      }
    }
    std::sort(bad.begin(), bad.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first.from, a.first.to, a.first.tag) <
             std::tie(b.first.from, b.first.to, b.first.tag);
    });
    std::vector<std::string> incomplete;
    for (const auto& [comm, list] : instances_) {
      const std::size_t members = kept_members_.at(comm).size();
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (list[k].seen != members) {
          incomplete.push_back(
              fmt::format("collective {} on communicator {} ({}) was called by {} of its {} ranks", k + 1,
                          comm, collective_name(list[k].op), list[k].seen, members));
        }
      }
    }
    if (bad.empty() && incomplete.empty()) {
      return;
    }
    if (opt_.drop_unmatched) {
      for (const auto& [channel, counts] : bad) {
        report_.skipped["unmatched message (dropped)"] +=
            std::max(counts.sends, counts.recvs) - std::min(counts.sends, counts.recvs);
      }
      if (!incomplete.empty()) {
        report_.skipped["collective not called by every member (dropped)"] += incomplete.size();
      }
      return;
    }
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < bad.size() && i < kListed; ++i) {
      const auto& [ch, counts] = bad[i];
      lines.push_back(fmt::format("rank {} -> rank {} ({}): {} sends, {} receives", ch.from, ch.to,
                                  tag_name(ch.tag), counts.sends, counts.recvs));
    }
    for (std::size_t i = 0; i < incomplete.size() && lines.size() < 2 * kListed; ++i) {
      lines.push_back(incomplete[i]);
    }
    throw InputError(
        fmt::format("{}: the trace is not complete: {} message channels without a partner for every "
                    "message, {} collectives not called by all members, e.g.\n  {}\n"
                    "A run that aborted, deadlocked or hit GRIDLOCK_TRACE_MAX_BYTES leaves such a "
                    "trace; its schedule would deadlock in the simulator. --drop-unmatched converts "
                    "the rest (--ranks-subset can leave out the ranks concerned).",
                    info_.path, bad.size(), incomplete.size(), fmt::join(lines, "\n  ")));
  }

  // Replicating copies side by side is a faithful weak scaling only for a local point-to-point
  // pattern (stencils, rings, trees): a rank that exchanges messages with every other rank (a
  // master, an all-to-all written with sends) would become K independent masters.
  void check_extrapolable() const {
    if (num_kept_ < 3) {
      throw InputError(
          fmt::format("--extrapolate: a trace of {} ranks cannot tell a local pattern from a global "
                      "one; trace at least 3 ranks",
                      num_kept_));
    }
    std::vector<std::unordered_map<std::uint32_t, bool>> partners(num_kept_);
    for (const auto& [channel, counts] : channels_) {
      if (channel.from != channel.to) {
        partners[kept_[channel.from]][kept_[channel.to]] = true;
        partners[kept_[channel.to]][kept_[channel.from]] = true;
      }
    }
    for (std::uint32_t r = 0; r < num_kept_; ++r) {
      if (partners[r].size() + 1 >= num_kept_) {
        throw InputError(
            fmt::format("--extrapolate: the trace is not extrapolable: rank {} exchanges messages with "
                        "every other rank (a master-worker or all-to-all pattern written with "
                        "point-to-point calls), so copies side by side would not be the same "
                        "program at a larger scale. Trace at the scale you want to simulate.",
                        r));
      }
    }
  }

  // The group a collective on `comm` runs on in copy `copy`: the kept members within the copy, or,
  // for a communicator of all kept ranks when extrapolating, the members of every copy.
  const std::vector<std::uint32_t>& group_of(std::uint32_t comm, std::uint32_t copy) {
    const std::vector<std::uint32_t>& members = kept_members_.at(comm);
    if (copies_ == 1) {
      return members;
    }
    const bool spans_all = members.size() == num_kept_;
    const std::uint64_t key = (static_cast<std::uint64_t>(comm) << 32U) | (spans_all ? kNotKept : copy);
    const auto [it, added] = groups_.try_emplace(key);
    if (added) {
      for (std::uint32_t k = spans_all ? 0 : copy; k < (spans_all ? copies_ : copy + 1); ++k) {
        for (const std::uint32_t m : members) {
          it->second.push_back(m + k * num_kept_);
        }
      }
    }
    return it->second;
  }

  [[nodiscard]] std::string tag_name(std::uint32_t sim_tag) const {
    for (const auto& [key, value] : tags_) {
      if (value == sim_tag) {
        const auto comm = static_cast<std::uint32_t>(key >> 32U);
        const auto it = info_.comms.find(comm);
        return fmt::format("tag {} on {}", static_cast<std::uint32_t>(key),
                           it == info_.comms.end() || it->second.name.empty()
                               ? fmt::format("communicator {}", comm)
                               : it->second.name);
      }
    }
    return fmt::format("tag {}", sim_tag);
  }

  // ---- pass 2: one rank's program ----

  std::string algo_for(std::string_view kind) const {
    const auto it = opt_.algorithms.find(kind);
    return it == opt_.algorithms.end() ? std::string() : it->second;
  }

  // The generator step(s) of a collective instance on a communicator of `n` kept members.
  std::optional<Mapped> map_collective(const Instance& in, std::uint32_t n, std::uint32_t root) const {
    const auto step = [&](std::string kind, std::uint64_t size) {
      sim::CollectiveStep s;
      s.algo = algo_for(kind);
      s.kind = std::move(kind);
      s.size_bytes = size;
      s.root = root;
      return s;
    };
    switch (in.op) {
      case CollectiveOp::kBarrier:
        return Mapped{step("barrier", 0), std::nullopt};
      case CollectiveOp::kBcast:
        return Mapped{step("bcast", std::max(in.max_sent, in.max_received)), std::nullopt};
      case CollectiveOp::kReduce:
        return Mapped{step("reduce", in.max_sent), std::nullopt};
      case CollectiveOp::kAllreduce:
      case CollectiveOp::kScan:
      case CollectiveOp::kExscan:
        // A scan's recursive doubling exchanges the same messages as an allreduce's.
        return Mapped{step("allreduce", in.max_sent), std::nullopt};
      case CollectiveOp::kGather:
        return Mapped{step("gather", in.max_sent), std::nullopt};
      case CollectiveOp::kGatherv:
        return Mapped{step("gather", mean(in.sum_sent, in.seen)), std::nullopt};
      case CollectiveOp::kScatter:
        return Mapped{step("scatter", in.max_received), std::nullopt};
      case CollectiveOp::kScatterv:
        return Mapped{step("scatter", mean(in.sum_received, in.seen)), std::nullopt};
      case CollectiveOp::kAllgather:
        return Mapped{step("allgather", in.max_sent), std::nullopt};
      case CollectiveOp::kAllgatherv:
        return Mapped{step("allgather", mean(in.sum_sent, in.seen)), std::nullopt};
      case CollectiveOp::kAlltoall:
        return Mapped{step("alltoall", in.max_sent / std::max<std::uint32_t>(n, 1)), std::nullopt};
      case CollectiveOp::kAlltoallv:
        return Mapped{
            step("alltoall", mean(in.sum_sent, static_cast<std::uint64_t>(in.seen) * std::max(n, 1U))),
            std::nullopt};
      case CollectiveOp::kReduceScatter:
      case CollectiveOp::kReduceScatterBlock: {
        // The whole vector reduced to the first member, then its blocks scattered: the messages of
        // MPICH's algorithm for non-commutative operations, an upper bound for the others.
        sim::CollectiveStep reduce = step("reduce", in.max_sent);
        reduce.root = 0;
        sim::CollectiveStep scatter = step("scatter", in.max_sent / std::max<std::uint32_t>(n, 1));
        scatter.root = 0;
        return Mapped{reduce, scatter};
      }
      case CollectiveOp::kAlltoallw:
      case CollectiveOp::kOther:
        return std::nullopt;
    }
    return std::nullopt;
  }

  // Builds one rank's program, in program order (see docs/tracing.md for the rules).
  class RankBuild {
   public:
    RankBuild(Converter& c, sim::ScheduleBuilder& b, std::uint32_t rank, std::uint32_t copy)
        : c_(c), b_(b), rank_(rank), copy_(copy) {}

    void run(std::span<const Event> events) {
      index_.emplace(events);
      for (const Event& e : events) {
        handle(e);
      }
    }

   private:
    [[nodiscard]] bool is_mpi(std::uint32_t region) const {
      const auto it = c_.info_.regions.find(region);
      return it == c_.info_.regions.end() || it->second.is_mpi;
    }

    void handle(const Event& e) {
      switch (e.kind) {
        case EventKind::kEnter:
          if (is_mpi(e.peer) && depth_++ == 0) {
            begin_call(e.time_ns);
          }
          return;
        case EventKind::kLeave:
          if (is_mpi(e.peer) && depth_ > 0 && --depth_ == 0) {
            end_call(e.time_ns);
          }
          return;
        default:
          break;
      }
      // An MPI event outside any MPI region (a trace without Enter/Leave): a call of its own.
      const bool own_call = depth_ == 0;
      if (own_call) {
        begin_call(e.time_ns);
      }
      event(e);
      if (own_call) {
        end_call(e.time_ns);
      }
    }

    void begin_call(std::uint64_t t) {
      if (last_leave_ && t > *last_leave_) {
        const std::uint64_t gap = t - *last_leave_;
        if (copy_ == 0) {
          c_.report_.compute_ns[c_.kept_[rank_]] += gap;
        }
        if (c_.opt_.compute) {
          const long double ps =
              static_cast<long double>(gap) * 1000.0L * static_cast<long double>(c_.opt_.compute_scale);
          const std::uint64_t scaled = ps >= 1.8e19L ? std::numeric_limits<std::uint64_t>::max() / 2
                                                     : static_cast<std::uint64_t>(std::llround(ps));
          if (scaled > 0) {
            const std::uint32_t calc = b_.calc(sim::SimTime{scaled});
            ++c_.report_.calcs;
            c_.report_.compute_ps += scaled;
            sequential(calc);
            position_ = {calc};
          }
        }
      }
      call_position_ = position_;
      call_ops_.clear();
      completed_.clear();
    }

    // A new op in program order: after the position, started after the nonblocking ops before it.
    void sequential(std::uint32_t op) {
      for (const std::uint32_t p : position_) {
        b_.add_requires(op, p);
      }
      for (const std::uint32_t s : started_) {
        b_.add_irequires(op, s);
      }
      started_.clear();
    }

    void end_call(std::uint64_t t) {
      last_leave_ = t;
      if (call_ops_.empty() && completed_.empty()) {
        return;
      }
      std::vector<std::uint32_t> next = call_ops_;
      next.insert(next.end(), completed_.begin(), completed_.end());
      if (call_ops_.empty()) {
        next.insert(next.end(), position_.begin(), position_.end());
      }
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      if (next.size() > kMaxPositionOps) {
        const std::uint32_t join = b_.calc(sim::SimTime{0});
        for (const std::uint32_t op : next) {
          b_.add_requires(join, op);
        }
        next = {join};
      }
      position_ = std::move(next);
    }

    // An op inside the current call: after the call's position.
    std::uint32_t in_call(std::uint32_t op) {
      for (const std::uint32_t p : call_position_) {
        b_.add_requires(op, p);
      }
      for (const std::uint32_t s : started_) {
        b_.add_irequires(op, s);
      }
      return op;
    }

    // Whether a message on this channel is converted (kept ranks; --drop-unmatched's budget).
    bool keep_message(std::uint32_t from, std::uint32_t to, std::uint32_t tag, bool send) {
      if (!c_.opt_.p2p) {
        return false;
      }
      if (c_.kept_[from] == kNotKept || c_.kept_[to] == kNotKept) {
        ++c_.report_.skipped["message to or from a rank outside --ranks-subset"];
        return false;
      }
      if (!c_.opt_.drop_unmatched) {
        return true;
      }
      const ChannelCounts& counts = c_.channels_.at(Channel{from, to, tag});
      const std::uint64_t budget = std::min(counts.sends, counts.recvs);
      std::uint64_t& used = (send ? sent_ : received_)[Channel{from, to, tag}];
      if (used >= budget) {
        return false;
      }
      ++used;
      return true;
    }

    void event(const Event& e) {
      switch (e.kind) {
        case EventKind::kSend:
        case EventKind::kIsend: {
          if (e.kind == EventKind::kIsend && index_->cancelled.contains(e.request)) {
            ++c_.report_.skipped["cancelled request"];
            return;
          }
          const std::uint32_t to = c_.world_of(e, rank_, e.peer);
          const std::uint32_t tag = c_.known_tag(e.comm, e.tag);
          if (!keep_message(rank_, to, tag, true)) {
            return;
          }
          const std::uint32_t op = in_call(b_.send(e.bytes, out(to), tag));
          ++c_.report_.sends;
          if (e.kind == EventKind::kSend) {
            call_ops_.push_back(op);
          } else {
            requests_[e.request] = {op};
            started_.push_back(op);
          }
          return;
        }
        case EventKind::kRecv: {
          const std::uint32_t from = c_.world_of(e, rank_, e.peer);
          const std::uint32_t tag = c_.known_tag(e.comm, e.tag);
          if (keep_message(from, rank_, tag, false)) {
            call_ops_.push_back(in_call(b_.recv(e.bytes, out(from), tag)));
            ++c_.report_.recvs;
          }
          return;
        }
        case EventKind::kIrecvRequest: {
          // Posted now, matched as it completed: the sender and tag come from the completion (an
          // MPI_ANY_SOURCE receive gets the sender it had in the traced run).
          const auto done = index_->recv_done.find(e.request);
          if (index_->cancelled.contains(e.request)) {
            ++c_.report_.skipped["cancelled request"];
            return;
          }
          if (done == index_->recv_done.end()) {
            ++c_.report_.skipped["receive never completed in the trace"];
            return;
          }
          const Event& d = *done->second;
          const std::uint32_t from = c_.world_of(d, rank_, d.peer);
          const std::uint32_t tag = c_.known_tag(d.comm, d.tag);
          if (keep_message(from, rank_, tag, false)) {
            const std::uint32_t op = in_call(b_.recv(d.bytes, out(from), tag));
            ++c_.report_.recvs;
            requests_[e.request] = {op};
            started_.push_back(op);
          }
          return;
        }
        case EventKind::kIsendComplete:
        case EventKind::kIrecv:
        case EventKind::kNonblockingCollectiveComplete: {
          const auto it = requests_.find(e.request);
          if (it != requests_.end()) {
            completed_.insert(completed_.end(), it->second.begin(), it->second.end());
            requests_.erase(it);
          }
          return;
        }
        case EventKind::kCollectiveEnd: {
          std::vector<std::uint32_t> sinks = collective(e, collective_index_[e.comm]++);
          call_ops_.insert(call_ops_.end(), sinks.begin(), sinks.end());
          return;
        }
        case EventKind::kNonblockingCollective: {
          const auto done = index_->nbc_done.find(e.request);
          if (done == index_->nbc_done.end()) {
            ++c_.report_.skipped["nonblocking collective never completed in the trace"];
            return;
          }
          std::vector<std::uint32_t> sinks =
              collective(*done->second, collective_index_[done->second->comm]++);
          started_.insert(started_.end(), sinks.begin(), sinks.end());
          requests_[e.request] = std::move(sinks);
          return;
        }
        default:
          return;
      }
    }

    // Emits this rank's part of a collective instance; returns its last ops (empty if none).
    std::vector<std::uint32_t> collective(const Event& e, std::uint64_t index) {
      const Communicator& comm = c_.comm_of(e, rank_);
      if (comm.self) {
        return {};
      }
      const std::vector<Instance>& list = c_.instances_.at(e.comm);
      const Instance& in = list.at(index);
      const std::vector<std::uint32_t>& members = c_.kept_members_.at(e.comm);
      const std::vector<std::uint32_t>& group = c_.group_of(e.comm, copy_);
      if (in.seen != members.size()) {
        return {};  // --drop-unmatched: not every member called it
      }
      const std::string name = collective_name(in.op);
      if (!c_.opt_.collectives) {
        return {};
      }
      const auto me = std::find(group.begin(), group.end(), out(rank_));
      if (me == group.end()) {
        throw InputError(fmt::format(
            "{}: rank {}: a collective ({}) at {} ns on communicator {} ('{}'), which the rank is not "
            "a member of (a corrupt archive)",
            c_.info_.path, rank_, name, e.time_ns, e.comm, comm.name));
      }
      const auto position = static_cast<std::uint32_t>(me - group.begin());
      std::uint32_t root = 0;
      if (in.root != kNoRoot && in.root < comm.members.size()) {
        const auto kept_root = std::find(members.begin(), members.end(), c_.kept_[comm.members[in.root]]);
        if (kept_root != members.end()) {
          root = static_cast<std::uint32_t>(kept_root - members.begin());
        } else {
          ++c_.report_.skipped["collective root outside --ranks-subset (the first kept member is root)"];
        }
      }
      // Sizes per member as traced (an extrapolated alltoall keeps its per-destination block).
      const std::optional<Mapped> mapped =
          c_.map_collective(in, static_cast<std::uint32_t>(members.size()), root);
      if (!mapped) {
        ++c_.report_.skipped[name + ": not converted"];
        return {};
      }
      ++c_.report_.collectives[name];
      const std::uint32_t tag_base = c_.collective_tag_base(e.comm);
      std::vector<std::uint32_t> after = call_position_;
      std::vector<std::uint32_t> sinks =
          sim::emit_collective(b_, mapped->first, group, position, tag_base, after);
      if (mapped->second) {
        sinks = sim::emit_collective(b_, *mapped->second, group, position, tag_base, sinks);
      }
      if (sinks == after) {
        return {};  // nothing to do on this rank
      }
      return sinks;
    }

    Converter& c_;
    sim::ScheduleBuilder& b_;
    // The schedule rank of traced rank `r` in this copy.
    [[nodiscard]] std::uint32_t out(std::uint32_t r) const { return c_.kept_[r] + copy_ * c_.num_kept_; }

    std::uint32_t rank_;
    std::uint32_t copy_;
    int depth_ = 0;
    std::optional<std::uint64_t> last_leave_;
    std::vector<std::uint32_t> position_;
    std::vector<std::uint32_t> call_position_;
    std::vector<std::uint32_t> call_ops_;
    std::vector<std::uint32_t> completed_;
    std::vector<std::uint32_t> started_;
    std::optional<RequestIndex> index_;
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> requests_;
    std::unordered_map<std::uint32_t, std::uint64_t> collective_index_;
    std::unordered_map<Channel, std::uint64_t, ChannelHash> sent_;
    std::unordered_map<Channel, std::uint64_t, ChannelHash> received_;
  };

  std::uint32_t collective_tag_base(std::uint32_t comm) {
    const auto [it, added] = collective_tags_.try_emplace(comm, 0);
    if (added) {
      // After every point-to-point tag (all known after pass 1), one block per communicator.
      const std::uint64_t base =
          static_cast<std::uint64_t>(tags_.size()) + kTagsPerCollective * (collective_tags_.size() - 1);
      if (base + kTagsPerCollective >= sim::kAnyTag) {
        throw InputError(
            fmt::format("{}: too many distinct tags and communicators for a schedule", info_.path));
      }
      it->second = static_cast<std::uint32_t>(base);
    }
    return it->second;
  }

  void build_rank(sim::ScheduleBuilder& builder, std::uint32_t rank, std::uint32_t copy,
                  std::span<const Event> events) {
    builder.begin_rank(kept_[rank] + copy * num_kept_);
    RankBuild(*this, builder, rank, copy).run(events);
    builder.end_rank();
  }

  TraceReader& trace_;
  const TraceInfo& info_;
  const ConvertOptions& opt_;
  std::vector<std::uint32_t> kept_;  // traced rank -> schedule rank, or kNotKept
  std::uint32_t num_kept_ = 0;
  std::uint32_t copies_ = 1;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> kept_members_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> groups_;  // (comm, copy) -> group
  std::unordered_map<std::uint32_t, std::string> bad_comms_;              // comm -> why it is refused
  std::unordered_map<std::uint64_t, std::uint32_t> tags_;   // (comm << 32 | tag) -> schedule tag
  std::map<std::uint32_t, std::uint32_t> collective_tags_;  // comm -> first schedule tag
  std::unordered_map<std::uint32_t, std::vector<Instance>> instances_;
  std::unordered_map<Channel, ChannelCounts, ChannelHash> channels_;
  ConvertReport report_;
};

}  // namespace

ConvertedTrace convert_trace(TraceReader& trace, const ConvertOptions& options) {
  return Converter(trace, options).run();
}

std::map<std::string, std::string, std::less<>> parse_algorithms(std::string_view text) {
  std::map<std::string, std::string, std::less<>> result;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      if (comma == text.size()) {
        break;
      }
      continue;
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw InputError(fmt::format("--algo '{}': expected KIND=ALGORITHM, e.g. allreduce=ring", item));
    }
    const std::string kind(trim(item.substr(0, eq)));
    const std::string algo(trim(item.substr(eq + 1)));
    const std::vector<std::string> algos = sim::collective_algorithms(kind);
    if (algos.empty()) {
      throw InputError(
          fmt::format("--algo '{}': no collective kind '{}' (use bcast, reduce, allreduce, allgather, "
                      "alltoall, gather, scatter or barrier)",
                      item, kind));
    }
    if (std::find(algos.begin(), algos.end(), algo) == algos.end()) {
      throw InputError(fmt::format("--algo '{}': no {} algorithm '{}' (use one of {})", item, kind, algo,
                                   fmt::join(algos, ", ")));
    }
    if (!result.emplace(kind, algo).second) {
      throw InputError(fmt::format("--algo: '{}' is named twice", kind));
    }
  }
  return result;
}

std::vector<std::uint32_t> parse_rank_list(std::string_view text, std::uint32_t num_ranks) {
  const auto number = [&](std::string_view s) -> std::uint32_t {
    s = trim(s);
    const std::optional<std::uint64_t> parsed = parse_u64(s);
    if (!parsed) {
      throw InputError(
          fmt::format("rank list '{}': '{}' is not a rank number (use e.g. 0-15,32,40-47)", text, s));
    }
    const std::uint64_t v = *parsed;
    if (v >= num_ranks) {
      throw InputError(
          fmt::format("rank list '{}': rank {} is not in the trace (ranks 0 .. {})", text, v, num_ranks - 1));
    }
    return static_cast<std::uint32_t>(v);
  };
  std::vector<std::uint32_t> ranks;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      throw InputError(fmt::format("rank list '{}': an empty entry (use e.g. 0-15,32,40-47)", text));
    }
    const std::size_t dash = item.find('-');
    const std::uint32_t first = number(item.substr(0, dash));
    const std::uint32_t last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
    if (last < first) {
      throw InputError(fmt::format("rank list '{}': range {} is reversed", text, item));
    }
    for (std::uint64_t r = first; r <= last; ++r) {
      ranks.push_back(static_cast<std::uint32_t>(r));
    }
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

}  // namespace gridlock::trace
