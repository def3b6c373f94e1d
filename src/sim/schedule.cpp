#include "gridlock/sim/schedule.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "detail/acyclic.hpp"
#include "gridlock/core/rng.hpp"

namespace gridlock::sim {

void detail::append_roots(std::span<const Op> ops, const std::uint32_t* dep_count,
                          std::vector<std::uint32_t>& roots, std::vector<std::uint32_t>& scratch) {
  // Gathered without branches (whether an op is a root is unpredictable), then ordered by type
  // with one pass per type over the few roots: the order of a stable sort, in linear time.
  const std::size_t n = ops.size();
  scratch.resize(n + 1);
  std::size_t found = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    scratch[found] = i;
    found += dep_count[i] == 0 ? 1 : 0;
  }
  for (const OpType type : {OpType::kSend, OpType::kRecv, OpType::kCalc}) {
    for (std::size_t k = 0; k < found; ++k) {
      if (ops[scratch[k]].type == type) {
        roots.push_back(scratch[k]);
      }
    }
  }
}

bool detail::acyclic(const Program& program, std::vector<std::uint32_t>& remaining,
                     std::vector<std::uint32_t>& ready) {
  const std::size_t n = program.ops.size();
  remaining.assign(program.dep_count.begin(), program.dep_count.end());
  ready.clear();
  const std::uint32_t* succ = program.succ.data();
  const std::uint32_t* succ_begin = program.succ_begin.data();
  std::uint32_t* left = remaining.data();
  std::size_t done = 0;
  // Kahn's algorithm in definition order: a sweep takes each op whose dependencies are all done
  // when it reaches it; only an op that becomes ready behind the sweep (through a dependency
  // defined after it) goes on the stack. Most dependencies point forward, so the work is mostly
  // a sequential pass instead of a chain of dependent stack pops.
  const auto finish = [&](std::uint32_t v, std::size_t sweep) {
    ++done;
    const std::uint32_t* end = succ + succ_begin[2 * static_cast<std::size_t>(v) + 2];
    for (const std::uint32_t* s = succ + succ_begin[2 * static_cast<std::size_t>(v)]; s < end; ++s) {
      if (--left[*s] == 0 && *s < sweep) {
        ready.push_back(*s);
      }
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (left[i] != 0) {
      continue;
    }
    finish(static_cast<std::uint32_t>(i), i);
    while (!ready.empty()) {
      const std::uint32_t v = ready.back();
      ready.pop_back();
      finish(v, i);
    }
  }
  return done == n;
}

namespace {

// Hash of a (program, peer list begin) pair.
struct PairHash {
  std::size_t operator()(const std::pair<std::uint32_t, std::uint64_t>& p) const noexcept {
    return static_cast<std::size_t>((p.second * 0x9E3779B97F4A7C15ULL) ^ p.first);
  }
};

// Fast multiplicative hash; equality is always checked in full afterwards.
std::uint64_t hash_program(const Program& program) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ program.ops.size();
  const auto mix = [&h](std::uint64_t word) {
    h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32U;
  };
  for (const Op& op : program.ops) {
    mix(op.size);
    mix(static_cast<std::uint64_t>(op.peer_offset) << 32U | op.tag);
    mix(static_cast<std::uint64_t>(op.type) << 16U | static_cast<std::uint64_t>(op.cpu) << 8U | op.nic);
  }
  for (const std::uint32_t s : program.succ_begin) {
    mix(s);
  }
  for (const std::uint32_t s : program.succ) {
    mix(s);
  }
  return h;
}

// Returns the ops of one dependency cycle among the ops Kahn's algorithm could not order.
std::vector<std::uint32_t> find_cycle(const Program& program, const std::vector<std::uint32_t>& remaining) {
  const std::size_t n = program.ops.size();
  std::vector<std::uint8_t> colour(n, 0);  // 0 new, 1 on stack, 2 done
  std::vector<std::uint32_t> parent(n, 0);
  for (std::uint32_t start = 0; start < n; ++start) {
    if (remaining[start] == 0 || colour[start] != 0) {
      continue;
    }
    // Iterative DFS over successor edges (both kinds).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // (node, next successor position)
    stack.emplace_back(start, program.succ_begin[2 * static_cast<std::size_t>(start)]);
    colour[start] = 1;
    while (!stack.empty()) {
      auto& [node, pos] = stack.back();
      const std::uint32_t end = program.succ_begin[2 * static_cast<std::size_t>(node) + 2];
      if (pos == end) {
        colour[node] = 2;
        stack.pop_back();
        continue;
      }
      const std::uint32_t next = program.succ[pos++];
      if (remaining[next] == 0) {
        continue;
      }
      if (colour[next] == 1) {
        std::vector<std::uint32_t> cycle{next};
        for (std::uint32_t v = node; v != next; v = parent[v]) {
          cycle.push_back(v);
        }
        std::reverse(cycle.begin() + 1, cycle.end());
        return cycle;
      }
      if (colour[next] == 0) {
        colour[next] = 1;
        parent[next] = node;
        stack.emplace_back(next, program.succ_begin[2 * static_cast<std::size_t>(next)]);
      }
    }
  }
  return {};
}

}  // namespace

