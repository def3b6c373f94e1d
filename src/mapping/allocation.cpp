#include "gridlock/mapping/allocation.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::mapping {
namespace {

namespace fs = std::filesystem;

// Node list files are a few lines per job; a larger file is the wrong file.
constexpr std::uintmax_t kMaxNodeListFileBytes = std::uintmax_t{64} << 20U;

// No host name is longer (DNS allows 253 characters); it bounds what an expansion may allocate.
constexpr std::size_t kMaxNameLength = 255;

// Most cores an allocation may have (Allocation::num_cores() is 32-bit).
constexpr std::uint64_t kMaxCores = std::uint64_t{1} << 31U;

// How many unknown or duplicate names an error lists before "and N more".
constexpr std::size_t kMaxListed = 10;

[[noreturn]] void hostlist_error(std::string_view text, std::string_view problem) {
  throw InputError(
      fmt::format("invalid node list '{}': {}; write names and bracketed ranges as Slurm does, "
                  "e.g. 'nid[00017-00019,00024],login1'",
                  printable_excerpt(text, 120), problem));
}

// One numeric range of a bracket group: `lo` or `lo-hi`, printed with at least `width` digits (the
// width of `lo` as written, so zero padding is kept: 008-010 gives 008 009 010, 8-10 gives 8 9 10).
struct Range {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::size_t width = 0;
};

// A name is text pieces and bracket groups in turn: pieces[0] group[0] pieces[1] ... pieces[n].
struct Pattern {
  std::vector<std::string_view> pieces;
  std::vector<std::vector<Range>> groups;
};

std::uint64_t parse_number(std::string_view digits, std::string_view text) {
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    hostlist_error(text, fmt::format("'{}' in brackets is not a number or a range such as 1-4",
                                     printable_excerpt(digits)));
  }
  const std::optional<std::uint64_t> value = digits.size() > 18 ? std::nullopt : gridlock::parse_u64(digits);
  if (!value) {
    hostlist_error(text, fmt::format("number '{}' has more than 18 digits", printable_excerpt(digits)));
  }
  return *value;
}

std::vector<Range> parse_group(std::string_view inside, std::string_view text) {
  if (inside.empty()) {
    hostlist_error(text, "empty brackets '[]'");
  }
  std::vector<Range> ranges;
  for (const std::string_view part : split(inside, ',')) {
    if (part.empty()) {
      hostlist_error(text, "an empty range in brackets (a ',' too many?)");
    }
    const auto dash = part.find('-');
    Range r;
    if (dash == std::string_view::npos) {
      r.lo = r.hi = parse_number(part, text);
      r.width = part.size();
    } else {
      const std::string_view lo = part.substr(0, dash);
      r.lo = parse_number(lo, text);
      r.hi = parse_number(part.substr(dash + 1), text);
      r.width = lo.size();
      if (r.hi < r.lo) {
        hostlist_error(text, fmt::format("range '{}' descends; write it as {}-{}", printable_excerpt(part),
                                         part.substr(dash + 1), lo));
      }
    }
    ranges.push_back(r);
  }
  return ranges;
}

Pattern parse_pattern(std::string_view item, std::string_view text) {
  Pattern p;
  std::size_t start = 0;
  for (;;) {
    const auto open = item.find('[', start);
    const auto close = item.find(']', start);
    if (close != std::string_view::npos && (open == std::string_view::npos || close < open)) {
      hostlist_error(text, fmt::format("']' without '[' in '{}'", printable_excerpt(item)));
    }
    if (open == std::string_view::npos) {
      p.pieces.push_back(item.substr(start));
      return p;
    }
    if (close == std::string_view::npos) {
      hostlist_error(text, fmt::format("'[' without ']' in '{}'", printable_excerpt(item)));
    }
    const std::string_view inside = item.substr(open + 1, close - open - 1);
    if (inside.find('[') != std::string_view::npos) {
      hostlist_error(text, fmt::format("nested '[' in '{}'", printable_excerpt(item)));
    }
    p.pieces.push_back(item.substr(start, open - start));
    p.groups.push_back(parse_group(inside, text));
    start = close + 1;
  }
}

