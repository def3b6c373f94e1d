// GOAL text: a strict hand-written parser (LogGOPSim's language) and a writer.
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {
namespace {

// ASCII classification without the C locale (and much faster than std::isalnum).
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

struct Position {
  std::size_t offset = 0;
  std::uint32_t line = 1;
  std::size_t line_start = 0;
  // The column in bytes; equal to the column in characters on lines without non-ASCII text before it.
  [[nodiscard]] std::uint32_t byte_column() const {
    return static_cast<std::uint32_t>(offset - line_start + 1);
  }
};

struct PendingDependency {
  std::string_view dependant;
  Position dependant_at;
  std::string_view dependency;
  Position dependency_at;
  bool start_only = false;
};

class GoalParser {
 public:
  // A byte-order mark is not part of the text: offsets and line 1's columns count from after it.
  GoalParser(std::string_view text, std::string_view name, bool keep, std::uint32_t max_ranks,
             MemoryBudget* budget, std::uint64_t extra_bytes_per_rank)
      : text_(without_utf8_bom(text)),
        name_(name),
        keep_(keep),
        max_ranks_(max_ranks),
        budget_(budget),
        extra_bytes_per_rank_(extra_bytes_per_rank) {}

  Schedule parse() {
    for (;;) {
      skip_all();
      if (at_end()) {
        break;
      }
      const Position at = pos_;
      const std::string_view word = read_word();
      if (word == "num_ranks") {
        if (builder_) {
          fail_at(at, "at most one 'num_ranks' line", "a second 'num_ranks'");
        }
        skip_inline();
        const Position number_at = pos_;
        const std::uint64_t n = read_uint("the number of ranks");
        if (n == 0 || n > max_ranks_) {
          fail_at(number_at, fmt::format("a number of ranks between 1 and {}", max_ranks_),
                  fmt::format("{}", n));
        }
        num_ranks_ = static_cast<std::uint32_t>(n);
        if (budget_ != nullptr) {
          budget_->reserve(saturating_add(estimate_schedule_rank_bytes(n, keep_),
                                          saturating_mul(n, extra_bytes_per_rank_)),
                           fmt::format("{}:{}: num_ranks {}", name_, number_at.line, n),
                           "give a schedule of fewer ranks");
        }
        builder_.emplace(num_ranks_);
        if (keep_) {
          sources_.resize(num_ranks_);
        }
        end_statement();
      } else if (word == "rank") {
        if (!builder_) {
          fail_at(at, "'num_ranks N' before the first rank block", "'rank'");
        }
        skip_inline();
        const Position number_at = pos_;
        const std::uint64_t r = read_uint("a rank number");
        if (r >= num_ranks_) {
          fail_at(number_at, fmt::format("a rank below num_ranks {}", num_ranks_), fmt::format("rank {}", r));
        }
        skip_all();
        if (peek() != '{') {
          fail("'{' opening the rank block");
        }
        advance();
        parse_rank(static_cast<std::uint32_t>(r), at);
      } else if (word.empty()) {
        fail("'num_ranks' or 'rank'");
      } else {
        fail_at(at, "'num_ranks' or 'rank'", quote(word));
      }
    }
    if (!builder_) {
      fail("'num_ranks N'");
    }
    Schedule schedule = builder_->finish();
    if (keep_) {
      schedule.set_sources(std::move(sources_), std::move(label_names_));
    }
    return schedule;
  }

 private:
  [[nodiscard]] bool at_end() const { return pos_.offset >= text_.size(); }
  [[nodiscard]] char peek() const { return at_end() ? '\0' : text_[pos_.offset]; }
  void advance() {
    if (text_[pos_.offset] == '\n') {
      ++pos_.line;
      pos_.line_start = pos_.offset + 1;
    }
    ++pos_.offset;
  }

  [[nodiscard]] std::string describe(std::size_t offset) const {
    if (offset >= text_.size()) {
      return "end of file";
    }
    const char c = text_[offset];
    if (c == '\n' || c == '\r') {
      return "end of line";
    }
    if (is_ident_char(c) || c == '-' || c == '.') {
      std::size_t end = offset;
      while (end < text_.size() && end - offset < 40 &&
             (is_ident_char(text_[end]) || text_[end] == '-' || text_[end] == '.')) {
        ++end;
      }
      return quote(text_.substr(offset, end - offset));
    }
    if (std::isprint(static_cast<unsigned char>(c)) != 0) {
      return fmt::format("'{}'", c);
    }
    return fmt::format("byte 0x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
  }
  static std::string quote(std::string_view word) { return fmt::format("'{}'", word); }

  // The column as editors count it: UTF-8 code points (bytes that are not continuation bytes)
  // from the start of the line. Only for messages and lines with non-ASCII text (a scan of the line).
  [[nodiscard]] std::uint32_t column(const Position& at) const {
    std::uint32_t count = 1;
    for (std::size_t i = at.line_start; i < at.offset && i < text_.size(); ++i) {
      count += (static_cast<unsigned char>(text_[i]) & 0xC0U) != 0x80U ? 1 : 0;
    }
    return count;
  }

  [[noreturn]] void fail_at(const Position& at, std::string_view expected, std::string_view found) const {
    throw InputError(
        fmt::format("{}:{}:{}: expected {}, found {}", name_, at.line, column(at), expected, found));
  }
  [[noreturn]] void fail(std::string_view expected) const { fail_at(pos_, expected, describe(pos_.offset)); }

  void skip_block_comment() {
    const Position start = pos_;
    pos_.offset += 2;
    for (;;) {
      if (at_end()) {
        fail_at(start, "'*/' closing this comment", "end of file");
      }
      if (text_[pos_.offset] == '*' && pos_.offset + 1 < text_.size() && text_[pos_.offset + 1] == '/') {
        pos_.offset += 2;
        return;
      }
      // Operations are ASCII and a line comment ends its line: only a block comment can put
      // non-ASCII text before an operation on its line.
      if (static_cast<unsigned char>(text_[pos_.offset]) >= 0x80U) {
        multibyte_line_ = pos_.line;
      }
      advance();
    }
  }
  // Skips spaces, tabs, carriage returns and comments, but stops at a line break.
  void skip_inline() {
    while (!at_end()) {
      const char c = text_[pos_.offset];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_.offset;
      } else if (c == '/' && pos_.offset + 1 < text_.size() && text_[pos_.offset + 1] == '*') {
        skip_block_comment();
      } else if (c == '/' && pos_.offset + 1 < text_.size() && text_[pos_.offset + 1] == '/') {
        while (!at_end() && text_[pos_.offset] != '\n') {
          ++pos_.offset;
        }
      } else {
        return;
      }
    }
  }
  void skip_all() {
    for (;;) {
      skip_inline();
      if (peek() != '\n') {
        return;
      }
      advance();
    }
  }
  // A statement ends at a line break, at the end of the file, or before the closing '}'.
  void end_statement() {
    skip_inline();
    if (at_end() || peek() == '}') {
      return;
    }
    if (peek() != '\n') {
      fail("the end of the line");
    }
    advance();
  }

  std::string_view read_word() {
    const std::size_t start = pos_.offset;
    if (at_end() || !is_ident_start(text_[start])) {
      return {};
    }
    while (!at_end() && is_ident_char(text_[pos_.offset])) {
      ++pos_.offset;
    }
    return text_.substr(start, pos_.offset - start);
  }

  std::uint64_t read_uint(std::string_view what) {
    const Position start = pos_;
    if (!is_digit(peek())) {
      fail(what);
    }
    std::uint64_t value = 0;
    bool overflow = false;
    while (is_digit(peek())) {
      overflow = overflow || __builtin_mul_overflow(value, 10U, &value) ||
                 __builtin_add_overflow(value, static_cast<std::uint64_t>(peek() - '0'), &value);
      ++pos_.offset;
    }
    if (overflow) {
      fail_at(start, fmt::format("{} below 2^64", what), "a number that overflows 64 bits");
    }
    return value;
  }

  // A rank, or -1 (any) when `allow_any`.
  std::uint32_t read_peer(bool allow_any) {
    const Position start = pos_;
    if (peek() == '-') {
      if (allow_any && pos_.offset + 1 < text_.size() && text_[pos_.offset + 1] == '1' &&
          (pos_.offset + 2 >= text_.size() || !is_ident_char(text_[pos_.offset + 2]))) {
        pos_.offset += 2;
        return kAnySource;
      }
      fail(allow_any ? "a rank or -1 (any source)" : "a rank");
    }
    const std::uint64_t peer = read_uint(allow_any ? "a rank or -1 (any source)" : "a rank");
    if (peer >= num_ranks_) {
      fail_at(start, fmt::format("a peer below num_ranks {}", num_ranks_), fmt::format("peer {}", peer));
    }
    return static_cast<std::uint32_t>(peer);
  }

  std::uint32_t read_tag(bool allow_any) {
    const Position start = pos_;
    if (peek() == '-') {
      if (allow_any && pos_.offset + 1 < text_.size() && text_[pos_.offset + 1] == '1' &&
          (pos_.offset + 2 >= text_.size() || !is_ident_char(text_[pos_.offset + 2]))) {
        pos_.offset += 2;
        return kAnyTag;
      }
      fail(allow_any ? "a tag or -1 (any tag)" : "a non-negative tag (sends cannot use -1)");
    }
    const std::uint64_t tag = read_uint("a tag");
    if (tag >= kAnyTag) {
      fail_at(start, fmt::format("a tag below {}", kAnyTag), fmt::format("tag {}", tag));
    }
    return static_cast<std::uint32_t>(tag);
  }

  std::uint8_t read_small(std::string_view what) {
    const Position start = pos_;
    const std::uint64_t v = read_uint(what);
    if (v > 255) {
      fail_at(start, fmt::format("{} between 0 and 255", what), fmt::format("{}", v));
    }
    return static_cast<std::uint8_t>(v);
  }

  // calc time: an integer in nanoseconds (LogGOPSim), or a number with a unit (ps, ns, us, ms, s).
  std::uint64_t read_calc_time() {
    const Position start = pos_;
    const std::size_t begin = pos_.offset;
    while (!at_end() && (is_ident_char(peek()) || peek() == '.')) {
      ++pos_.offset;
    }
    const std::string_view token = text_.substr(begin, pos_.offset - begin);
    if (token.empty() || !is_digit(token.front())) {
      pos_ = start;
      fail("a computation time such as '100' (ns) or '2.5us'");
    }
    bool all_digits = true;
    for (const char c : token) {
      all_digits = all_digits && is_digit(c);
    }
    if (all_digits) {
      std::uint64_t ns = 0;
      bool overflow = false;
      for (const char c : token) {
        overflow = overflow || __builtin_mul_overflow(ns, 10U, &ns) ||
                   __builtin_add_overflow(ns, static_cast<std::uint64_t>(c - '0'), &ns);
      }
      std::uint64_t ps = 0;
      if (overflow || __builtin_mul_overflow(ns, kPsPerNs, &ps)) {
        fail_at(start, "a computation time below 2^64 ps", quote(token));
      }
      return ps;
    }
    try {
      return parse_time_ps(token, "calc time");
    } catch (const InputError& e) {
      fail_at(start, "a computation time such as '100' (ns) or '2.5us'", e.what());
    }
  }

  void expect_keyword(std::string_view keyword, std::string_view expected) {
    skip_inline();
    const Position at = pos_;
    const std::string_view word = read_word();
    // A loop instead of ==: the library memcmp call for a 2- or 4-byte word was 2% of a read.
    bool same = word.size() == keyword.size();
    for (std::size_t i = 0; same && i < word.size(); ++i) {
      same = word[i] == keyword[i];
    }
    if (!same) {
      pos_ = at;
      fail(expected);
    }
  }

  // Parses the operation after its keyword and adds it; returns its index.
  std::uint32_t parse_op(std::string_view kind, const Position& at) {
    std::uint32_t index = 0;
    if (kind == "calc") {
      skip_inline();
      const std::uint64_t ps = read_calc_time();
      std::uint8_t cpu = 0;
      skip_inline();
      const Position option_at = pos_;
      const std::string_view option = read_word();
      if (option == "cpu") {
        skip_inline();
        cpu = read_small("a CPU number");
      } else if (!option.empty()) {
        pos_ = option_at;
        fail("'cpu' or the end of the line");
      }
      index = builder_->calc(SimTime{ps}, cpu);
    } else {
      const bool is_send = kind == "send";
      skip_inline();
      const std::uint64_t bytes = read_uint("a message size such as '8b'");
      skip_inline();
      if (peek() != 'b' || (pos_.offset + 1 < text_.size() && is_ident_char(text_[pos_.offset + 1]))) {
        fail("'b' after the message size");
      }
      ++pos_.offset;
      expect_keyword(is_send ? "to" : "from", is_send ? "'to'" : "'from'");
      skip_inline();
      const std::uint32_t peer = read_peer(!is_send);
      std::uint32_t tag = 0;
      std::uint8_t cpu = 0;
      std::uint8_t nic = 0;
      bool seen_tag = false;
      bool seen_cpu = false;
      bool seen_nic = false;
      for (;;) {
        skip_inline();
        const Position option_at = pos_;
        const std::string_view option = read_word();
        if (option.empty()) {
          break;
        }
        if (option == "tag" && !seen_tag) {
          skip_inline();
          tag = read_tag(!is_send);
          seen_tag = true;
        } else if (option == "cpu" && !seen_cpu) {
          skip_inline();
          cpu = read_small("a CPU number");
          seen_cpu = true;
        } else if (option == "nic" && !seen_nic) {
          skip_inline();
          nic = read_small("a NIC number");
          seen_nic = true;
        } else {
          pos_ = option_at;
          fail("'tag', 'cpu', 'nic' (each at most once) or the end of the line");
        }
      }
      index =
          is_send ? builder_->send(bytes, peer, tag, cpu, nic) : builder_->recv(bytes, peer, tag, cpu, nic);
    }
    if (keep_) {
      // Byte columns are character columns unless a block comment put non-ASCII text on the line.
      rank_source_.where.push_back(
          SourceLocation{at.line, at.line == multibyte_line_ ? column(at) : at.byte_column()});
    }
    end_statement();
    return index;
  }

  [[nodiscard]] static bool is_op_keyword(std::string_view w) {
    return w == "send" || w == "recv" || w == "calc";
  }

  // The index of `name` in label_names_, added on first use.
  std::uint32_t label_id(std::string_view name) {
    const auto [it, added] = label_ids_.try_emplace(name, static_cast<std::uint32_t>(label_names_.size()));
    if (added) {
      label_names_.emplace_back(name);
    }
    return it->second;
  }

  void parse_rank(std::uint32_t rank, const Position& opened_at) {
    try {
      builder_->begin_rank(rank);
    } catch (const InputError&) {
      fail_at(opened_at, "each rank block once", fmt::format("a second block for rank {}", rank));
    }
    labels_.clear();
    pending_.clear();
    rank_source_ = RankSource{};
    // Ranks of one file are usually alike: one allocation per vector instead of a growth
    // sequence (seven reallocations per vector for a 48-op rank were 12% of reading a file).
    rank_source_.where.reserve(last_where_);
    rank_source_.labels.reserve(last_labels_);
    std::vector<Position> label_at;
    for (;;) {
      skip_all();
      if (at_end()) {
        fail_at(pos_, fmt::format("'}}' closing rank {} (opened at line {})", rank, opened_at.line),
                "end of file");
      }
      if (peek() == '}') {
        advance();
        break;
      }
      const Position at = pos_;
      const std::string_view word = read_word();
      if (word.empty()) {
        fail("an operation (send, recv, calc), a label or '}'");
      }
      if (is_op_keyword(word)) {
        parse_op(word, at);
        continue;
      }
      if (word == "rank" || word == "num_ranks") {
        fail_at(at, fmt::format("'}}' closing rank {} before '{}'", rank, word), quote(word));
      }
      skip_inline();
      if (peek() == ':') {
        ++pos_.offset;
        skip_inline();
        const Position op_at = pos_;
        const std::string_view op_word = read_word();
        if (!is_op_keyword(op_word)) {
          pos_ = op_at;
          fail(fmt::format("'send', 'recv' or 'calc' after label '{}'", word));
        }
        const std::uint32_t index = parse_op(op_word, at);
        if (!labels_.emplace(word, index).second) {
          fail_at(at, "a label defined once per rank", fmt::format("'{}' defined again", word));
        }
        if (keep_) {
          // Ops are numbered in definition order, so the rank's labels stay sorted by op.
          rank_source_.labels.push_back(OpLabel{index, label_id(word)});
        }
        continue;
      }
      const Position kw_at = pos_;
      const std::string_view keyword = read_word();
      if (keyword != "requires" && keyword != "irequires") {
        pos_ = kw_at;
        fail(fmt::format("':', 'requires' or 'irequires' after '{}'", word));
      }
      skip_inline();
      const Position dep_at = pos_;
      const std::string_view dependency = read_word();
      if (dependency.empty()) {
        fail("a label");
      }
      pending_.push_back(PendingDependency{word, at, dependency, dep_at, keyword == "irequires"});
      end_statement();
    }
    for (const PendingDependency& dep : pending_) {
      const auto a = labels_.find(dep.dependant);
      if (a == labels_.end()) {
        fail_at(dep.dependant_at, fmt::format("a label defined in rank {}", rank),
                fmt::format("undefined label '{}'", dep.dependant));
      }
      const auto b = labels_.find(dep.dependency);
      if (b == labels_.end()) {
        fail_at(dep.dependency_at, fmt::format("a label defined in rank {}", rank),
                fmt::format("undefined label '{}'", dep.dependency));
      }
      if (dep.start_only) {
        builder_->add_irequires(a->second, b->second);
      } else {
        builder_->add_requires(a->second, b->second);
      }
    }
    try {
      builder_->end_rank();
    } catch (const CycleError& cycle) {
      std::string path;
      std::vector<std::string_view> names(builder_->current_size());
      for (const auto& [name, index] : labels_) {
        names[index] = name;
      }
      for (const std::uint32_t op : cycle.ops()) {
        path += fmt::format("{} -> ", names[op].empty() ? std::string_view("?") : names[op]);
      }
      path += names[cycle.ops().front()];
      fail_at(opened_at, fmt::format("dependencies without cycles in rank {}", rank),
              fmt::format("the cycle {}", path));
    }
    if (keep_) {
      last_where_ = rank_source_.where.size();
      last_labels_ = rank_source_.labels.size();
      sources_[rank] = std::move(rank_source_);
    }
  }

  std::string_view text_;
  std::string_view name_;
  bool keep_;
  std::uint32_t max_ranks_;
  MemoryBudget* budget_;
  std::uint64_t extra_bytes_per_rank_;
  Position pos_;
  std::uint32_t multibyte_line_ = 0;  // The last line with non-ASCII text in a block comment (0: none).
  std::uint32_t num_ranks_ = 0;
  std::optional<ScheduleBuilder> builder_;
  std::unordered_map<std::string_view, std::uint32_t> labels_;
  std::vector<PendingDependency> pending_;
  RankSource rank_source_;
  std::size_t last_where_ = 0;   // Ops of the previous rank block (the next one's reserve).
  std::size_t last_labels_ = 0;  // Labels of the previous rank block.
  std::vector<RankSource> sources_;
  // Distinct label names; the views in label_ids_ point into text_, which outlives the parse.
  std::vector<std::string> label_names_;
  std::unordered_map<std::string_view, std::uint32_t> label_ids_;
};

}  // namespace

Schedule parse_goal(std::string_view text, std::string_view source_name, bool keep_sources,
                    std::uint32_t max_ranks, MemoryBudget* budget, std::uint64_t extra_bytes_per_rank) {
  GoalParser parser(text, source_name, keep_sources, std::min(max_ranks, kMaxRanks), budget,
                    extra_bytes_per_rank);
  return parser.parse();
}

std::string write_goal(const Schedule& schedule) {
  std::string text;
  write_goal(schedule, [&text](std::string_view piece) { text.append(piece); });
  return text;
}

void write_goal(const Schedule& schedule, const std::function<void(std::string_view)>& sink) {
  if (schedule.has_repeating()) {
    // GOAL has no loops: a repeating program written once would be a different schedule.
    throw InputError("a schedule with repeating programs (generators) cannot be written as GOAL");
  }
  // Handed to the sink in pieces of about this size, so a million-rank file is never whole in memory.
  constexpr std::size_t kPieceBytes = std::size_t{1} << 20U;
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "num_ranks {}\n", schedule.num_ranks());
  for (std::uint32_t r = 0; r < schedule.num_ranks(); ++r) {
    if (out.size() >= kPieceBytes) {
      sink(std::string_view(out.data(), out.size()));
      out.clear();
    }
    const Program& program = schedule.program_of(r);
    fmt::format_to(std::back_inserter(out), "\nrank {} {{\n", r);
    const auto n = static_cast<std::uint32_t>(program.ops.size());
    std::vector<std::uint8_t> labelled(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (program.succ_begin[2 * static_cast<std::size_t>(i)] !=
          program.succ_begin[2 * static_cast<std::size_t>(i) + 2]) {
        labelled[i] = 1;
      }
    }
    for (const std::uint32_t s : program.succ) {
      labelled[s] = 1;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      const Op& op = program.ops[i];
      if (labelled[i] != 0) {
        fmt::format_to(std::back_inserter(out), "l{}: ", i);
      }
      if (op.type == OpType::kCalc) {
        if (op.size % kPsPerNs == 0) {
          fmt::format_to(std::back_inserter(out), "calc {}", op.size / kPsPerNs);
        } else {
          fmt::format_to(std::back_inserter(out), "calc {}ps", op.size);
        }
        if (op.cpu != 0) {
          fmt::format_to(std::back_inserter(out), " cpu {}", op.cpu);
        }
      } else {
        const std::uint32_t peer = schedule.peer(r, i);
        const bool send = op.type == OpType::kSend;
        fmt::format_to(std::back_inserter(out), "{} {}b {} ", send ? "send" : "recv", op.size,
                       send ? "to" : "from");
        if (peer == kAnySource) {
          fmt::format_to(std::back_inserter(out), "-1");
        } else {
          fmt::format_to(std::back_inserter(out), "{}", peer);
        }
        if (op.tag == kAnyTag) {
          fmt::format_to(std::back_inserter(out), " tag -1");
        } else if (op.tag != 0) {
          fmt::format_to(std::back_inserter(out), " tag {}", op.tag);
        }
        if (op.cpu != 0) {
          fmt::format_to(std::back_inserter(out), " cpu {}", op.cpu);
        }
        if (op.nic != 0) {
          fmt::format_to(std::back_inserter(out), " nic {}", op.nic);
        }
      }
      out.push_back('\n');
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::size_t k0 = program.succ_begin[2 * static_cast<std::size_t>(i)];
      const std::size_t k1 = program.succ_begin[2 * static_cast<std::size_t>(i) + 1];
      const std::size_t k2 = program.succ_begin[2 * static_cast<std::size_t>(i) + 2];
      for (std::size_t k = k0; k < k1; ++k) {
        fmt::format_to(std::back_inserter(out), "l{} requires l{}\n", program.succ[k], i);
      }
      for (std::size_t k = k1; k < k2; ++k) {
        fmt::format_to(std::back_inserter(out), "l{} irequires l{}\n", program.succ[k], i);
      }
    }
    fmt::format_to(std::back_inserter(out), "}}\n");
  }
  sink(std::string_view(out.data(), out.size()));
}

}  // namespace gridlock::sim