std::uint64_t Schedule::total_ops() const noexcept {
  std::uint64_t total = 0;
  for (const std::uint32_t p : rank_program_) {
    total += programs_[p].ops.size();
  }
  return total;
}

Schedule::ProgramsWithPeers Schedule::programs_with_peers() const {
  ProgramsWithPeers out;
  out.of_rank.resize(num_ranks_);
  std::unordered_map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t, PairHash> index;
  for (std::uint32_t r = 0; r < num_ranks_; ++r) {
    // Consecutive ranks usually share their program and peers.
    if (r > 0 && rank_program_[r] == rank_program_[r - 1] && rank_peer_begin_[r] == rank_peer_begin_[r - 1]) {
      out.of_rank[r] = out.of_rank[r - 1];
      continue;
    }
    const auto [it, inserted] = index.try_emplace({rank_program_[r], rank_peer_begin_[r]},
                                                  static_cast<std::uint32_t>(out.first_rank.size()));
    if (inserted) {
      out.first_rank.push_back(r);
    }
    out.of_rank[r] = it->second;
  }
  return out;
}

std::uint64_t Schedule::total_sends() const noexcept {
  std::vector<std::uint64_t> sends(programs_.size(), 0);
  for (std::size_t p = 0; p < programs_.size(); ++p) {
    sends[p] =
        static_cast<std::uint64_t>(std::count_if(programs_[p].ops.begin(), programs_[p].ops.end(),
                                                 [](const Op& op) { return op.type == OpType::kSend; }));
  }
  std::uint64_t total = 0;
  for (const std::uint32_t p : rank_program_) {
    total += sends[p];
  }
  return total;
}

bool Schedule::same_as(const Schedule& other) const {
  if (num_ranks_ != other.num_ranks_) {
    return false;
  }
  for (std::uint32_t r = 0; r < num_ranks_; ++r) {
    if (!(program_of(r) == other.program_of(r)) ||
        !std::ranges::equal(peer_offsets(r), other.peer_offsets(r)) || repeats(r) != other.repeats(r)) {
      return false;
    }
  }
  return true;
}

std::string_view Schedule::label_of(std::uint32_t rank, std::uint32_t op) const {
  if (rank >= sources_.size()) {
    return {};
  }
  const std::vector<OpLabel>& labels = sources_[rank].labels;
  const auto it = std::lower_bound(labels.begin(), labels.end(), op,
                                   [](const OpLabel& l, std::uint32_t o) { return l.op < o; });
  if (it == labels.end() || it->op != op) {
    return {};
  }
  return label_names_[it->label];
}

void Schedule::set_sources(std::vector<RankSource> sources, std::vector<std::string> label_names) {
  sources_ = std::move(sources);
  label_names_ = std::move(label_names);
}

