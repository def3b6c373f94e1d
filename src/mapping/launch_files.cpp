// Launcher files for a placement, and readers for them (so that a placement survives a round trip
// and gridlock-bench can apply a rankfile in the application).
#include "gridlock/mapping/launch_files.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::mapping {
namespace {

// Lines without comments and surrounding blanks, numbered from 1; empty lines are skipped.
template <typename Fn>
void for_each_line(std::string_view text, Fn fn) {
  std::uint32_t line_no = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (!line.empty()) {
      fn(line_no, line);
    }
  }
}

// The fields of a rankfile line `rank R=HOST slot=S` after its "rank" (`after`, trimmed): R, HOST
// and what follows HOST (`slot=S`), untrimmed; nothing when the '=' or the blank after HOST is
// missing. The one reading of the line's shape, for read_rankfile() and rankfile_hosts().
struct RankLine {
  std::string_view rank;
  std::string_view host;
  std::string_view rest;
};
std::optional<RankLine> split_rank_line(std::string_view after) {
  const auto eq = after.find('=');
  const auto space = after.find_first_of(" \t", eq == std::string_view::npos ? 0 : eq);
  if (eq == std::string_view::npos || space == std::string_view::npos) {
    return std::nullopt;
  }
  return RankLine{after.substr(0, eq), after.substr(eq + 1, space - eq - 1), after.substr(space)};
}

std::unordered_map<std::string, std::uint32_t> node_index(const Allocation& allocation) {
  std::unordered_map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < allocation.names.size(); ++i) {
    index.emplace(allocation.names[i], i);
  }
  return index;
}

Placement finish(std::vector<std::uint32_t>& core_of_rank, std::string_view where,
                 const Allocation& allocation) {
  for (std::uint32_t r = 0; r < core_of_rank.size(); ++r) {
    if (core_of_rank[r] == UINT32_MAX) {
      throw InputError(fmt::format("{}: rank {} is missing (ranks must be 0..{}, each once)", where, r,
                                   core_of_rank.size() - 1));
    }
  }
  check_placement(core_of_rank, static_cast<std::uint32_t>(core_of_rank.size()), allocation.num_cores());
  return core_of_rank;
}

void place(std::vector<std::uint32_t>& core_of_rank, std::uint32_t rank, std::uint32_t core,
           std::string_view where, std::uint32_t line_no, std::uint32_t num_cores) {
  if (rank >= num_cores) {
    throw InputError(fmt::format("{}:{}: rank {} is beyond the allocation's {} cores (ranks are 0..{})",
                                 where, line_no, rank, num_cores, num_cores - 1));
  }
  if (rank >= core_of_rank.size()) {
    core_of_rank.resize(rank + 1, UINT32_MAX);
  }
  if (core_of_rank[rank] != UINT32_MAX) {
    throw InputError(fmt::format("{}:{}: rank {} is placed twice", where, line_no, rank));
  }
  core_of_rank[rank] = core;
}

}  // namespace

std::string write_rankfile(const Placement& placement, const Allocation& allocation) {
  check_placement(placement, static_cast<std::uint32_t>(placement.size()), allocation.num_cores());
  std::string out;
  out.reserve(placement.size() * 32);
  for (std::size_t r = 0; r < placement.size(); ++r) {
    out += fmt::format("rank {}={} slot={}\n", r, allocation.names[allocation.node_of_core(placement[r])],
                       allocation.slot_of_core(placement[r]));
  }
  return out;
}

std::string write_slurm_hostfile(const Placement& placement, const Allocation& allocation) {
  check_placement(placement, static_cast<std::uint32_t>(placement.size()), allocation.num_cores());
  std::string out;
  out.reserve(placement.size() * 16);
  for (const auto core : placement) {
    out += allocation.names[allocation.node_of_core(core)];
    out += '\n';
  }
  return out;
}