// Names the pattern expands to, saturating at `limit` + 1, and the longest name's length.
std::uint64_t count_names(const Pattern& p, std::uint64_t limit) {
  std::uint64_t count = 1;
  for (const auto& group : p.groups) {
    std::uint64_t in_group = 0;
    for (const Range& r : group) {
      in_group += r.hi - r.lo + 1;  // each <= 10^18, and the sum is cut below
      if (in_group > limit) {
        return limit + 1;
      }
    }
    count *= in_group;  // count <= limit and in_group <= limit <= 2^20: no overflow
    if (count > limit) {
      return limit + 1;
    }
  }
  return count;
}

std::size_t max_name_length(const Pattern& p) {
  std::size_t length = 0;
  for (const auto piece : p.pieces) {
    length += piece.size();
  }
  for (const auto& group : p.groups) {
    std::size_t widest = 0;
    for (const Range& r : group) {
      widest = std::max({widest, r.width, fmt::formatted_size("{}", r.hi)});
    }
    length += widest;
  }
  return length;
}

void expand_into(const Pattern& p, std::size_t group, std::string& prefix, std::vector<std::string>& out) {
  prefix += p.pieces[group];
  if (group == p.groups.size()) {
    out.push_back(prefix);
    return;
  }
  const std::size_t keep = prefix.size();
  for (const Range& r : p.groups[group]) {
    for (std::uint64_t v = r.lo;; ++v) {
      prefix.resize(keep);
      fmt::format_to(std::back_inserter(prefix), "{:0{}}", v, r.width);
      expand_into(p, group + 1, prefix, out);
      if (v == r.hi) {
        break;
      }
    }
  }
  prefix.resize(keep - p.pieces[group].size());
}

// Top-level items: split at commas and blanks outside brackets. Blanks may repeat (a list pasted
// from `scontrol show hostnames`), but two commas with nothing between them are a mistake.
std::vector<std::string_view> top_level_items(std::string_view text) {
  std::vector<std::string_view> items;
  const auto take = [&](std::string_view between_commas, bool has_comma) {
    std::size_t start = 0;
    bool any = false;
    int depth = 0;
    for (std::size_t i = 0; i <= between_commas.size(); ++i) {
      const char c = i < between_commas.size() ? between_commas[i] : ' ';
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      if ((depth == 0 && is_blank(c)) || i == between_commas.size()) {
        if (i > start) {
          items.push_back(between_commas.substr(start, i - start));
          any = true;
        }
        start = i + 1;
      }
    }
    if (!any && has_comma) {
      hostlist_error(text, "an empty name (a ',' too many?)");
    }
  };
  int depth = 0;
  std::size_t start = 0;
  const bool has_comma = text.find(',') != std::string_view::npos;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (depth == 0 && c == ',') {
      take(text.substr(start, i - start), true);
      start = i + 1;
    }
  }
  take(text.substr(start), has_comma);
  return items;
}

void check_regular_file(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    throw IoError(
        fmt::format("cannot read node list '{}': no such file; check the path after '@'", path.string()));
  }
  if (ec) {
    throw IoError(fmt::format("cannot read node list '{}': {}; check the path and permissions", path.string(),
                              ec.message()));
  }
  if (!fs::is_regular_file(status)) {
    throw IoError(
        fmt::format("cannot read node list '{}': not a regular file ({}); give a file, e.g. the output "
                    "of 'scontrol show hostnames' saved to a file",
                    path.string(), fs::is_directory(status) ? "a directory" : "a FIFO, device or socket"));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxNodeListFileBytes) {
    throw InputError(fmt::format("node list '{}' has {} bytes, more than the limit of 64 MiB for a node list",
                                 path.string(), size));
  }
}

// "a, b, c" or "a, b, ... and 7 more".
std::string listing(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxListed; ++i) {
    out += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kMaxListed) {
    out += fmt::format(" and {} more", names.size() - kMaxListed);
  }
  return out;
}