Program ProgramStore::view(std::size_t p) const {
  const ProgramExtent& e = extents[p];
  const std::size_t n = e.num_ops;
  return Program{
      std::span<const Op>(ops).subspan(e.op_begin, n),
      std::span<const std::uint32_t>(succ_begin).subspan(2 * e.op_begin + p, 2 * n + 1),
      std::span<const std::uint32_t>(succ).subspan(e.succ_offset, e.num_succ),
      std::span<const std::uint32_t>(dep_count).subspan(e.op_begin, n),
      std::span<const std::uint32_t>(roots).subspan(e.root_begin, e.num_roots),
  };
}

namespace {

// Appends the dependency counts and roots of program `p`, the last one in `store` whose ops,
// succ_begin and succ are in place (all targets below num_ops); roots go by type then index,
// LogGOPSim's start order. Widens the CPU and NIC counts to cover the program. `scratch` is
// reused space.
void complete_program(ProgramStore& store, std::size_t p, std::uint32_t& num_cpus, std::uint32_t& num_nics,
                      std::vector<std::uint32_t>& scratch) {
  ProgramExtent& e = store.extents[p];
  const std::size_t n = e.num_ops;
  store.dep_count.resize(e.op_begin + n, 0);
  std::uint32_t* count = store.dep_count.data() + e.op_begin;
  const std::uint32_t* succ = store.succ.data() + e.succ_offset;
  for (std::size_t k = 0; k < e.num_succ; ++k) {
    ++count[succ[k]];
  }
  const Op* ops = store.ops.data() + e.op_begin;
  std::uint32_t max_cpu = 0;
  std::uint32_t max_nic = 0;
  for (std::size_t i = 0; i < n; ++i) {
    max_cpu = std::max<std::uint32_t>(max_cpu, ops[i].cpu);
    max_nic = std::max<std::uint32_t>(max_nic, ops[i].nic);
  }
  num_cpus = std::max(num_cpus, max_cpu + 1);
  num_nics = std::max(num_nics, max_nic + 1);
  e.root_begin = store.roots.size();
  detail::append_roots(std::span<const Op>(ops, n), count, store.roots, scratch);
  e.num_roots = static_cast<std::uint32_t>(store.roots.size() - e.root_begin);
}

// The views of every program in `store`, which then becomes immutable and shared.
void adopt_store(std::shared_ptr<const ProgramStore>& slot, std::vector<Program>& views, ProgramStore store) {
  auto shared = std::make_shared<const ProgramStore>(std::move(store));
  views.clear();
  views.reserve(shared->extents.size());
  for (std::size_t p = 0; p < shared->extents.size(); ++p) {
    views.push_back(shared->view(p));
  }
  slot = std::move(shared);
}

}  // namespace

void Schedule::adopt_with_peers_in_ops(ProgramStore store) {
  // Not zeroed first: every element is written below.
  std::shared_ptr<std::uint32_t[]> peers = std::make_shared_for_overwrite<std::uint32_t[]>(store.ops.size());
  for (std::size_t i = 0; i < store.ops.size(); ++i) {
    Op& op = store.ops[i];
    peers[i] = op.peer_offset;
    if (op.peer_offset != kAnySource) {
      op.peer_offset = 0;
    }
  }
  rank_peer_begin_.resize(num_ranks_);
  for (std::uint32_t r = 0; r < num_ranks_; ++r) {
    const ProgramExtent& e = store.extents[rank_program_[r]];
    // Ranks without ops have no peers: one value for all, as the builder gives them.
    rank_peer_begin_[r] = e.num_ops == 0 ? 0 : e.op_begin;
  }
  peer_store_ = std::move(peers);
  adopt_store(store_, programs_, std::move(store));
}

