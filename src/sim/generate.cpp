#include "gridlock/sim/generate.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::sim {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFU;
constexpr std::uint64_t kMaxSteps = 100'000'000;
// Nested repetitions the parser follows (it recurses once per level).
constexpr int kMaxNesting = 64;

// Parameters of one step, resolved once however often the step repeats.
struct StepParams {
  std::string kind;
  std::string algo;
  std::uint64_t size = 8;
  std::uint32_t root = 0;
  std::uint64_t segment = 8192;
  std::uint64_t compute_ps_per_byte = 0;
  std::uint64_t time_ps = 0;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> ring;  // unset: the step's occurrence index in the expanded program
  std::uint32_t dims[3] = {0, 0, 0};
  bool periodic = false;
};

struct Step {
  std::string name;
  std::map<std::string, std::string, std::less<>> params;
  std::size_t column = 0;
  StepParams resolved;  // filled by resolve_steps()
};

struct Item {
  std::uint64_t repeat = 1;
  std::unique_ptr<Step> step;  // a single step, or
  std::vector<Item> children;  // a repeated sub-sequence
  std::uint64_t steps = 0;     // steps it expands to, at most kMaxSteps + 1 (counted by count_steps)
};

// Allowed parameters of each step kind.
const std::map<std::string, std::vector<std::string>, std::less<>>& step_kinds() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kinds = {
      {"bcast", {"algo", "size", "root", "segment"}},
      {"reduce", {"algo", "size", "root", "compute"}},
      {"allreduce", {"algo", "size", "compute"}},
      {"allgather", {"algo", "size"}},
      {"alltoall", {"algo", "size"}},
      {"gather", {"size", "root"}},
      {"scatter", {"size", "root"}},
      {"barrier", {}},
      {"dissemination", {"size", "compute"}},
      {"randomring", {"size", "seed", "ring"}},
      {"halo3d", {"size", "dims", "periodic"}},
      {"calc", {"time"}},
  };
  return kinds;
}

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : text_(text) {}

  std::vector<Item> parse() {
    std::vector<Item> items = sequence();
    skip();
    if (pos_ != text_.size()) {
      fail("';' or the end of the program");
    }
    return items;
  }

 private:
  [[noreturn]] void fail(std::string_view expected) const {
    const std::string found =
        pos_ >= text_.size() ? std::string("the end") : fmt::format("'{}'", text_.substr(pos_, 12));
    throw InputError(
        fmt::format("program spec, column {}: expected {}, found {}", pos_ + 1, expected, found));
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) {
      ++pos_;
    }
  }
  bool eat(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string word() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::vector<Item> sequence() {
    std::vector<Item> items;
    do {
      items.push_back(item());
    } while (eat(';'));
    return items;
  }

  Item item() {
    skip();
    const std::size_t start = pos_;
    std::string name = word();
    if (name.empty()) {
      fail("a step name or a repetition such as '10x[...]'");
    }
    if (std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
      // k x [ ... ]  (the word may be "10x" or "10" followed by "x")
      std::size_t digits = 0;
      while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits])) != 0) {
        ++digits;
      }
      std::string rest = name.substr(digits);
      if (rest.empty()) {
        rest = word();
      }
      if (rest != "x" || digits > 9) {
        pos_ = start;
        fail("a repetition such as '10x[...]'");
      }
      Item item;
      item.repeat = std::stoull(name.substr(0, digits));
      if (!eat('[')) {
        fail("'[' after the repetition count");
      }
      if (depth_ == kMaxNesting) {
        pos_ = start;
        fail(fmt::format("at most {} nested repetitions", kMaxNesting));
      }
      ++depth_;
      item.children = sequence();
      --depth_;
      if (!eat(']')) {
        fail("']' closing the repetition");
      }
      return item;
    }
    const auto kind = step_kinds().find(name);
    if (kind == step_kinds().end()) {
      pos_ = start;
      std::string names;
      for (const auto& [k, unused] : step_kinds()) {
        names += (names.empty() ? "" : ", ") + k;
      }
      fail(fmt::format("a step name ({})", names));
    }
    auto step = std::make_unique<Step>();
    step->name = name;
    step->column = start + 1;
    if (eat('(')) {
      if (!eat(')')) {
        do {
          const std::size_t key_at = pos_;
          const std::string key = word();
          if (std::find(kind->second.begin(), kind->second.end(), key) == kind->second.end()) {
            pos_ = key_at;
            skip();
            fail(fmt::format("a parameter of {} ({})", name, fmt::join(kind->second, ", ")));
          }
          if (!eat('=')) {
            fail("'=' after the parameter name");
          }
          skip();
          const std::size_t value_start = pos_;
          while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ')') {
            ++pos_;
          }
          std::string value(text_.substr(value_start, pos_ - value_start));
          while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())) != 0) {
            value.pop_back();
          }
          if (value.empty()) {
            fail("a parameter value");
          }
          if (!step->params.emplace(key, value).second) {
            pos_ = key_at;
            fail(fmt::format("each parameter once ('{}' repeats)", key));
          }
        } while (eat(','));
        if (!eat(')')) {
          fail("',' or ')'");
        }
      }
    }
    Item item;
    item.step = std::move(step);
    return item;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

