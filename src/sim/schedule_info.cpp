#include "gridlock/sim/schedule_info.hpp"

#include <algorithm>
#include <bit>
#include <fstream>
#include <functional>
#include <queue>
#include <span>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {
namespace {

// What every rank with a given program does, whatever its peers.
struct ProgramStats {
  std::uint64_t ranks = 0;  // ranks running the program
  std::uint64_t sends = 0;
  std::uint64_t recvs = 0;
  std::uint64_t calcs = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t calc_ps = 0;
};

// Spread of a per-rank value that is the same for all ranks of a program: weighted by the ranks of
// each program, so it costs the programs, not the ranks.
RankTotal weighted_total(const std::vector<ProgramStats>& stats, std::uint64_t ProgramStats::*field,
                         std::uint32_t ranks) {
  RankTotal out;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> values;  // (value, ranks)
  values.reserve(stats.size());
  for (const ProgramStats& s : stats) {
    if (s.ranks > 0) {
      values.emplace_back(s.*field, s.ranks);
      out.total += s.*field * s.ranks;
    }
  }
  if (values.empty()) {
    return out;
  }
  std::ranges::sort(values);
  out.per_rank.min = values.front().first;
  out.per_rank.max = values.back().first;
  const std::uint64_t median_index = (static_cast<std::uint64_t>(ranks) - 1) / 2;
  std::uint64_t seen = 0;
  for (const auto& [value, weight] : values) {
    seen += weight;
    if (seen > median_index) {
      out.per_rank.median = value;
      break;
    }
  }
  return out;
}

// A 64-bit fingerprint of one message key as seen from its destination. Sums of fingerprints
// compare multisets of keys in O(1) memory per destination: the sends into a rank and its exact
// receives have equal sums when they pair up, and differ with probability 1 - 2^-64 when they do
// not. Exact per-key counts for every destination would need memory for every distinct
// (source, destination, tag), tens of millions of entries at a million ranks; they are kept only
// for the destinations whose sums differ.
std::uint64_t key_print(std::uint32_t src, std::uint32_t tag) noexcept {
  return mix64((static_cast<std::uint64_t>(src) << 32U) | tag);
}
std::uint64_t pair_print(std::uint32_t a, std::uint32_t b) noexcept {
  return mix64(0x9e3779b97f4a7c15ULL ^ ((static_cast<std::uint64_t>(a) << 32U) | b));
}

struct MatchKey {
  std::uint32_t dst = 0;
  std::uint32_t src = 0;
  std::uint32_t tag = 0;
  friend bool operator==(const MatchKey&, const MatchKey&) = default;
  // clang-tidy 14 takes the literal 0 of a comparison rewritten through <=> for a null pointer.
  friend auto operator<=>(const MatchKey&, const MatchKey&) = default;  // NOLINT(modernize-use-nullptr)
};
struct MatchKeyHash {
  std::size_t operator()(const MatchKey& k) const noexcept {
    return mix64((static_cast<std::uint64_t>(k.dst) << 32U | k.src) ^ mix64(k.tag));
  }
};
struct MatchCounts {
  std::uint64_t sends = 0;
  std::uint64_t recvs = 0;
};

// Better pairs first: more bytes, then lower source, then lower destination.
bool better_pair(const PairTraffic& a, const PairTraffic& b) noexcept {
  if (a.bytes != b.bytes) {
    return a.bytes > b.bytes;
  }
  return a.src != b.src ? a.src < b.src : a.dst < b.dst;
}

// Leftover sends and receives of one destination's keys (sorted), after exact matches and then
// wildcard receives: first those from any source with the send's tag, then those of any tag from
// the send's source, then those matching anything. The greedy order is exact unless a
// destination has both kinds of half wildcards competing for the same sends (documented).
void resolve_destination(std::span<std::pair<MatchKey, MatchCounts>> keys) {
  std::unordered_map<std::uint32_t, std::uint64_t*> any_source_by_tag;
  std::unordered_map<std::uint32_t, std::uint64_t*> any_tag_by_src;
  std::uint64_t* any_any = nullptr;
  for (auto& [key, counts] : keys) {
    if (key.src == kAnySource && key.tag == kAnyTag) {
      any_any = &counts.recvs;
    } else if (key.src == kAnySource) {
      any_source_by_tag[key.tag] = &counts.recvs;
    } else if (key.tag == kAnyTag) {
      any_tag_by_src[key.src] = &counts.recvs;
    } else {
      const std::uint64_t both = std::min(counts.sends, counts.recvs);
      counts.sends -= both;
      counts.recvs -= both;
    }
  }
  const auto absorb = [&keys](const std::function<std::uint64_t*(const MatchKey&)>& wildcard_for) {
    for (auto& [key, counts] : keys) {
      if (counts.sends == 0 || key.src == kAnySource || key.tag == kAnyTag) {
        continue;
      }
      if (std::uint64_t* left = wildcard_for(key); left != nullptr) {
        const std::uint64_t taken = std::min(counts.sends, *left);
        counts.sends -= taken;
        *left -= taken;
      }
    }
  };
  if (!any_source_by_tag.empty()) {
    absorb([&](const MatchKey& k) {
      const auto it = any_source_by_tag.find(k.tag);
      return it == any_source_by_tag.end() ? nullptr : it->second;
    });
  }
  if (!any_tag_by_src.empty()) {
    absorb([&](const MatchKey& k) {
      const auto it = any_tag_by_src.find(k.src);
      return it == any_tag_by_src.end() ? nullptr : it->second;
    });
  }
  if (any_any != nullptr) {
    absorb([any_any](const MatchKey&) { return any_any; });
  }
}

// The matching check restricted to the destinations in `flagged`: exact per-key counts, then
// wildcards. Returns false (and leaves `info` alone) if the keys exceed the cap.
bool match_in_detail(const Schedule& schedule, const std::vector<std::uint8_t>& flagged,
                     const ScheduleInfoOptions& options, ScheduleInfo& info) {
  const std::uint32_t ranks = schedule.num_ranks();
  std::unordered_map<MatchKey, MatchCounts, MatchKeyHash> counts;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const Program& program = schedule.program_of(r);
    const std::span<const std::uint32_t> peers = schedule.peer_offsets(r);
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const Op& op = program.ops[i];
      if (op.type == OpType::kSend) {
        const auto dst = static_cast<std::uint32_t>((static_cast<std::uint64_t>(r) + peers[i]) % ranks);
        if (flagged[dst] != 0) {
          ++counts[MatchKey{dst, r, op.tag}].sends;
        }
      } else if (op.type == OpType::kRecv && flagged[r] != 0) {
        const std::uint32_t src =
            peers[i] == kAnySource
                ? kAnySource
                : static_cast<std::uint32_t>((static_cast<std::uint64_t>(r) + peers[i]) % ranks);
        ++counts[MatchKey{r, src, op.tag}].recvs;
      }
    }
    if (counts.size() > options.max_match_keys) {
      return false;
    }
  }
  std::vector<std::pair<MatchKey, MatchCounts>> keys(counts.begin(), counts.end());
  counts.clear();
  std::ranges::sort(keys, [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t begin = 0; begin < keys.size();) {
    std::size_t end = begin;
    while (end < keys.size() && keys[end].first.dst == keys[begin].first.dst) {
      ++end;
    }
    resolve_destination(std::span(keys).subspan(begin, end - begin));
    begin = end;
  }
  for (const auto& [key, c] : keys) {
    if (c.sends == 0 && c.recvs == 0) {
      continue;
    }
    info.unmatched_sends += c.sends;
    info.unmatched_recvs += c.recvs;
    if (info.unmatched.size() < options.unmatched_listed) {
      info.unmatched.push_back(UnmatchedKey{key.src, key.dst, key.tag, c.sends, c.recvs});
    }
  }
  return true;
}