Schedule ScheduleBuilder::from_programs(std::uint32_t num_ranks, ProgramStore programs,
                                        std::vector<std::uint32_t> rank_program) {
  if (num_ranks == 0 || num_ranks > kMaxRanks) {
    throw InputError(fmt::format("number of ranks must be between 1 and {}, got {}", kMaxRanks, num_ranks));
  }
  if (rank_program.size() != num_ranks) {
    throw InputError(fmt::format("{} rank entries for {} ranks", rank_program.size(), num_ranks));
  }
  Schedule schedule;
  schedule.num_ranks_ = num_ranks;
  ProgramStore& store = programs;
  const std::size_t num_programs = store.extents.size();
  // The layout first: every later pass indexes the flat arrays through the extents.
  std::uint64_t total_ops = 0;
  std::uint64_t total_succ = 0;
  for (ProgramExtent& e : store.extents) {
    if (e.num_ops > kMaxOpsPerRank) {
      throw InputError(
          fmt::format("program {}: more than {} operations", &e - store.extents.data(), kMaxOpsPerRank));
    }
    e.op_begin = total_ops;
    e.succ_offset = total_succ;
    total_ops += e.num_ops;
    total_succ += e.num_succ;
  }
  if (store.ops.size() != total_ops || store.succ.size() != total_succ ||
      store.succ_begin.size() != 2 * total_ops + num_programs) {
    throw InputError("malformed program store (array sizes do not match the program extents)");
  }
  store.dep_count.clear();
  store.dep_count.reserve(total_ops);
  store.roots.clear();
  std::vector<std::uint32_t> remaining;
  std::vector<std::uint32_t> ready;
  for (std::size_t p = 0; p < num_programs; ++p) {
    const ProgramExtent& e = store.extents[p];
    const std::size_t n = e.num_ops;
    const std::uint32_t* begin = store.succ_begin.data() + 2 * e.op_begin + p;
    if (begin[0] != 0 || begin[2 * n] != e.num_succ || !std::is_sorted(begin, begin + 2 * n + 1)) {
      throw InputError(fmt::format("program {}: malformed dependency lists", p));
    }
    const Op* ops = store.ops.data() + e.op_begin;
    for (std::size_t i = 0; i < n; ++i) {
      const Op& op = ops[i];
      if (op.type != OpType::kCalc && op.peer_offset != kAnySource && op.peer_offset >= num_ranks) {
        throw InputError(fmt::format("program {}: peer offset {} out of range (num_ranks {})", p,
                                     op.peer_offset, num_ranks));
      }
    }
    const std::uint32_t* succ = store.succ.data() + e.succ_offset;
    bool forward = true;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::uint32_t k = begin[2 * i]; k < begin[2 * i + 2]; ++k) {
        if (succ[k] >= n) {
          throw InputError(fmt::format("program {}: dependency on undefined operation {}", p, succ[k]));
        }
        forward = forward && succ[k] > i;
      }
    }
    complete_program(store, p, schedule.num_cpus_, schedule.num_nics_, ready);
    // Dependants that all come later cannot form a cycle (the usual case, checked in one pass);
    // Kahn's algorithm only for the rest.
    if (!forward && !detail::acyclic(store.view(p), remaining, ready)) {
      throw InputError(fmt::format("program {} has a dependency cycle", p));
    }
  }
  for (std::uint32_t r = 0; r < num_ranks; ++r) {
    if (rank_program[r] >= num_programs) {
      throw InputError(fmt::format("rank {}: program index {} out of range ({} programs)", r, rank_program[r],
                                   num_programs));
    }
  }
  schedule.rank_program_ = std::move(rank_program);
  schedule.adopt_with_peers_in_ops(std::move(store));
  return schedule;
}

Schedule ScheduleBuilder::adopt_checked(std::uint32_t num_ranks, std::uint32_t num_cpus,
                                        std::uint32_t num_nics, ProgramStore programs,
                                        std::vector<std::uint32_t> rank_program,
                                        std::shared_ptr<const std::uint32_t[]> peer_store,
                                        std::vector<std::uint64_t> rank_peer_begin) {
  Schedule schedule;
  schedule.num_ranks_ = num_ranks;
  schedule.num_cpus_ = num_cpus;
  schedule.num_nics_ = num_nics;
  adopt_store(schedule.store_, schedule.programs_, std::move(programs));
  schedule.rank_program_ = std::move(rank_program);
  schedule.peer_store_ = std::move(peer_store);
  schedule.rank_peer_begin_ = std::move(rank_peer_begin);
  return schedule;
}

CycleError::CycleError(std::uint32_t rank, std::vector<std::uint32_t> ops)
    : InputError(fmt::format("rank {}: dependency cycle through {} operations", rank, ops.size())),
      rank_(rank),
      ops_(std::move(ops)) {}

