#include "gridlock/sim/schedule.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/rng.hpp"

namespace gridlock::sim {
namespace {

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
    if (!(program_of(r) == other.program_of(r))) {
      return false;
    }
  }
  return true;
}

namespace {

// Roots (ops without dependencies) sorted by type then index, LogGOPSim's start order; widens
// the CPU and NIC counts to cover the program.
void find_roots(Program& program, std::uint32_t& num_cpus, std::uint32_t& num_nics) {
  program.roots.clear();
  for (std::uint32_t i = 0; i < program.ops.size(); ++i) {
    if (program.dep_count[i] == 0) {
      program.roots.push_back(i);
    }
    num_cpus = std::max<std::uint32_t>(num_cpus, program.ops[i].cpu + 1U);
    num_nics = std::max<std::uint32_t>(num_nics, program.ops[i].nic + 1U);
  }
  std::stable_sort(program.roots.begin(), program.roots.end(), [&](std::uint32_t x, std::uint32_t y) {
    return program.ops[x].type < program.ops[y].type;
  });
}

// Kahn's algorithm: true if the dependencies are acyclic; otherwise `remaining` holds the
// remaining dependency counts (non-zero on and behind every cycle).
// `remaining` and `ready` are scratch space, reused across programs to save allocations.
bool acyclic(const Program& program, std::vector<std::uint32_t>& remaining,
             std::vector<std::uint32_t>& ready) {
  remaining.assign(program.dep_count.begin(), program.dep_count.end());
  ready.assign(program.roots.begin(), program.roots.end());
  std::size_t done = 0;
  while (!ready.empty()) {
    const std::uint32_t v = ready.back();
    ready.pop_back();
    ++done;
    for (std::uint32_t k = program.succ_begin[2 * static_cast<std::size_t>(v)];
         k < program.succ_begin[2 * static_cast<std::size_t>(v) + 2]; ++k) {
      if (--remaining[program.succ[k]] == 0) {
        ready.push_back(program.succ[k]);
      }
    }
  }
  return done == program.ops.size();
}

}  // namespace

Schedule ScheduleBuilder::from_programs(std::uint32_t num_ranks, std::vector<Program> programs,
                                        std::vector<std::uint32_t> rank_program) {
  if (num_ranks == 0 || num_ranks > kMaxRanks) {
    throw InputError(fmt::format("number of ranks must be between 1 and {}, got {}", kMaxRanks, num_ranks));
  }
  if (rank_program.size() != num_ranks) {
    throw InputError(fmt::format("{} rank entries for {} ranks", rank_program.size(), num_ranks));
  }
  Schedule schedule;
  schedule.num_ranks_ = num_ranks;
  std::vector<std::uint32_t> remaining;
  std::vector<std::uint32_t> ready;
  for (std::size_t p = 0; p < programs.size(); ++p) {
    Program& program = programs[p];
    const std::size_t n = program.ops.size();
    if (n > kMaxOpsPerRank || program.succ_begin.size() != 2 * n + 1 || program.succ_begin.front() != 0 ||
        program.succ_begin.back() != program.succ.size() ||
        !std::is_sorted(program.succ_begin.begin(), program.succ_begin.end())) {
      throw InputError(fmt::format("program {}: malformed dependency lists", p));
    }
    for (const Op& op : program.ops) {
      if (op.type != OpType::kCalc && op.peer_offset != kAnySource && op.peer_offset >= num_ranks) {
        throw InputError(fmt::format("program {}: peer offset {} out of range (num_ranks {})", p,
                                     op.peer_offset, num_ranks));
      }
    }
    program.dep_count.assign(n, 0);
    for (const std::uint32_t target : program.succ) {
      if (target >= n) {
        throw InputError(fmt::format("program {}: dependency on undefined operation {}", p, target));
      }
      ++program.dep_count[target];
    }
    find_roots(program, schedule.num_cpus_, schedule.num_nics_);
    if (!acyclic(program, remaining, ready)) {
      throw InputError(fmt::format("program {} has a dependency cycle", p));
    }
  }
  for (std::uint32_t r = 0; r < num_ranks; ++r) {
    if (rank_program[r] >= programs.size()) {
      throw InputError(fmt::format("rank {}: program index {} out of range ({} programs)", r, rank_program[r],
                                   programs.size()));
    }
  }
  schedule.programs_ = std::move(programs);
  schedule.rank_program_ = std::move(rank_program);
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
  const std::size_t n = ops_.size();
  Program& program = scratch_;
  program.ops.assign(ops_.begin(), ops_.end());
  program.succ_begin.assign(2 * n + 1, 0);
  program.dep_count.assign(n, 0);
  program.roots.clear();
  // Count successors per (op, kind) slot, then prefix-sum into CSR offsets.
  for (const auto& [b, a] : done_edges_) {
    ++program.succ_begin[2 * static_cast<std::size_t>(b) + 1];
    ++program.dep_count[a];
  }
  for (const auto& [b, a] : start_edges_) {
    ++program.succ_begin[2 * static_cast<std::size_t>(b) + 2];
    ++program.dep_count[a];
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
  find_roots(program, schedule_.num_cpus_, schedule_.num_nics_);

  const std::uint64_t h = hash_program(program);
  const auto [first, last] = by_hash_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    if (schedule_.programs_[it->second] == program) {
      schedule_.rank_program_[rank_] = it->second;
      built_[rank_] = 1;
      return;
    }
  }
  // A new shape: check it for cycles before keeping it.
  std::vector<std::uint32_t> remaining;
  if (!acyclic(program, remaining, fill_)) {
    throw CycleError(rank_, find_cycle(program, remaining));
  }
  const auto id = static_cast<std::uint32_t>(schedule_.programs_.size());
  schedule_.programs_.push_back(program);
  by_hash_.emplace(h, id);
  schedule_.rank_program_[rank_] = id;
  built_[rank_] = 1;
}

void ScheduleBuilder::set_rank_like(std::uint32_t rank, std::uint32_t like_rank) {
  if (rank >= schedule_.num_ranks_ || like_rank >= schedule_.num_ranks_ || built_[like_rank] == 0) {
    throw InputError(fmt::format("rank {} cannot share the program of rank {}", rank, like_rank));
  }
  if (built_[rank] != 0) {
    throw InputError(fmt::format("rank {} is defined twice", rank));
  }
  schedule_.rank_program_[rank] = schedule_.rank_program_[like_rank];
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
    for (std::uint32_t p = 0; p < schedule_.programs_.size(); ++p) {
      if (schedule_.programs_[p].ops.empty()) {
        empty_id = p;
        found = true;
      }
    }
    if (!found) {
      Program empty;
      empty.succ_begin.assign(1, 0);
      empty_id = static_cast<std::uint32_t>(schedule_.programs_.size());
      schedule_.programs_.push_back(std::move(empty));
    }
    for (std::uint32_t r = 0; r < schedule_.num_ranks_; ++r) {
      if (built_[r] == 0) {
        schedule_.rank_program_[r] = empty_id;
      }
    }
  }
  by_hash_.clear();
  return std::move(schedule_);
}

}  // namespace gridlock::sim