ComputeShare compute_share(const std::vector<std::uint64_t>& wall_ps, const Schedule& schedule,
                           const std::vector<ProgramStats>& stats, std::uint64_t calc_total) {
  ComputeShare share;
  std::vector<double> per_rank;
  per_rank.reserve(wall_ps.size());
  for (std::uint32_t r = 0; r < schedule.num_ranks(); ++r) {
    share.wall_ps_total += wall_ps[r];
    if (wall_ps[r] == 0) {
      ++share.ranks_without_wall;
      continue;
    }
    per_rank.push_back(static_cast<double>(stats[schedule.rank_program()[r]].calc_ps) /
                       static_cast<double>(wall_ps[r]));
  }
  share.overall = share.wall_ps_total == 0
                      ? 0.0
                      : static_cast<double>(calc_total) / static_cast<double>(share.wall_ps_total);
  if (!per_rank.empty()) {
    const auto [lo, hi] = std::ranges::minmax_element(per_rank);
    share.min = *lo;
    share.max = *hi;
    const auto mid = per_rank.begin() + static_cast<std::ptrdiff_t>((per_rank.size() - 1) / 2);
    std::nth_element(per_rank.begin(), mid, per_rank.end());
    share.median = *mid;
  }
  return share;
}

}  // namespace

namespace {

// Per program: counts, bytes, calc time, dependencies, message sizes (weighted by its ranks); the
// size histogram and dependency counts go to `info`.
std::vector<ProgramStats> program_stats(const Schedule& schedule, ScheduleInfo& info) {
  const std::vector<Program>& programs = schedule.programs();
  std::vector<ProgramStats> stats(programs.size());
  for (const std::uint32_t p : schedule.rank_program()) {
    ++stats[p].ranks;
  }
  constexpr std::size_t kBuckets = 65;  // 0 bytes, then [2^k, 2^(k+1)) for k = 0..63
  std::vector<SizeBucket> buckets(kBuckets);
  for (std::size_t p = 0; p < programs.size(); ++p) {
    ProgramStats& s = stats[p];
    const Program& program = programs[p];
    for (const Op& op : program.ops) {
      switch (op.type) {
        case OpType::kSend: {
          ++s.sends;
          s.bytes_sent += op.size;
          const std::size_t b = op.size == 0 ? 0 : static_cast<std::size_t>(std::bit_width(op.size));
          buckets[b].count += s.ranks;
          buckets[b].bytes += op.size * s.ranks;
          break;
        }
        case OpType::kRecv:
          ++s.recvs;
          if (op.tag == kAnyTag) {
            info.any_tag_recvs += s.ranks;
          }
          break;
        case OpType::kCalc:
          ++s.calcs;
          s.calc_ps += op.size;
          break;
      }
    }
    const std::size_t n = program.ops.size();
    if (n > 0) {
      // succ_begin holds each op's requires dependants, then its irequires dependants.
      std::uint64_t requires_edges = 0;
      for (std::size_t i = 0; i < n; ++i) {
        requires_edges += program.succ_begin[2 * i + 1] - program.succ_begin[2 * i];
      }
      info.requires_edges += requires_edges * s.ranks;
      info.irequires_edges += (program.succ_begin[2 * n] - requires_edges) * s.ranks;
    }
  }
  for (std::size_t b = 0; b < kBuckets; ++b) {
    if (buckets[b].count == 0) {
      continue;
    }
    SizeBucket bucket = buckets[b];
    bucket.min_bytes = b == 0 ? 0 : std::uint64_t{1} << (b - 1);
    bucket.max_bytes = b == 0 ? 0 : (b == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1);
    info.sizes.push_back(bucket);
  }
  return stats;
}

// What the scan of the ranks' peers leaves for the matching check.
struct PeerBalance {
  std::vector<std::uint64_t> balance;   // sum of send prints - sum of exact recv prints
  std::vector<std::uint64_t> sends_in;  // sends to each rank
  // Destinations the matching check looks at closely: wildcard receives, or prints that differ.
  std::vector<std::uint8_t> flagged;
};

// Per rank: peers. Pairs are complete once their source rank is done (all of a rank's sends
// are in its own program), so the matrix needs no map of pairs: each rank's destinations are
// sorted and counted on their own, and only the top pairs are kept.
PeerBalance scan_peers(const Schedule& schedule, const std::vector<ProgramStats>& stats,
                       const ScheduleInfoOptions& options, ScheduleInfo& info) {
  const std::uint32_t ranks = schedule.num_ranks();
  PeerBalance out{std::vector<std::uint64_t>(ranks, 0), std::vector<std::uint64_t>(ranks, 0),
                  std::vector<std::uint8_t>(ranks, 0)};
  std::vector<std::uint64_t>& balance = out.balance;
  std::vector<std::uint64_t>& sends_in = out.sends_in;
  std::vector<std::uint8_t>& flagged = out.flagged;
  std::vector<std::uint32_t> in_partners(ranks, 0);
  std::uint64_t forward_prints = 0;
  std::uint64_t backward_prints = 0;
  const auto worse_pair = [](const PairTraffic& a, const PairTraffic& b) { return better_pair(a, b); };
  std::priority_queue<PairTraffic, std::vector<PairTraffic>, decltype(worse_pair)> top(worse_pair);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sent;  // (destination, bytes) of one rank
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const Program& program = schedule.program_of(r);
    const ProgramStats& s = stats[schedule.rank_program()[r]];
    if (s.sends == 0 && s.recvs == 0) {
      continue;
    }
    const std::span<const std::uint32_t> peers = schedule.peer_offsets(r);
    sent.clear();
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const Op& op = program.ops[i];
      if (op.type == OpType::kCalc) {
        continue;
      }
      if (peers[i] == kAnySource) {
        ++info.any_source_recvs;
        flagged[r] = 1;
        continue;
      }
      const auto peer = static_cast<std::uint32_t>((static_cast<std::uint64_t>(r) + peers[i]) % ranks);
      if (op.type == OpType::kSend) {
        balance[peer] += key_print(r, op.tag);
        ++sends_in[peer];
        sent.emplace_back(peer, op.size);
      } else if (op.tag != kAnyTag) {
        balance[r] -= key_print(peer, op.tag);
      } else {
        flagged[r] = 1;
      }
    }
    std::ranges::sort(sent);
    std::uint32_t out_partners = 0;
    for (std::size_t i = 0; i < sent.size();) {
      PairTraffic pair{r, sent[i].first, 0, 0};
      for (; i < sent.size() && sent[i].first == pair.dst; ++i) {
        ++pair.messages;
        pair.bytes += sent[i].second;
      }
      ++out_partners;
      ++in_partners[pair.dst];
      forward_prints += pair_print(pair.src, pair.dst);
      backward_prints += pair_print(pair.dst, pair.src);
      if (options.top_pairs > 0) {
        if (top.size() < options.top_pairs) {
          top.push(pair);
        } else if (better_pair(pair, top.top())) {
          top.pop();
          top.push(pair);
        }
      }
    }
    info.pairs += out_partners;
    if (out_partners > info.max_out_partners) {
      info.max_out_partners = out_partners;
      info.max_out_rank = r;
    }
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (in_partners[r] > info.max_in_partners) {
      info.max_in_partners = in_partners[r];
      info.max_in_rank = r;
    }
  }
  // The pairs are a set: it equals its mirror image iff the two fingerprint sums agree (w.h.p.).
  info.symmetric = forward_prints == backward_prints;
  while (!top.empty()) {
    info.top_pairs.push_back(top.top());
    top.pop();
  }
  std::ranges::reverse(info.top_pairs);

  return out;
}