std::vector<std::string> expand_bounded(std::string_view text, std::uint64_t limit) {
  std::vector<Pattern> patterns;
  std::uint64_t total = 0;
  for (const std::string_view item : top_level_items(text)) {
    Pattern p = parse_pattern(item, text);
    if (max_name_length(p) > kMaxNameLength) {
      hostlist_error(text, fmt::format("a name longer than {} characters", kMaxNameLength));
    }
    total += count_names(p, limit);  // each term <= limit + 1: no overflow
    if (total > limit) {
      hostlist_error(
          text, fmt::format("more than {} names (the most an allocation may list)", kMaxAllocationNodes));
    }
    patterns.push_back(std::move(p));
  }
  if (patterns.empty()) {
    hostlist_error(text, "no names");
  }
  std::vector<std::string> names;
  names.reserve(total);
  std::string buffer;
  for (const Pattern& p : patterns) {
    buffer.clear();
    expand_into(p, 0, buffer, names);
  }
  return names;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view text) {
  return expand_bounded(text, kMaxAllocationNodes);
}

std::filesystem::path node_list_input(std::string_view argument) {
  return argument.starts_with('@') ? fs::path(argument.substr(1)) : fs::path();
}

std::vector<std::string> read_node_list(std::string_view argument) {
  if (!argument.starts_with('@')) {
    return expand_hostlist(argument);
  }
  const fs::path path = node_list_input(argument);
  if (path.empty()) {
    throw InputError("node list '@': give a file name after '@', e.g. @nodes.txt");
  }
  check_regular_file(path);
  const InputFile file(path, "node list", "check the path after '@'", kMaxNodeListFileBytes);
  const std::string_view text = without_utf8_bom(file.bytes());
  std::vector<std::string> names;
  std::size_t pos = 0;
  std::uint64_t line_number = 0;
  while (pos < text.size()) {
    const auto end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    line = line.substr(0, line.find('#'));
    if (std::all_of(line.begin(), line.end(), is_blank)) {
      continue;
    }
    try {
      auto more = expand_bounded(line, kMaxAllocationNodes - names.size());
      names.insert(names.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}:{}: {}", path.string(), line_number, e.what()));
    }
  }
  if (names.empty()) {
    throw InputError(
        fmt::format("node list '{}' has no node names (only blank lines or comments); write one "
                    "hostlist per line, e.g. nid[00017-00019]",
                    path.string()));
  }
  return names;
}

Allocation make_allocation(const topo::Topology& topology, const std::vector<std::string>& names,
                           std::uint32_t cores_per_node) {
  if (names.empty()) {
    throw InputError("the allocation lists no nodes; give node names, e.g. nid[00000-00003]");
  }
  if (names.size() > kMaxAllocationNodes) {
    throw InputError(fmt::format("the allocation lists {} nodes, more than the {} allowed", names.size(),
                                 kMaxAllocationNodes));
  }
  if (cores_per_node == 0 || cores_per_node > kMaxCoresPerNode) {
    throw InputError(fmt::format("{} cores per node: give 1 to {}", cores_per_node, kMaxCoresPerNode));
  }
  if (static_cast<std::uint64_t>(names.size()) * cores_per_node > kMaxCores) {
    throw InputError(
        fmt::format("{} nodes x {} cores per node is more than the {} cores an allocation may have",
                    names.size(), cores_per_node, kMaxCores));
  }
  Allocation allocation;
  allocation.cores_per_node = cores_per_node;
  allocation.nodes.reserve(names.size());
  std::vector<std::string> unknown;
  for (const std::string& name : names) {
    if (const auto id = topology.find_node(name)) {
      allocation.nodes.push_back(*id);
    } else {
      unknown.push_back(printable_excerpt(name));
    }
  }
  const auto& nodes = topology.nodes();
  if (!unknown.empty()) {
    const std::string naming = nodes.empty() ? std::string("none")
                                             : fmt::format("{}..{}, or indices 0..{}", nodes.front().name,
                                                           nodes.back().name, nodes.size() - 1);
    throw InputError(fmt::format("{} {} not in topology '{}': {} (its nodes are {})", unknown.size(),
                                 unknown.size() == 1 ? "node is" : "nodes are", topology.spec(),
                                 listing(unknown), naming));
  }
  // A node may appear under its name and under its index: compare the resolved ids.
  std::vector<std::uint32_t> first(nodes.size(), std::numeric_limits<std::uint32_t>::max());
  std::vector<std::string> duplicates;
  for (std::uint32_t i = 0; i < allocation.nodes.size(); ++i) {
    std::uint32_t& seen = first[allocation.nodes[i]];
    if (seen == std::numeric_limits<std::uint32_t>::max()) {
      seen = i;
      continue;
    }
    const std::string& name = nodes[allocation.nodes[i]].name;
    duplicates.push_back(names[seen] == names[i]
                             ? fmt::format("{} (entries {} and {})", printable_excerpt(name), seen + 1, i + 1)
                             : fmt::format("{} (entries {} '{}' and {} '{}')", printable_excerpt(name),
                                           seen + 1, printable_excerpt(names[seen]), i + 1,
                                           printable_excerpt(names[i])));
  }
  if (!duplicates.empty()) {
    throw InputError(
        fmt::format("the allocation lists {} node{} more than once: {}; list each node once (use "
                    "cores per node for several tasks on a node)",
                    duplicates.size(), duplicates.size() == 1 ? "" : "s", listing(duplicates)));
  }
  allocation.names = names;
  return allocation;
}