std::string write_mpich_rank_order(const Placement& placement, const Allocation& allocation) {
  check_placement(placement, static_cast<std::uint32_t>(placement.size()), allocation.num_cores());
  if (placement.size() != allocation.num_cores()) {
    throw InputError(
        fmt::format("MPICH_RANK_ORDER cannot leave cores empty: {} ranks on {} cores; map as many tasks as "
                    "cores, or use the "
                    "rankfile or Slurm hostfile",
                    placement.size(), allocation.num_cores()));
  }
  std::vector<std::uint32_t> rank_at(allocation.num_cores());
  for (std::uint32_t r = 0; r < placement.size(); ++r) {
    rank_at[placement[r]] = r;
  }
  // One line per node keeps the file readable and the lines short.
  std::string out;
  for (std::uint32_t node = 0; node < allocation.num_nodes(); ++node) {
    for (std::uint32_t slot = 0; slot < allocation.cores_per_node; ++slot) {
      out += fmt::format("{}{}", slot == 0 ? "" : ",", rank_at[node * allocation.cores_per_node + slot]);
    }
    out += node + 1 < allocation.num_nodes() ? ",\n" : "\n";
  }
  return out;
}

Placement read_rankfile(std::string_view text, const Allocation& allocation, std::string_view where) {
  const auto index = node_index(allocation);
  std::vector<std::uint32_t> core_of_rank;
  for_each_line(text, [&](std::uint32_t line_no, std::string_view line) {
    // rank R=HOST slot=S
    const auto bad = [&](std::string_view why) {
      return InputError(fmt::format("{}:{}: {} in '{}'; expected 'rank R=HOST slot=S'", where, line_no, why,
                                    printable_excerpt(line)));
    };
    if (!line.starts_with("rank")) {
      throw bad("no 'rank'");
    }
    line = trim(line.substr(4));  // the messages below quote the line from here on
    const std::optional<RankLine> fields = split_rank_line(line);
    if (!fields) {
      throw bad("malformed line");
    }
    const std::optional<std::uint32_t> rank_number = parse_u32(trim(fields->rank));
    if (!rank_number) {
      throw bad("bad rank number");
    }
    const std::uint32_t rank = *rank_number;
    const std::string host(trim(fields->host));
    std::string_view slot_text = trim(fields->rest);
    if (!slot_text.starts_with("slot=")) {
      throw bad("no 'slot='");
    }
    slot_text = slot_text.substr(5);
    const std::optional<std::uint32_t> slot_number = parse_u32(slot_text);
    if (!slot_number) {
      throw bad("bad slot number (gridlock writes one core per rank, e.g. slot=2)");
    }
    const std::uint32_t slot = *slot_number;
    const auto it = index.find(host);
    if (it == index.end()) {
      throw bad(fmt::format("host '{}' is not in the allocation", printable_excerpt(host)));
    }
    if (slot >= allocation.cores_per_node) {
      throw bad(fmt::format("slot {} is beyond the {} cores per node", slot, allocation.cores_per_node));
    }
    place(core_of_rank, rank, it->second * allocation.cores_per_node + slot, where, line_no,
          allocation.num_cores());
  });
  return finish(core_of_rank, where, allocation);
}

Placement read_slurm_hostfile(std::string_view text, const Allocation& allocation, std::string_view where) {
  const auto index = node_index(allocation);
  std::vector<std::uint32_t> next_slot(allocation.num_nodes(), 0);
  std::vector<std::uint32_t> core_of_rank;
  for_each_line(text, [&](std::uint32_t line_no, std::string_view line) {
    const auto it = index.find(std::string(line));
    if (it == index.end()) {
      throw InputError(
          fmt::format("{}:{}: host '{}' is not in the allocation", where, line_no, printable_excerpt(line)));
    }
    auto& slot = next_slot[it->second];
    if (slot >= allocation.cores_per_node) {
      throw InputError(fmt::format("{}:{}: host '{}' is named more than {} times (its cores per node)", where,
                                   line_no, line, allocation.cores_per_node));
    }
    const auto rank = static_cast<std::uint32_t>(core_of_rank.size());
    place(core_of_rank, rank, it->second * allocation.cores_per_node + slot++, where, line_no,
          allocation.num_cores());
  });
  return finish(core_of_rank, where, allocation);
}