// Matching: a destination needs a closer look if it has wildcard receives or its prints or
// counts differ.
void check_matching(const Schedule& schedule, const std::vector<ProgramStats>& stats, PeerBalance& peers,
                    const ScheduleInfoOptions& options, ScheduleInfo& info) {
  const std::uint32_t ranks = schedule.num_ranks();
  std::vector<std::uint64_t>& balance = peers.balance;
  const std::vector<std::uint64_t>& sends_in = peers.sends_in;
  std::vector<std::uint8_t>& flagged = peers.flagged;
  bool any_flagged = false;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (balance[r] != 0 || sends_in[r] != stats[schedule.rank_program()[r]].recvs) {
      flagged[r] = 1;
    }
    any_flagged = any_flagged || flagged[r] != 0;
  }
  balance = {};
  if (any_flagged && !match_in_detail(schedule, flagged, options, info)) {
    info.unmatched_exact = false;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const std::uint64_t recvs = stats[schedule.rank_program()[r]].recvs;
      info.unmatched_sends += sends_in[r] > recvs ? sends_in[r] - recvs : 0;
      info.unmatched_recvs += recvs > sends_in[r] ? recvs - sends_in[r] : 0;
    }
  }
}

}  // namespace

ScheduleInfo summarize(const Schedule& schedule, const ScheduleInfoOptions& options) {
  const std::uint32_t ranks = schedule.num_ranks();
  if (!options.wall_ps.empty() && options.wall_ps.size() != ranks) {
    throw InputError(fmt::format("schedule info: {} wall times for {} ranks; give one per rank (or none)",
                                 options.wall_ps.size(), ranks));
  }
  ScheduleInfo info;
  info.source_kind = options.source_kind;
  info.ranks = ranks;
  if (ranks == 0) {
    return info;
  }
  info.programs = schedule.programs_with_peers().first_rank.size();

  const std::vector<ProgramStats> stats = program_stats(schedule, info);
  PeerBalance peers = scan_peers(schedule, stats, options, info);
  info.sends = weighted_total(stats, &ProgramStats::sends, ranks);
  info.recvs = weighted_total(stats, &ProgramStats::recvs, ranks);
  info.calcs = weighted_total(stats, &ProgramStats::calcs, ranks);
  info.bytes_sent = weighted_total(stats, &ProgramStats::bytes_sent, ranks);
  info.calc_ps = weighted_total(stats, &ProgramStats::calc_ps, ranks);
  info.operations = info.sends.total + info.recvs.total + info.calcs.total;

  check_matching(schedule, stats, peers, options, info);
  if (!options.wall_ps.empty()) {
    info.has_wall = true;
    info.share = compute_share(options.wall_ps, schedule, stats, info.calc_ps.total);
  }
  return info;
}