// Fills Item::steps bottom-up, saturating at kMaxSteps + 1; returns the sequence's total.
std::uint64_t count_steps(std::vector<Item>& items) {
  std::uint64_t total = 0;
  for (Item& item : items) {
    const std::uint64_t once = item.step ? 1 : count_steps(item.children);
    std::uint64_t n = 0;
    if (__builtin_mul_overflow(once, item.repeat, &n) || n > kMaxSteps) {
      n = kMaxSteps + 1;
    }
    item.steps = n;
    total = std::min(total + n, kMaxSteps + 1);
  }
  return total;
}

// Calls visit(params, ring) for every step `items` expands to, in order, without materialising the
// expansion (up to kMaxSteps steps from a few bytes of spec). `occurrence` counts the steps visited;
// it is randomring's ring unless the step names one.
template <typename Visit>
void for_each_step(const std::vector<Item>& items, std::uint64_t& occurrence, const Visit& visit) {
  for (const Item& item : items) {
    if (item.steps == 0) {
      continue;  // e.g. 999999999x[0x[...]]: nothing to repeat.
    }
    for (std::uint64_t k = 0; k < item.repeat; ++k) {
      if (item.step) {
        const StepParams& p = item.step->resolved;
        visit(p, p.ring.value_or(occurrence));
        ++occurrence;
      } else {
        for_each_step(item.children, occurrence, visit);
      }
    }
  }
}

std::uint64_t parse_uint(std::string_view text, std::string_view what) {
  if (text.empty() || text.size() > 19 || !std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    throw InputError(fmt::format("invalid {} '{}': expected a non-negative integer", what, text));
  }
  return std::stoull(std::string(text));
}

// Balanced 3-D factorisation of p (largest factor first), like MPI_Dims_create.
void balanced_dims(std::uint32_t p, std::uint32_t (&dims)[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  std::uint32_t rest = p;
  std::vector<std::uint32_t> factors;
  for (std::uint32_t f = 2; static_cast<std::uint64_t>(f) * f <= rest; ++f) {
    while (rest % f == 0) {
      factors.push_back(f);
      rest /= f;
    }
  }
  if (rest > 1) {
    factors.push_back(rest);
  }
  std::sort(factors.rbegin(), factors.rend());
  for (const std::uint32_t f : factors) {
    std::sort(std::begin(dims), std::end(dims));
    dims[0] *= f;
  }
  std::sort(std::rbegin(dims), std::rend(dims));
}

// The algorithms of each collective with a choice, the default first.
const std::map<std::string, std::vector<std::string>, std::less<>>& algorithms() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kAlgos = {
      {"bcast", {"binomial", "binary", "chain"}},
      {"reduce", {"binomial"}},
      {"allreduce", {"recdoub", "ring", "dissemination"}},
      {"allgather", {"ring", "bruck"}},
      {"alltoall", {"linear", "pairwise"}}};
  return kAlgos;
}