ScheduleBuilder::ScheduleBuilder(std::uint32_t num_ranks) {
  if (num_ranks == 0 || num_ranks > kMaxRanks) {
    throw InputError(fmt::format("number of ranks must be between 1 and {}, got {}", kMaxRanks, num_ranks));
  }
  schedule_.num_ranks_ = num_ranks;
  schedule_.rank_program_.assign(num_ranks, 0);
  schedule_.rank_peer_begin_.assign(num_ranks, 0);
  built_.assign(num_ranks, 0);
}

void ScheduleBuilder::begin_rank(std::uint32_t rank) {
  if (in_rank_) {
    throw InputError(fmt::format("rank {} begun before rank {} was finished", rank, rank_));
  }
  if (rank >= schedule_.num_ranks_) {
    throw InputError(fmt::format("rank {} is out of range (num_ranks {})", rank, schedule_.num_ranks_));
  }
  if (built_[rank] != 0) {
    throw InputError(fmt::format("rank {} is defined twice", rank));
  }
  rank_ = rank;
  in_rank_ = true;
  ops_.clear();
  has_pred_.clear();
  has_succ_.clear();
  done_edges_.clear();
  start_edges_.clear();
}

void ScheduleBuilder::set_repeating(std::uint32_t rank) {
  if (rank >= schedule_.num_ranks_) {
    throw InputError(fmt::format("rank {} is out of range (num_ranks {})", rank, schedule_.num_ranks_));
  }
  if (schedule_.repeats_.empty()) {
    schedule_.repeats_.assign(schedule_.num_ranks_, 0);
  }
  schedule_.repeats_[rank] = 1;
}

std::uint32_t ScheduleBuilder::offset_of(std::uint32_t peer) const {
  if (peer >= schedule_.num_ranks_) {
    throw InputError(
        fmt::format("rank {}: peer {} is out of range (num_ranks {})", rank_, peer, schedule_.num_ranks_));
  }
  // (peer - rank) mod P without a division.
  return peer >= rank_ ? peer - rank_ : peer + (schedule_.num_ranks_ - rank_);
}

std::uint32_t ScheduleBuilder::add_op(const Op& op) {
  if (!in_rank_) {
    throw InputError("operation added outside a rank");
  }
  if (ops_.size() >= kMaxOpsPerRank) {
    throw InputError(fmt::format("rank {} has more than {} operations", rank_, kMaxOpsPerRank));
  }
  ops_.push_back(op);
  has_pred_.push_back(0);
  has_succ_.push_back(0);
  return static_cast<std::uint32_t>(ops_.size() - 1);
}

std::uint32_t ScheduleBuilder::send(std::uint64_t bytes, std::uint32_t to, std::uint32_t tag,
                                    std::uint8_t cpu, std::uint8_t nic) {
  if (tag == kAnyTag) {
    throw InputError(fmt::format("rank {}: a send cannot use the any-tag value", rank_));
  }
  return add_op(Op{bytes, offset_of(to), tag, OpType::kSend, cpu, nic});
}

std::uint32_t ScheduleBuilder::recv(std::uint64_t bytes, std::uint32_t from, std::uint32_t tag,
                                    std::uint8_t cpu, std::uint8_t nic) {
  const std::uint32_t offset = from == kAnySource ? kAnySource : offset_of(from);
  return add_op(Op{bytes, offset, tag, OpType::kRecv, cpu, nic});
}

std::uint32_t ScheduleBuilder::calc(SimTime duration, std::uint8_t cpu) {
  return add_op(Op{duration.ps, 0, 0, OpType::kCalc, cpu, 0});
}

void ScheduleBuilder::add_requires(std::uint32_t a, std::uint32_t b) {
  if (a >= ops_.size() || b >= ops_.size()) {
    throw InputError(fmt::format("rank {}: dependency on an undefined operation", rank_));
  }
  done_edges_.emplace_back(b, a);
  has_pred_[a] = 1;
  has_succ_[b] = 1;
}

