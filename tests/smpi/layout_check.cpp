// Roles, slices and rings of gridlock-bench at scale, as an SMPI program (one process holds every
// simulated rank, so GoogleTest is not used): every rank checks its part, failures are counted
// with one MPI_Allreduce, and rank 0 prints the verdict.
// Usage (through scripts/smpi-run.sh): layout_check HOSTS RANKS_PER_HOST [SEED]
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/layout.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/roles.hpp"

namespace {

namespace gb = gridlock::bench;
namespace gpcnet = gridlock::gpcnet;

// Failures of this rank; each is printed with the rank so a broken layout is easy to locate.
struct Checker {
  int rank = 0;
  int failures = 0;
  void expect(bool ok, const std::string& what) {
    if (!ok) {
      ++failures;
      fmt::print(stderr, "layout_check: rank {}: FAILED: {}\n", rank, what);
    }
  }
};

// Processor names of every member of `comm`, gathered on all of them.
std::vector<std::string> all_names(MPI_Comm comm, const std::string& mine) {
  constexpr int kLength = MPI_MAX_PROCESSOR_NAME + 8;
  std::vector<char> own(kLength, '\0');
  std::strncpy(own.data(), mine.c_str(), kLength - 1);
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<char> all(static_cast<std::size_t>(size) * kLength);
  GRIDLOCK_MPI(MPI_Allgather(own.data(), kLength, MPI_CHAR, all.data(), kLength, MPI_CHAR, comm));
  std::vector<std::string> names;
  for (int i = 0; i < size; ++i) {
    names.emplace_back(all.data() + static_cast<std::size_t>(i) * kLength);
  }
  return names;
}

// Role communicators as gridlock-bench builds them (detail::split_role_comms), checked against
// the layout: slices cross nodes only, groups hold whole nodes, and every random ring over a
// slice is a single cycle whose neighbours agree with a message actually exchanged.
void check_mode(Checker& c, const gb::NodeLayout& layout, const gpcnet::RoleLayout& roles, bool network,
                std::uint64_t seed) {
  const gpcnet::NodeRole role = roles.role_of(layout.node_id());
  const std::uint64_t position = network ? layout.node_id() : role.position;
  const int rpn = layout.ranks_per_node();
  auto comms = gb::detail::split_role_comms(MPI_COMM_WORLD, role.group, position, rpn, layout.local_rank());
  const auto group_nodes = roles.group_size(role.group);
  const std::string mode = network ? "network" : "load";

  c.expect(static_cast<std::uint64_t>(comms.slice.size()) == group_nodes,
           fmt::format("{}: slice of group {} has {} ranks, the group {} nodes", mode, role.group,
                       comms.slice.size(), group_nodes));
  c.expect(static_cast<std::uint64_t>(comms.group.size()) == group_nodes * static_cast<std::uint64_t>(rpn),
           fmt::format("{}: group comm {} has {} ranks, expected {}", mode, role.group, comms.group.size(),
                       group_nodes * static_cast<std::uint64_t>(rpn)));
  c.expect(static_cast<std::uint64_t>(comms.slice.rank()) == position,
           fmt::format("{}: slice rank {} is not the node position {}", mode, comms.slice.rank(), position));
  // A slice crosses nodes only: one member per node, all with this rank's local rank.
  const auto names = all_names(comms.slice.get(), layout.node_name());
  const std::set<std::string> distinct(names.begin(), names.end());
  c.expect(distinct.size() == names.size(), fmt::format("{}: slice of group {} has {} members on {} nodes",
                                                        mode, role.group, names.size(), distinct.size()));
  int local = layout.local_rank();
  int local_min = 0;
  int local_max = 0;
  GRIDLOCK_MPI(MPI_Allreduce(&local, &local_min, 1, MPI_INT, MPI_MIN, comms.slice.get()));
  GRIDLOCK_MPI(MPI_Allreduce(&local, &local_max, 1, MPI_INT, MPI_MAX, comms.slice.get()));
  c.expect(local_min == local_max,
           fmt::format("{}: slice mixes local ranks {}..{}", mode, local_min, local_max));

  // Rings: each is one cycle over the whole slice, and a message sent right arrives from left.
  const auto size = static_cast<std::uint64_t>(comms.slice.size());
  const auto me = static_cast<std::uint64_t>(comms.slice.rank());
  const std::uint64_t ring_seed = gridlock::derive_seed(seed, gpcnet::kRingStream);
  for (std::uint64_t n = 0; n < 4; ++n) {
    const auto nb = gridlock::random_ring_neighbours(size, me, ring_seed, n);
    int received = -1;
    int sent = static_cast<int>(me);
    GRIDLOCK_MPI(MPI_Sendrecv(&sent, 1, MPI_INT, static_cast<int>(nb.right), 7, &received, 1, MPI_INT,
                              static_cast<int>(nb.left), 7, comms.slice.get(), MPI_STATUS_IGNORE));
    c.expect(received == static_cast<int>(nb.left),
             fmt::format("{}: ring {}: left neighbour {} but received from {}", mode, n, nb.left, received));
    if (me == 0) {
      // Follow right neighbours from member 0: back to 0 after exactly `size` steps.
      std::uint64_t at = 0;
      std::uint64_t steps = 0;
      do {
        at = gridlock::random_ring_neighbours(size, at, ring_seed, n).right;
        ++steps;
      } while (at != 0 && steps <= size);
      c.expect(steps == size, fmt::format("{}: ring {} of group {}: cycle of {} steps over {} members", mode,
                                          n, role.group, steps, size));
    }
  }
}

// Rank 0: roles partition the nodes with the configured sizes, positions are a permutation.
void check_roles(Checker& c, const gpcnet::RoleLayout& roles, std::uint64_t nodes, double fraction) {
  std::vector<std::uint64_t> count(static_cast<std::size_t>(roles.group_count()), 0);
  std::vector<std::set<std::uint64_t>> positions(count.size());
  for (std::uint64_t n = 0; n < nodes; ++n) {
    const auto r = roles.role_of(n);
    const auto g = static_cast<std::size_t>(r.group);
    ++count.at(g);
    c.expect(positions.at(g).insert(r.position).second, fmt::format("roles: position {} twice", r.position));
  }
  std::uint64_t total = 0;
  for (std::size_t g = 0; g < count.size(); ++g) {
    total += count[g];
    c.expect(count[g] == roles.group_size(static_cast<int>(g)), fmt::format("roles: group {} size", g));
    c.expect(positions[g].empty() || *positions[g].rbegin() == count[g] - 1,
             fmt::format("roles: positions of group {} are not 0..{}", g, count[g] - 1));
  }
  c.expect(total == nodes, "roles: groups do not cover every node once");
  const auto canaries =
      nodes - static_cast<std::uint64_t>(std::floor(static_cast<double>(nodes) * (1.0 - fraction)));
  c.expect(count.at(0) == canaries,
           fmt::format("roles: {} canary nodes, configured {}", count.at(0), canaries));
  const std::uint64_t rest = nodes - canaries;
  const std::uint64_t types = count.size() - 1;
  for (std::size_t g = 1; g < count.size(); ++g) {
    const std::uint64_t expected = rest / types + ((g - 1) < rest % types ? 1 : 0);
    c.expect(count[g] == expected,
             fmt::format("roles: congestor group {} has {} nodes, expected {}", g, count[g], expected));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Checker c;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  if (argc < 3) {
    if (c.rank == 0) {
      fmt::print(stderr, "usage: layout_check HOSTS RANKS_PER_HOST [SEED]\n");
    }
    MPI_Finalize();
    return 2;
  }
  const auto hosts = std::strtoull(argv[1], nullptr, 10);
  const int per_host = std::atoi(argv[2]);
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  try {
    // Node detection must count one node per simulated host, with no option.
    const auto layout = gb::NodeLayout::detect(MPI_COMM_WORLD, gpcnet::Options{});
    c.expect(layout.nodes() == hosts, fmt::format("{} nodes detected, {} hosts", layout.nodes(), hosts));
    c.expect(layout.ranks_per_node() == per_host,
             fmt::format("{} ranks per node detected, {} per host", layout.ranks_per_node(), per_host));
    c.expect(!layout.virtual_nodes(), "nodes detected as virtual");
    const auto node_names = all_names(layout.node_comm(), layout.node_name());
    c.expect(std::set<std::string>(node_names.begin(), node_names.end()).size() == 1,
             "a node spans several simulated hosts");

    const gpcnet::Options defaults;
    const gpcnet::RoleLayout load(layout.nodes(), seed, defaults.canary_fraction, defaults.congestors);
    if (c.rank == 0) {
      check_roles(c, load, layout.nodes(), defaults.canary_fraction);
    }
    check_mode(c, layout, load, false, seed);
    const auto network = gpcnet::RoleLayout::all_canaries(layout.nodes(), seed);
    check_mode(c, layout, network, true, seed);
  } catch (const std::exception& e) {
    c.expect(false, e.what());
  }
  int failures = 0;
  MPI_Allreduce(&c.failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (c.rank == 0) {
    fmt::print("layout_check: {} hosts x {} ranks, seed {}: {}\n", hosts, per_host, seed,
               failures == 0 ? "OK" : fmt::format("{} FAILURES", failures));
  }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