StepParams resolve(const Step& step, std::uint32_t ranks, std::uint64_t seed) {
  StepParams p;
  p.kind = step.name;
  const auto get = [&](std::string_view key) -> const std::string* {
    const auto it = step.params.find(key);
    return it == step.params.end() ? nullptr : &it->second;
  };
  const auto where = [&](std::string_view key) {
    return fmt::format("{} parameter '{}' (column {})", step.name, key, step.column);
  };
  if (const auto algo = algorithms().find(p.kind); algo != algorithms().end()) {
    p.algo = algo->second.front();
    if (const std::string* v = get("algo")) {
      const auto& allowed = algo->second;
      if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
        throw InputError(
            fmt::format("invalid {} '{}': use one of {}", where("algo"), *v, fmt::join(allowed, ", ")));
      }
      p.algo = *v;
    }
  }
  if (p.kind == "barrier") {
    p.size = 1;
  }
  if (const std::string* v = get("size")) {
    p.size = parse_byte_size(*v, where("size"));
  }
  if (const std::string* v = get("root")) {
    const std::uint64_t root = parse_uint(*v, where("root"));
    if (root >= ranks) {
      throw InputError(
          fmt::format("invalid {} {}: must be below the number of ranks {}", where("root"), root, ranks));
    }
    p.root = static_cast<std::uint32_t>(root);
  }
  if (const std::string* v = get("segment")) {
    p.segment = parse_byte_size(*v, where("segment"));
    if (p.segment == 0) {
      throw InputError(fmt::format("invalid {}: must be at least 1 byte", where("segment")));
    }
  }
  if (const std::string* v = get("compute")) {
    p.compute_ps_per_byte = parse_time_ps(*v, where("compute") + " (time per byte)");
  }
  if (p.kind == "calc") {
    const std::string* v = get("time");
    if (v == nullptr) {
      throw InputError(
          fmt::format("calc step at column {} needs time=..., e.g. calc(time=10us)", step.column));
    }
    p.time_ps = parse_time_ps(*v, where("time"));
  }
  p.seed = seed;
  if (const std::string* v = get("seed")) {
    p.seed = parse_uint(*v, where("seed"));
  }
  if (const std::string* v = get("ring")) {
    p.ring = parse_uint(*v, where("ring"));
  }
  if (const std::string* v = get("periodic")) {
    if (*v != "0" && *v != "1") {
      throw InputError(fmt::format("invalid {} '{}': use 0 or 1", where("periodic"), *v));
    }
    p.periodic = *v == "1";
  }
  if (p.kind == "halo3d") {
    if (const std::string* v = get("dims")) {
      std::uint64_t product = 1;
      std::size_t start = 0;
      for (int d = 0; d < 3; ++d) {
        const std::size_t end = d < 2 ? v->find('x', start) : v->size();
        if (end == std::string::npos) {
          throw InputError(fmt::format("invalid {} '{}': expected XxYxZ, e.g. 8x8x16", where("dims"), *v));
        }
        const std::uint64_t n = parse_uint(std::string_view(*v).substr(start, end - start), where("dims"));
        if (n == 0 || n > ranks) {
          throw InputError(
              fmt::format("invalid {} '{}': each dimension must be 1 .. ranks", where("dims"), *v));
        }
        p.dims[d] = static_cast<std::uint32_t>(n);
        product *= n;
        start = end + 1;
      }
      if (product != ranks) {
        throw InputError(fmt::format("invalid {} '{}': the product {} must equal the number of ranks {}",
                                     where("dims"), *v, product, ranks));
      }
    } else {
      balanced_dims(ranks, p.dims);
    }
  }
  return p;
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw InputError(fmt::format("{} overflows 64 bits", what));
  }
  return r;
}

// Emits the ops of one rank, step after step.
// Peers are positions in the group the step runs on: the whole schedule (generate()) or a
// communicator's members (emit_collective()); `members` maps them to ranks, `tag_base` moves the
// step's tags out of the way of other traffic.
class RankEmitter {
 public:
  RankEmitter(ScheduleBuilder& b, std::uint32_t ranks) : b_(b), p_(ranks) {}
  RankEmitter(ScheduleBuilder& b, std::span<const std::uint32_t> members, std::uint32_t tag_base)
      : b_(b), p_(static_cast<std::uint32_t>(members.size())), members_(members), tag_base_(tag_base) {}

  // The ops the next step's first ops require (emit_collective() sets them from the caller).
  void set_after(std::span<const std::uint32_t> ops) { prev_sinks_.assign(ops.begin(), ops.end()); }
  // The last step's final ops (or the ones set with set_after() when it emitted nothing).
  [[nodiscard]] const std::vector<std::uint32_t>& sinks() const noexcept { return prev_sinks_; }

  // Starts the next rank (the emitter's buffers are reused across ranks).
  void reset(std::uint32_t rank) {
    r_ = rank;
    prev_sinks_.clear();
  }