void ScheduleBuilder::add_irequires(std::uint32_t a, std::uint32_t b) {
  if (a >= ops_.size() || b >= ops_.size()) {
    throw InputError(fmt::format("rank {}: dependency on an undefined operation", rank_));
  }
  start_edges_.emplace_back(b, a);
  has_pred_[a] = 1;
  has_succ_[b] = 1;
}

void ScheduleBuilder::end_rank() {
  if (!in_rank_) {
    throw InputError("end_rank without begin_rank");
  }
  in_rank_ = false;
  // Peers are stored relative to the rank, so most ranks of a collective repeat the previous
  // rank's ops and edges exactly: then they have its program, and nothing needs building.
  if (last_program_ != 0xFFFFFFFFU && ops_ == last_ops_ && done_edges_ == last_done_edges_ &&
      start_edges_ == last_start_edges_) {
    schedule_.rank_program_[rank_] = last_program_;
    schedule_.rank_peer_begin_[rank_] = last_peer_begin_;
    built_[rank_] = 1;
    return;
  }
  last_ops_ = ops_;
  last_done_edges_ = done_edges_;
  last_start_edges_ = start_edges_;
  last_program_ = 0xFFFFFFFFU;  // Until this rank's program is known to be valid.
  const std::size_t n = ops_.size();
  ProgramStore& program = scratch_;
  program.ops.assign(ops_.begin(), ops_.end());
  // The program is kept without its peers (ranks that differ only in peers share it); the peers
  // go to the peer store, shared by ranks with the same ones.
  for (Op& op : program.ops) {
    if (op.peer_offset != kAnySource) {
      op.peer_offset = 0;
    }
  }
  program.succ_begin.assign(2 * n + 1, 0);
  program.dep_count.clear();
  program.roots.clear();
  program.extents.assign(1, ProgramExtent{});
  // Count successors per (op, kind) slot, then prefix-sum into CSR offsets.
  for (const auto& edge : done_edges_) {
    ++program.succ_begin[2 * static_cast<std::size_t>(edge.first) + 1];
  }
  for (const auto& edge : start_edges_) {
    ++program.succ_begin[2 * static_cast<std::size_t>(edge.first) + 2];
  }
  for (std::size_t i = 1; i < program.succ_begin.size(); ++i) {
    program.succ_begin[i] += program.succ_begin[i - 1];
  }
  program.succ.assign(done_edges_.size() + start_edges_.size(), 0);
  fill_.assign(program.succ_begin.begin(), program.succ_begin.end() - 1);
  for (const auto& [b, a] : done_edges_) {
    program.succ[fill_[2 * static_cast<std::size_t>(b)]++] = a;
  }
  for (const auto& [b, a] : start_edges_) {
    program.succ[fill_[2 * static_cast<std::size_t>(b) + 1]++] = a;
  }
  program.extents[0].num_ops = static_cast<std::uint32_t>(n);
  program.extents[0].num_succ = static_cast<std::uint32_t>(program.succ.size());
  complete_program(program, 0, schedule_.num_cpus_, schedule_.num_nics_, fill_);
  const Program view = program.view(0);

  const std::uint64_t h = hash_program(view);
  const auto [first, last] = by_hash_.equal_range(h);
  std::uint32_t id = 0xFFFFFFFFU;
  for (auto it = first; it != last; ++it) {
    if (store_.view(it->second) == view) {
      id = it->second;
      break;
    }
  }
  if (id == 0xFFFFFFFFU) {
    // A new shape: check it for cycles before keeping it.
    std::vector<std::uint32_t> remaining;
    if (!detail::acyclic(view, remaining, fill_)) {
      throw CycleError(rank_, find_cycle(view, remaining));
    }
    id = static_cast<std::uint32_t>(store_.extents.size());
    append_program(view);
    by_hash_.emplace(h, id);
  }
  const std::uint64_t peer_begin = add_peers();
  schedule_.rank_program_[rank_] = id;
  schedule_.rank_peer_begin_[rank_] = peer_begin;
  built_[rank_] = 1;
  last_program_ = id;
  last_peer_begin_ = peer_begin;
}