Placement read_mpich_rank_order(std::string_view text, const Allocation& allocation, std::string_view where) {
  std::vector<std::uint32_t> core_of_rank;
  std::uint32_t next_core = 0;
  for_each_line(text, [&](std::uint32_t line_no, std::string_view line) {
    for (auto item : split(line, ',')) {
      item = trim(item);
      if (item.empty()) {
        continue;
      }
      const auto dash = item.find('-');
      const std::optional<std::uint32_t> first_number =
          parse_u32(dash == std::string_view::npos ? item : trim(item.substr(0, dash)));
      const std::optional<std::uint32_t> last_number =
          dash == std::string_view::npos ? first_number : parse_u32(trim(item.substr(dash + 1)));
      const std::uint32_t first = first_number.value_or(0);
      const std::uint32_t last = last_number.value_or(0);
      if (!first_number || !last_number || last < first) {
        throw InputError(fmt::format("{}:{}: '{}' is not a rank or an ascending range A-B", where, line_no,
                                     printable_excerpt(item)));
      }
      for (std::uint64_t r = first; r <= last; ++r) {
        if (next_core >= allocation.num_cores()) {
          throw InputError(fmt::format("{}:{}: more ranks than the {} cores of the allocation", where,
                                       line_no, allocation.num_cores()));
        }
        place(core_of_rank, static_cast<std::uint32_t>(r), next_core++, where, line_no,
              allocation.num_cores());
      }
    }
  });
  return finish(core_of_rank, where, allocation);
}

std::vector<std::string> rankfile_hosts(std::string_view text) {
  std::vector<std::string> hosts;
  for_each_line(text, [&](std::uint32_t /*line_no*/, std::string_view line) {
    if (!line.starts_with("rank")) {
      return;
    }
    if (const std::optional<RankLine> fields = split_rank_line(trim(line.substr(4)))) {
      hosts.emplace_back(trim(fields->host));
    }
  });
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

std::vector<topo::NodeId> read_rankfile_nodes(const topo::Topology& topology, std::uint32_t ranks,
                                              std::string_view text, std::string_view where,
                                              std::string_view first_node, std::string_view last_node) {
  const std::vector<topo::Node>& nodes = topology.nodes();
  if (nodes.empty() || nodes.size() > kMaxAllocationNodes) {
    throw InputError(fmt::format("{}: {} has {} nodes; a rankfile placement takes networks of 1 to {}", where,
                                 topology.spec(), nodes.size(), kMaxAllocationNodes));
  }
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const topo::Node& node : nodes) {
    names.push_back(node.name);
  }
  // Enough slots per node for any rank count the file could place there, within the
  // allocation's limits (at most kMaxCoresPerNode per node, 2^31 cores in all).
  const std::uint64_t core_limit = (std::uint64_t{1} << 31U) / std::max<std::size_t>(1, nodes.size());
  const auto cores_per_node = static_cast<std::uint32_t>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>({std::max<std::uint32_t>(ranks, 1), kMaxCoresPerNode, core_limit})));
  const Allocation allocation = make_allocation(topology, names, cores_per_node);
  Placement cores;
  try {
    cores = read_rankfile(text, allocation, where);
  } catch (const InputError& e) {
    // The allocation is the whole network here: say what its nodes are called.
    // Messages of the placement checks do not name the file.
    const std::string_view what = e.what();
    throw InputError(fmt::format("{}{} (the nodes of {} are {} .. {})",
                                 what.starts_with(where) ? "" : fmt::format("{}: ", where), what,
                                 topology.spec(), first_node.empty() ? nodes.front().name : first_node,
                                 last_node.empty() ? nodes.back().name : last_node));
  }
  if (cores.size() != ranks) {
    throw InputError(fmt::format(
        "{} places {} ranks (0..{}), the schedule has {}: give a rankfile with one line per rank 0..{}",
        where, cores.size(), cores.empty() ? 0 : cores.size() - 1, ranks, ranks == 0 ? 0 : ranks - 1));
  }
  std::vector<topo::NodeId> node_of_rank;
  node_of_rank.reserve(cores.size());
  for (const std::uint32_t core : cores) {
    node_of_rank.push_back(allocation.nodes.at(core / allocation.cores_per_node));
  }
  return node_of_rank;
}

}  // namespace gridlock::mapping