  // Emits one step; `ring` is the random ring's index when the step is a randomring.
  void step(const StepParams& params, std::uint64_t ring) {
    ring_ = ring;
    const std::uint32_t begin = b_.current_size();
    emit(params);
    const std::uint32_t end = b_.current_size();
    if (begin == end) {
      return;
    }
    std::vector<std::uint32_t>& sources = sources_;
    std::vector<std::uint32_t>& sinks = sinks_;
    sources.clear();
    sinks.clear();
    for (std::uint32_t i = begin; i < end; ++i) {
      if (!b_.has_predecessor(i)) {
        sources.push_back(i);
      }
      if (!b_.has_successor(i)) {
        sinks.push_back(i);
      }
    }
    if (!prev_sinks_.empty()) {
      if (prev_sinks_.size() * sources.size() > prev_sinks_.size() + sources.size()) {
        const std::uint32_t join = b_.calc(SimTime{0});
        for (const std::uint32_t s : prev_sinks_) {
          b_.add_requires(join, s);
        }
        for (const std::uint32_t s : sources) {
          b_.add_requires(s, join);
        }
      } else {
        for (const std::uint32_t src : sources) {
          for (const std::uint32_t s : prev_sinks_) {
            b_.add_requires(src, s);
          }
        }
      }
    }
    prev_sinks_.swap(sinks);
  }

 private:
  [[nodiscard]] std::uint32_t at(std::int64_t offset) const {
    const auto p = static_cast<std::int64_t>(p_);
    return static_cast<std::uint32_t>(((static_cast<std::int64_t>(r_) + offset) % p + p) % p);
  }
  void after(std::uint32_t op, const std::vector<std::uint32_t>& deps) {
    for (const std::uint32_t d : deps) {
      b_.add_requires(op, d);
    }
  }
  // Adds a reduction calc after `recv` when the step has a compute cost; returns the op to wait for.
  std::uint32_t reduce_after(std::uint32_t recv, std::uint64_t bytes, const StepParams& s) {
    if (s.compute_ps_per_byte == 0) {
      return recv;
    }
    const std::uint32_t c = b_.calc(SimTime{checked_mul(bytes, s.compute_ps_per_byte, "reduction time")});
    b_.add_requires(c, recv);
    return c;
  }

  void emit(const StepParams& s) {
    if (s.kind == "calc") {
      (void)b_.calc(SimTime{s.time_ps});
    } else if (s.kind == "bcast") {
      if (s.algo == "binomial") {
        binomial_bcast(s);
      } else if (s.algo == "binary") {
        binary_bcast(s);
      } else {
        chain_bcast(s);
      }
    } else if (s.kind == "reduce") {
      binomial_reduce(s);
    } else if (s.kind == "barrier" || s.kind == "dissemination" ||
               (s.kind == "allreduce" && s.algo == "dissemination")) {
      dissemination(s);
    } else if (s.kind == "allreduce") {
      if (s.algo == "recdoub") {
        recursive_doubling(s);
      } else {
        ring(s, true);
      }
    } else if (s.kind == "allgather") {
      if (s.algo == "ring") {
        ring(s, false);
      } else {
        bruck(s);
      }
    } else if (s.kind == "alltoall") {
      alltoall(s);
    } else if (s.kind == "gather") {
      gather(s);
    } else if (s.kind == "scatter") {
      scatter(s);
    } else if (s.kind == "randomring") {
      random_ring(s);
    } else if (s.kind == "halo3d") {
      halo(s);
    }
  }

  [[nodiscard]] std::uint32_t vrank(const StepParams& s) const { return (r_ + p_ - s.root) % p_; }
  [[nodiscard]] std::uint32_t real(std::uint64_t v, const StepParams& s) const {
    return static_cast<std::uint32_t>((v + s.root) % p_);
  }

  void binomial_bcast(const StepParams& s) {
    const std::uint64_t v = vrank(s);
    std::uint32_t recv = kNone;
    std::uint64_t mask = 1;
    while (mask < p_) {
      if ((v & mask) != 0) {
        recv = recv_from(s.size, real(v - mask, s));
        break;
      }
      mask <<= 1U;
    }
    mask >>= 1U;
    while (mask > 0) {
      if (v + mask < p_) {
        const std::uint32_t send = send_to(s.size, real(v + mask, s));
        if (recv != kNone) {
          b_.add_requires(send, recv);
        }
      }
      mask >>= 1U;
    }
  }

  void binary_bcast(const StepParams& s) {
    const std::uint64_t v = vrank(s);
    std::uint32_t recv = kNone;
    if (v > 0) {
      recv = recv_from(s.size, real((v - 1) / 2, s));
    }
    for (std::uint64_t child = 2 * v + 1; child <= 2 * v + 2 && child < p_; ++child) {
      const std::uint32_t send = send_to(s.size, real(child, s));
      if (recv != kNone) {
        b_.add_requires(send, recv);
      }
    }
  }