std::uint64_t ScheduleBuilder::add_peers() {
  const std::size_t n = ops_.size();
  // Every rank without ops has the empty list at 0, begun or not (see finish()).
  if (n == 0) {
    return 0;
  }
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  for (const Op& op : ops_) {
    h = (h ^ op.peer_offset) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32U;
  }
  const auto same = [&](std::uint64_t begin) {
    // A list found by hash may be shorter than this one (a collision) and end the store.
    if (begin + n > peers_.size()) {
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (peers_[begin + i] != ops_[i].peer_offset) {
        return false;
      }
    }
    return true;
  };
  const auto [first, last] = peers_by_hash_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    if (same(it->second)) {
      return it->second;
    }
  }
  const std::uint64_t begin = peers_.size();
  for (const Op& op : ops_) {
    peers_.push_back(op.peer_offset);
  }
  peers_by_hash_.emplace(h, begin);
  return begin;
}

void ScheduleBuilder::append_program(const Program& program) {
  ProgramExtent e;
  e.op_begin = store_.ops.size();
  e.succ_offset = store_.succ.size();
  e.root_begin = store_.roots.size();
  e.num_ops = static_cast<std::uint32_t>(program.ops.size());
  e.num_succ = static_cast<std::uint32_t>(program.succ.size());
  e.num_roots = static_cast<std::uint32_t>(program.roots.size());
  store_.ops.insert(store_.ops.end(), program.ops.begin(), program.ops.end());
  store_.succ_begin.insert(store_.succ_begin.end(), program.succ_begin.begin(), program.succ_begin.end());
  store_.succ.insert(store_.succ.end(), program.succ.begin(), program.succ.end());
  store_.dep_count.insert(store_.dep_count.end(), program.dep_count.begin(), program.dep_count.end());
  store_.roots.insert(store_.roots.end(), program.roots.begin(), program.roots.end());
  store_.extents.push_back(e);
}

void ScheduleBuilder::set_rank_like(std::uint32_t rank, std::uint32_t like_rank) {
  if (rank >= schedule_.num_ranks_ || like_rank >= schedule_.num_ranks_ || built_[like_rank] == 0) {
    throw InputError(fmt::format("rank {} cannot share the program of rank {}", rank, like_rank));
  }
  if (built_[rank] != 0) {
    throw InputError(fmt::format("rank {} is defined twice", rank));
  }
  schedule_.rank_program_[rank] = schedule_.rank_program_[like_rank];
  schedule_.rank_peer_begin_[rank] = schedule_.rank_peer_begin_[like_rank];
  built_[rank] = 1;
}

Schedule ScheduleBuilder::finish() {
  if (in_rank_) {
    throw InputError(fmt::format("rank {} was not finished", rank_));
  }
  // Ranks never begun get the empty program.
  bool need_empty = false;
  for (std::uint32_t r = 0; r < schedule_.num_ranks_; ++r) {
    need_empty = need_empty || built_[r] == 0;
  }
  if (need_empty) {
    std::uint32_t empty_id = 0;
    bool found = false;
    for (std::uint32_t p = 0; p < store_.extents.size(); ++p) {
      if (store_.extents[p].num_ops == 0) {
        empty_id = p;
        found = true;
      }
    }
    if (!found) {
      empty_id = static_cast<std::uint32_t>(store_.extents.size());
      const std::uint32_t offsets[] = {0};
      append_program(Program{{}, offsets, {}, {}, {}});
    }
    for (std::uint32_t r = 0; r < schedule_.num_ranks_; ++r) {
      if (built_[r] == 0) {
        schedule_.rank_program_[r] = empty_id;
      }
    }
  }
  adopt_store(schedule_.store_, schedule_.programs_, std::move(store_));
  // The peer store keeps the builder's vector alive without a copy.
  auto peers = std::make_shared<std::vector<std::uint32_t>>(std::move(peers_));
  schedule_.peer_store_ = std::shared_ptr<const std::uint32_t[]>(peers, peers->data());
  store_ = ProgramStore{};
  peers_.clear();
  by_hash_.clear();
  peers_by_hash_.clear();
  return std::move(schedule_);
}

}  // namespace gridlock::sim