const char* to_string(AllocationPolicy policy) noexcept {
  switch (policy) {
    case AllocationPolicy::kCompact:
      return "compact";
    case AllocationPolicy::kSpread:
      return "spread";
    case AllocationPolicy::kRandom:
      return "random";
  }
  return "compact";
}

AllocationPolicy parse_allocation_policy(std::string_view text, std::string_view what) {
  for (const auto policy :
       {AllocationPolicy::kCompact, AllocationPolicy::kSpread, AllocationPolicy::kRandom}) {
    if (text == to_string(policy)) {
      return policy;
    }
  }
  throw InputError(
      fmt::format("{} '{}': give compact (the first nodes in node order), spread (evenly "
                  "spaced over the machine) or random (a seeded sample)",
                  what, text));
}

std::vector<topo::NodeId> allocate_nodes(std::uint32_t machine_nodes, std::uint32_t count,
                                         AllocationPolicy policy, std::uint64_t seed, std::string_view what) {
  if (count == 0 || count > machine_nodes) {
    throw InputError(fmt::format("{} {}: the machine has {} nodes; give 1 to {}", what, count, machine_nodes,
                                 machine_nodes));
  }
  std::vector<topo::NodeId> nodes(count);
  switch (policy) {
    case AllocationPolicy::kCompact:
      for (std::uint32_t i = 0; i < count; ++i) {
        nodes[i] = i;
      }
      break;
    case AllocationPolicy::kSpread:
      // i * M / N is strictly increasing in i when N <= M, so the nodes are distinct.
      for (std::uint32_t i = 0; i < count; ++i) {
        nodes[i] = static_cast<topo::NodeId>(std::uint64_t{i} * machine_nodes / count);
      }
      break;
    case AllocationPolicy::kRandom: {
      std::vector<topo::NodeId> all(machine_nodes);
      for (std::uint32_t i = 0; i < machine_nodes; ++i) {
        all[i] = i;
      }
      Rng rng(seed);
      shuffle(std::span<topo::NodeId>(all), rng);
      std::copy_n(all.begin(), count, nodes.begin());
      std::sort(nodes.begin(), nodes.end());
      break;
    }
  }
  return nodes;
}

JobNodes allocate_job_nodes(std::uint64_t machine_nodes, std::uint32_t count, AllocationPolicy policy,
                            std::uint64_t seed) {
  if (machine_nodes > std::numeric_limits<std::uint32_t>::max()) {
    throw InputError(fmt::format("--nodes {}: the network has {} nodes, more than --nodes can take", count,
                                 machine_nodes));
  }
  const auto machine = static_cast<std::uint32_t>(machine_nodes);  // checked above
  JobNodes job;
  job.nodes = allocate_nodes(machine, count > 0 ? count : machine, policy, seed, "--nodes");
  job.allocation = policy == AllocationPolicy::kRandom ? fmt::format("random, seed {}", seed)
                                                       : std::string(to_string(policy));
  return job;
}

std::vector<std::pair<std::string, std::string>> parse_node_pairs(std::string_view text,
                                                                  std::string_view what) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string_view item : split(text, ',')) {
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == item.size() ||
        item.find(':', colon + 1) != std::string_view::npos) {
      throw InputError(
          fmt::format("{} '{}': expected node pairs A:B separated by commas, e.g. "
                      "nid00016:nid00040,nid00048:nid00042",
                      what, text));
    }
    pairs.emplace_back(item.substr(0, colon), item.substr(colon + 1));
  }
  return pairs;
}

}  // namespace gridlock::mapping