  void chain_bcast(const StepParams& s) {
    const std::uint64_t v = vrank(s);
    const std::uint64_t segments = s.size == 0 ? 1 : (s.size + s.segment - 1) / s.segment;
    if (segments > kMaxOpsPerRank / 2) {
      throw InputError(fmt::format("chain broadcast with {} segments is too large", segments));
    }
    // Receives are all posted at once; segment i is forwarded after it arrived and after
    // segment i-1 was sent (segments leave in order, as MPI libraries send them).
    std::uint32_t previous_send = kNone;
    for (std::uint64_t i = 0; i < segments; ++i) {
      const std::uint64_t bytes = std::min(s.segment, s.size - std::min(s.size, i * s.segment));
      std::uint32_t recv = kNone;
      if (v > 0) {
        recv = recv_from(bytes, real(v - 1, s));
      }
      if (v + 1 < p_) {
        const std::uint32_t send = send_to(bytes, real(v + 1, s));
        if (recv != kNone) {
          b_.add_requires(send, recv);
        }
        if (previous_send != kNone) {
          b_.add_requires(send, previous_send);
        }
        previous_send = send;
      }
    }
  }

  void binomial_reduce(const StepParams& s) {
    const std::uint64_t v = vrank(s);
    std::uint32_t last = kNone;
    for (std::uint64_t mask = 1; mask < p_; mask <<= 1U) {
      if ((v & mask) == 0) {
        const std::uint64_t child = v | mask;
        if (child < p_) {
          const std::uint32_t recv = recv_from(s.size, real(child, s));
          if (last != kNone) {
            b_.add_requires(recv, last);
          }
          last = reduce_after(recv, s.size, s);
        }
      } else {
        const std::uint32_t send = send_to(s.size, real(v & ~mask, s));
        if (last != kNone) {
          b_.add_requires(send, last);
        }
        break;
      }
    }
  }

  void dissemination(const StepParams& s) {
    std::uint32_t prev = kNone;
    for (std::uint64_t dist = 1; dist < p_; dist <<= 1U) {
      const std::uint32_t send = send_to(s.size, at(static_cast<std::int64_t>(dist)));
      if (prev != kNone) {
        b_.add_requires(send, prev);
      }
      const std::uint32_t recv = recv_from(s.size, at(-static_cast<std::int64_t>(dist)));
      prev = reduce_after(recv, s.size, s);
    }
  }

  void recursive_doubling(const StepParams& s) {
    std::uint64_t p2 = 1;
    while (p2 * 2 <= p_) {
      p2 *= 2;
    }
    const std::uint64_t rem = p_ - p2;
    std::vector<std::uint32_t> prev;
    std::int64_t newrank = 0;
    if (r_ < 2 * rem) {
      if (r_ % 2 == 0) {
        prev = {send_to(s.size, r_ + 1)};
        newrank = -1;
      } else {
        prev = {reduce_after(recv_from(s.size, r_ - 1), s.size, s)};
        newrank = r_ / 2;
      }
    } else {
      newrank = static_cast<std::int64_t>(r_ - rem);
    }
    if (newrank >= 0) {
      for (std::uint64_t mask = 1; mask < p2; mask <<= 1U) {
        const std::uint64_t partner = static_cast<std::uint64_t>(newrank) ^ mask;
        const auto dst = static_cast<std::uint32_t>(partner < rem ? partner * 2 + 1 : partner + rem);
        const std::uint32_t send = send_to(s.size, dst);
        const std::uint32_t recv = recv_from(s.size, dst);
        after(send, prev);
        after(recv, prev);
        prev = {send, reduce_after(recv, s.size, s)};
      }
    }
    if (r_ < 2 * rem) {
      const std::uint32_t op = r_ % 2 == 1 ? send_to(s.size, r_ - 1) : recv_from(s.size, r_ + 1);
      after(op, prev);
    }
  }

  // Ring allreduce (reduce-scatter then allgather, 2(P-1) steps of size/P) or ring allgather
  // (P-1 steps of `size`, the per-rank block).
  void ring(const StepParams& s, bool allreduce) {
    if (p_ < 2) {
      return;
    }
    const std::uint64_t chunk = allreduce ? (s.size + p_ - 1) / p_ : s.size;
    const std::uint64_t steps = allreduce ? 2ULL * (p_ - 1) : p_ - 1;
    std::vector<std::uint32_t> prev;
    for (std::uint64_t k = 0; k < steps; ++k) {
      const std::uint32_t send = send_to(chunk, at(1));
      const std::uint32_t recv = recv_from(chunk, at(-1));
      after(send, prev);
      after(recv, prev);
      const bool reduces = allreduce && k < p_ - 1;
      prev = {send, reduces ? reduce_after(recv, chunk, s) : recv};
    }
  }