std::string schedule_file_kind(const std::filesystem::path& path) {
  // A shell pipe (`<(command)`) has been read by load_schedule() already and cannot be read again.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return "";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw IoError(fmt::format("cannot read schedule '{}': check the path and permissions", path.string()));
  }
  std::string head(kBinaryMagic.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return !head.empty() && kBinaryMagic.starts_with(head) ? "binary" : "goal";
}

namespace {

std::string source_kind_name(const std::string& kind) {
  if (kind == "goal") {
    return "GOAL text";
  }
  if (kind == "binary") {
    return "binary schedule";
  }
  if (kind == "otf2") {
    return "OTF2 trace";
  }
  return kind;
}

std::string time_cell(std::uint64_t ps) { return format_time_ps(ps); }
std::string count_cell(std::uint64_t n) { return fmt::format("{}", n); }

std::string spread_row(std::string_view name, const RankTotal& t, std::string (*cell)(std::uint64_t)) {
  return fmt::format("| {} | {} | {} | {} | {} |\n", name, cell(t.total), cell(t.per_rank.min),
                     cell(t.per_rank.median), cell(t.per_rank.max));
}

std::string size_class(const SizeBucket& b) {
  if (b.max_bytes == 0) {
    return "0 B";
  }
  if (b.min_bytes == b.max_bytes) {
    return format_bytes(b.min_bytes);
  }
  return fmt::format("{} - {}", format_bytes(b.min_bytes), format_bytes(b.max_bytes));
}

std::string peer_name(std::uint32_t rank) { return rank == kAnySource ? "any" : fmt::format("{}", rank); }

std::string unmatched_text(const UnmatchedKey& k) {
  std::string what;
  if (k.sends > 0) {
    what = fmt::format("{} send{}", k.sends, k.sends == 1 ? "" : "s");
  }
  if (k.recvs > 0) {
    what += fmt::format("{}{} receive{}", what.empty() ? "" : ", ", k.recvs, k.recvs == 1 ? "" : "s");
  }
  return fmt::format("{} -> {} tag {}: {}", peer_name(k.src), k.dst,
                     k.tag == kAnyTag ? "any" : fmt::format("{}", k.tag), what);
}

}  // namespace