  void bruck(const StepParams& s) {
    std::vector<std::uint32_t> prev;
    for (std::uint64_t dist = 1; dist < p_; dist <<= 1U) {
      const std::uint64_t blocks = std::min<std::uint64_t>(dist, p_ - dist);
      const std::uint64_t bytes = checked_mul(blocks, s.size, "Bruck message size");
      const std::uint32_t send = send_to(bytes, at(-static_cast<std::int64_t>(dist)));
      const std::uint32_t recv = recv_from(bytes, at(static_cast<std::int64_t>(dist)));
      after(send, prev);
      after(recv, prev);
      prev = {send, recv};
    }
  }

  void alltoall(const StepParams& s) {
    if (s.algo == "linear") {
      for (std::uint32_t i = 1; i < p_; ++i) {
        (void)send_to(s.size, at(i));
      }
      for (std::uint32_t i = 1; i < p_; ++i) {
        (void)recv_from(s.size, at(-static_cast<std::int64_t>(i)));
      }
      return;
    }
    std::vector<std::uint32_t> prev;
    for (std::uint32_t i = 1; i < p_; ++i) {
      const std::uint32_t send = send_to(s.size, at(i));
      const std::uint32_t recv = recv_from(s.size, at(-static_cast<std::int64_t>(i)));
      after(send, prev);
      after(recv, prev);
      prev = {send, recv};
    }
  }

  void gather(const StepParams& s) {
    if (r_ != s.root) {
      (void)send_to(s.size, s.root);
      return;
    }
    for (std::uint32_t i = 1; i < p_; ++i) {
      (void)recv_from(s.size, at(i));
    }
  }

  void scatter(const StepParams& s) {
    if (r_ != s.root) {
      (void)recv_from(s.size, s.root);
      return;
    }
    for (std::uint32_t i = 1; i < p_; ++i) {
      (void)send_to(s.size, at(i));
    }
  }

  void random_ring(const StepParams& s) {
    if (p_ < 2) {
      return;
    }
    const RingNeighbours nb = random_ring_neighbours(p_, r_, s.seed, ring_);
    const auto left = static_cast<std::uint32_t>(nb.left);
    const auto right = static_cast<std::uint32_t>(nb.right);
    (void)send_to(s.size, right, 0);
    (void)send_to(s.size, left, 1);
    (void)recv_from(s.size, left, 0);
    (void)recv_from(s.size, right, 1);
  }

  void halo(const StepParams& s) {
    const std::uint32_t x = s.dims[0];
    const std::uint32_t y = s.dims[1];
    const std::uint32_t z = s.dims[2];
    const std::int64_t coord[3] = {r_ % x, (r_ / x) % y,
                                   static_cast<std::int64_t>(r_ / (static_cast<std::uint64_t>(x) * y))};
    const std::int64_t extent[3] = {x, y, z};
    const std::int64_t stride[3] = {1, x, static_cast<std::int64_t>(x) * y};
    std::uint32_t neighbour[6];
    bool exists[6];
    for (int d = 0; d < 6; ++d) {
      const int axis = d / 2;
      const std::int64_t step = d % 2 == 0 ? -1 : 1;
      std::int64_t c = coord[axis] + step;
      exists[d] = extent[axis] > 1 && (s.periodic || (c >= 0 && c < extent[axis]));
      c = (c + extent[axis]) % extent[axis];
      neighbour[d] = static_cast<std::uint32_t>(r_ + (c - coord[axis]) * stride[axis]);
    }
    for (int d = 0; d < 6; ++d) {
      if (exists[d]) {
        (void)send_to(s.size, neighbour[d], static_cast<std::uint32_t>(d));
      }
    }
    for (int d = 0; d < 6; ++d) {
      if (exists[d]) {
        // The neighbour in direction d sent its message in the opposite direction.
        (void)recv_from(s.size, neighbour[d], static_cast<std::uint32_t>(d ^ 1));
      }
    }
  }

  // A send or receive to group position `peer` with the step's tag `tag`.
  std::uint32_t send_to(std::uint64_t bytes, std::uint32_t peer, std::uint32_t tag = 0) {
    return b_.send(bytes, members_.empty() ? peer : members_[peer], tag_base_ + tag);
  }
  std::uint32_t recv_from(std::uint64_t bytes, std::uint32_t peer, std::uint32_t tag = 0) {
    return b_.recv(bytes, members_.empty() ? peer : members_[peer], tag_base_ + tag);
  }

  ScheduleBuilder& b_;
  std::uint32_t r_ = 0;
  std::uint32_t p_;
  std::span<const std::uint32_t> members_;
  std::uint32_t tag_base_ = 0;
  std::uint64_t ring_ = 0;
  std::vector<std::uint32_t> prev_sinks_;
  std::vector<std::uint32_t> sources_;
  std::vector<std::uint32_t> sinks_;
};

// Resolves every step of `items` once, in spec order (parameter and layout errors), including steps
// repeated zero times: a typo there is still a typo.
void resolve_steps(std::vector<Item>& items, std::uint32_t ranks, std::uint64_t seed) {
  for (Item& item : items) {
    if (item.step) {
      item.step->resolved = resolve(*item.step, ranks, seed);
    } else {
      resolve_steps(item.children, ranks, seed);
    }
  }
}

// The parsed and resolved spec (parse, size and layout errors).
std::vector<Item> resolve_spec(std::string_view spec, std::uint32_t ranks, std::uint64_t seed) {
  std::vector<Item> items = SpecParser(spec).parse();
  if (count_steps(items) > kMaxSteps) {
    throw InputError(fmt::format("program spec expands to more than {} steps", kMaxSteps));
  }
  resolve_steps(items, ranks, seed);
  return items;
}

// Iterations of `for (dist = 1; dist < p; dist <<= 1)`: ceil(log2 p), 0 for one rank.
std::uint64_t doubling_rounds(std::uint64_t p) noexcept {
  std::uint64_t rounds = 0;
  for (std::uint64_t dist = 1; dist < p; dist <<= 1U) {
    ++rounds;
  }
  return rounds;
}

// The operations one step adds over all `p` ranks, as RankEmitter emits them, rounded up: a rank
// may add one join calc before a step, and a reduction adds a calc after each receive.
std::uint64_t step_ops(const StepParams& s, std::uint64_t p) noexcept {
  const std::uint64_t reduce = s.compute_ps_per_byte > 0 ? 1 : 0;
  const std::uint64_t pairs = p - 1;  // one send and one receive per non-root rank
  std::uint64_t per_rank = 0;         // bound on one rank's ops, for the steps every rank runs alike
  std::uint64_t total = 0;            // or the total, for the rooted steps
  if (s.kind == "calc") {
    per_rank = 1;
  } else if (s.kind == "bcast" && s.algo == "chain") {
    const std::uint64_t segments = s.size == 0 ? 1 : s.size / s.segment + 1;
    total = saturating_mul(segments, saturating_mul(2, pairs));
  } else if (s.kind == "bcast" || s.kind == "gather" || s.kind == "scatter") {
    total = saturating_mul(2, pairs);
  } else if (s.kind == "reduce") {
    total = saturating_mul(2 + reduce, pairs);
  } else if (s.kind == "allreduce" && s.algo == "ring") {
    per_rank = saturating_mul(saturating_mul(2, pairs), 2 + reduce);
  } else if (s.kind == "alltoall" || (s.kind == "allgather" && s.algo == "ring")) {
    per_rank = saturating_mul(2, pairs);
  } else if (s.kind == "barrier" || s.kind == "dissemination" || s.kind == "allgather" ||
             s.kind == "allreduce") {
    // Dissemination, Bruck and recursive doubling: a send, a receive (and a reduction) per round,
    // recursive doubling one more exchange beyond its power of two.
    const bool power_of_two = (p & (p - 1)) == 0;
    per_rank = saturating_add(saturating_mul(doubling_rounds(p), 2 + reduce), power_of_two ? 0 : 2);
  } else if (s.kind == "randomring") {
    per_rank = p < 2 ? 0 : 4;
  } else if (s.kind == "halo3d") {
    // A send and a receive each way along every dimension longer than one.
    for (const std::uint32_t extent : s.dims) {
      per_rank += extent > 1 ? 4 : 0;
    }
  }
  // A calc step starts from one op and one rank talks to nobody: neither needs a join.
  const std::uint64_t joins = s.kind == "calc" || p < 2 ? 0 : p;
  return saturating_add(saturating_add(saturating_mul(per_rank, p), total), joins);
}

std::uint64_t count_ops(const std::vector<Item>& items, std::uint64_t p) noexcept {
  std::uint64_t total = 0;
  for (const Item& item : items) {
    if (item.steps == 0) {
      continue;
    }
    const std::uint64_t once = item.step ? step_ops(item.step->resolved, p) : count_ops(item.children, p);
    total = saturating_add(total, saturating_mul(once, item.repeat));
  }
  return total;
}

}  // namespace