std::string format_schedule_info(const ScheduleInfo& info, const std::string& name) {
  const std::string kind = source_kind_name(info.source_kind);
  std::string out =
      fmt::format("schedule: {}{}: {} ranks, {} operations, {} distinct programs\n", name,
                  kind.empty() ? "" : fmt::format(" ({})", kind), info.ranks, info.operations, info.programs);
  out +=
      "| per rank | total | min | median | max |\n"
      "| --- | --- | --- | --- | --- |\n";
  out += spread_row("sends", info.sends, count_cell);
  out += spread_row("receives", info.recvs, count_cell);
  out += spread_row("calcs", info.calcs, count_cell);
  out += spread_row("bytes sent", info.bytes_sent, format_bytes);
  out += spread_row("calc time", info.calc_ps, time_cell);
  if (info.has_wall) {
    out +=
        fmt::format("| compute share | {:.2f}% | {:.2f}% | {:.2f}% | {:.2f}% |\n", 100 * info.share.overall,
                    100 * info.share.min, 100 * info.share.median, 100 * info.share.max);
    out += fmt::format(
        "compute share: calc time / traced wall time ({} total wall{})\n",
        format_time_ps(info.share.wall_ps_total),
        info.share.ranks_without_wall == 0
            ? ""
            : fmt::format(", {} ranks without a wall time left out", info.share.ranks_without_wall));
  } else {
    out += "compute share: no wall time in a schedule (calc time only)\n";
  }
  out += fmt::format("dependencies: {} requires, {} irequires\n", info.requires_edges, info.irequires_edges);
  out += fmt::format("wildcard receives: {} from any source, {} of any tag\n", info.any_source_recvs,
                     info.any_tag_recvs);
  if (!info.sizes.empty()) {
    out +=
        "| size | count | bytes |\n"
        "| --- | --- | --- |\n";
    for (const SizeBucket& b : info.sizes) {
      out += fmt::format("| {} | {} | {} |\n", size_class(b), b.count, format_bytes(b.bytes));
    }
  }
  out += fmt::format(
      "communication: {} (source, destination) pairs, {:.2f} partners per rank (most destinations: {} "
      "at rank {}; most sources: {} at rank {}), {}\n",
      info.pairs, info.mean_partners(), info.max_out_partners, info.max_out_rank, info.max_in_partners,
      info.max_in_rank, info.symmetric ? "symmetric" : "not symmetric");
  if (!info.top_pairs.empty()) {
    out += fmt::format("top {} pairs by bytes:\n", info.top_pairs.size());
    out +=
        "| src | dst | messages | bytes |\n"
        "| --- | --- | --- | --- |\n";
    for (const PairTraffic& p : info.top_pairs) {
      out += fmt::format("| {} | {} | {} | {} |\n", p.src, p.dst, p.messages, format_bytes(p.bytes));
    }
  }
  if (info.unmatched_sends == 0 && info.unmatched_recvs == 0) {
    out += "matching: every send has a receive and every receive a send (by source, destination, tag)\n";
  } else {
    std::string listed;
    for (const UnmatchedKey& k : info.unmatched) {
      listed += fmt::format("{}{}", listed.empty() ? "" : "; ", unmatched_text(k));
    }
    out += fmt::format(
        "warning: {} sends without a receive and {} receives without a send (by source, destination, "
        "tag{}): gridlock sim would stop with them stuck{}{}\n",
        info.unmatched_sends, info.unmatched_recvs,
        info.unmatched_exact ? "" : "; counted per destination only, at least this many",
        listed.empty() ? "" : ": ", listed);
  }
  return out;
}

}  // namespace gridlock::sim