void check_program(std::string_view spec, std::uint32_t ranks, std::uint64_t seed) {
  if (ranks == 0 || ranks > kMaxRanks) {
    throw InputError(fmt::format("number of ranks must be between 1 and {}, got {}", kMaxRanks, ranks));
  }
  static_cast<void>(resolve_spec(spec, ranks, seed));
}

std::uint64_t estimate_program_ops(std::string_view spec, std::uint32_t ranks, std::uint64_t seed) {
  if (ranks == 0 || ranks > kMaxRanks) {
    throw InputError(fmt::format("number of ranks must be between 1 and {}, got {}", kMaxRanks, ranks));
  }
  return count_ops(resolve_spec(spec, ranks, seed), ranks);
}

Schedule generate(std::string_view spec, std::uint32_t ranks, std::uint64_t seed) {
  ScheduleBuilder builder(ranks);
  const std::vector<Item> items = resolve_spec(spec, ranks, seed);
  RankEmitter emitter(builder, ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    builder.begin_rank(r);
    emitter.reset(r);
    std::uint64_t occurrence = 0;
    for_each_step(items, occurrence, [&](const StepParams& p, std::uint64_t ring) { emitter.step(p, ring); });
    builder.end_rank();
  }
  return builder.finish();
}

std::vector<std::string> collective_algorithms(std::string_view kind) {
  if (const auto it = algorithms().find(kind); it != algorithms().end()) {
    return it->second;
  }
  if (kind == "gather" || kind == "scatter") {
    return {"linear"};
  }
  if (kind == "barrier") {
    return {"dissemination"};
  }
  return {};
}

std::vector<std::uint32_t> emit_collective(ScheduleBuilder& builder, const CollectiveStep& step,
                                           std::span<const std::uint32_t> members, std::uint32_t position,
                                           std::uint32_t tag_base, std::span<const std::uint32_t> after) {
  const std::vector<std::string> algos = collective_algorithms(step.kind);
  if (algos.empty()) {
    throw InputError(
        fmt::format("no collective named '{}': use bcast, reduce, allreduce, allgather, alltoall, "
                    "gather, scatter or barrier",
                    step.kind));
  }
  if (!step.algo.empty() && std::find(algos.begin(), algos.end(), step.algo) == algos.end()) {
    throw InputError(fmt::format("no {} algorithm named '{}': use one of {}", step.kind, step.algo,
                                 fmt::join(algos, ", ")));
  }
  if (members.empty() || members.size() > kMaxRanks || position >= members.size() ||
      step.root >= members.size()) {
    throw InputError(fmt::format("{} on a group of {} ranks: position {} or root {} is outside it", step.kind,
                                 members.size(), position, step.root));
  }
  StepParams p;
  p.kind = step.kind;
  // The generator's own names: gather and scatter are linear, barrier is a dissemination.
  p.algo = algorithms().contains(step.kind) ? (step.algo.empty() ? algos.front() : step.algo) : "";
  p.size = step.kind == "barrier" ? 1 : step.size_bytes;
  p.root = step.root;
  p.compute_ps_per_byte = step.compute_ps_per_byte;
  if (step.segment_bytes == 0) {
    throw InputError(fmt::format("{}: the segment size must be at least 1 byte", step.kind));
  }
  p.segment = step.segment_bytes;
  RankEmitter emitter(builder, members, tag_base);
  emitter.reset(position);
  emitter.set_after(after);
  emitter.step(p, 0);
  return emitter.sinks();
}

std::string generator_help() {
  return R"(Program spec: steps separated by ';', each name(key=value, ...); 'k x [ ... ]' repeats.
  bcast(algo=binomial|binary|chain, size=8B, root=0, segment=8KiB)   broadcast
  reduce(algo=binomial, size=8B, root=0, compute=0)                  binomial-tree reduce
  allreduce(algo=recdoub|ring|dissemination, size=8B, compute=0)     allreduce
  allgather(algo=ring|bruck, size=8B)                                size is the per-rank block
  alltoall(algo=linear|pairwise, size=8B)                            size is per destination
  gather(size=8B, root=0), scatter(size=8B, root=0)                  linear
  barrier, dissemination(size=8B, compute=0)                         dissemination pattern
  randomring(size=8B, seed=<--seed>, ring=<step index>)              random-ring neighbour exchange
  halo3d(size=8B, dims=XxYxZ (balanced), periodic=0)                 7-point halo exchange
  calc(time=10us)                                                    local computation
compute is the reduction time per byte (e.g. compute=0.5ns). Example:
  10x[allreduce(size=8B); calc(time=50us); halo3d(size=4KiB)])";
}

}  // namespace gridlock::sim
