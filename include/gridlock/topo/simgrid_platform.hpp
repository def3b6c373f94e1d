#pragma once
/// @file
/// SimGrid platform files (XML, version 4.1) for any gridlock topology, so that SMPI simulations
/// route messages exactly as the model does (`gridlock topo simgrid`, docs/topologies.md).
///
/// The platform is one zone with `routing="Full"`: one host per node (named as the topology names
/// it, e.g. `nid00017`), one SHARED link per directed network link and per injection and ejection
/// link, with the model's capacity, and one explicit one-way route per ordered pair of distinct
/// nodes: the source's injection link, the links of Topology::route(), the destination's ejection
/// link. SimGrid adds its loopback route for a host to itself.
///
/// LIMITATIONS: the routes are n^2 (about 300 bytes each), so the node count is bounded
/// (SimgridPlatformOptions::max_nodes); SimGrid shares each link's bandwidth between the flows
/// crossing it (max-min fairness) but models no packet queues or credit stalls.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "gridlock/topo/topology.hpp"

namespace gridlock::topo {

/// Default bound on the nodes of a generated platform (1,024 nodes: about a million routes).
inline constexpr std::size_t kSimgridDefaultMaxNodes = 1024;

/// What a generated SimGrid platform looks like beyond the topology itself.
struct SimgridPlatformOptions {
  /// Latency of each network (router-to-router) link, in picoseconds (default 100 ns per hop).
  std::uint64_t network_latency_ps = 100'000;
  /// Latency of each injection and ejection link, in picoseconds (default 100 ns).
  std::uint64_t terminal_latency_ps = 100'000;
  /// Host speed in flop/s (default 1 Gflop/s; SMPI runs usually do not simulate computation).
  double host_speed_flops = 1e9;
  /// Topologies with more nodes are refused (the file holds one route per ordered node pair).
  std::size_t max_nodes = kSimgridDefaultMaxNodes;
  /// Lines of context for the XML comment at the top (tool, version, spec, date, options).
  std::string context_comment;
};

/// The SimGrid link id of `link`: `<router>:<port>` for network links (`(0,0,6):X+`),
/// `<node>:inject` and `<node>:eject` for terminal links (`nid00012:inject`).
[[nodiscard]] std::string simgrid_link_id(const Topology& topo, LinkId link);

/// The context comment gridlock writes by default: tool, gridlock version and commit, canonical
/// spec, latencies, host speed and the UTC date.
[[nodiscard]] std::string simgrid_default_context(const Topology& topo,
                                                  const SimgridPlatformOptions& options);

/// The whole platform as XML. Throws InputError when the topology has more than
/// `options.max_nodes` nodes (saying how to raise the bound) or fewer than one node.
[[nodiscard]] std::string simgrid_platform_xml(const Topology& topo, const SimgridPlatformOptions& options);

/// Writes the platform to `path` atomically, piece by piece (a 1,024-node torus is 307 MB,
/// which SimGrid loads in about 10 s). Throws InputError as simgrid_platform_xml() does, IoError when the
/// file cannot be written.
void write_simgrid_platform(const Topology& topo, const SimgridPlatformOptions& options,
                            const std::filesystem::path& path);

/// Parses a host speed in flop/s: a number with an optional SimGrid unit, `f`, `kf`, `Mf`, `Gf`,
/// `Tf`, `Pf` (or `flops`, `kflops`, ...), e.g. `1Gf`, `2.5e9`, `100Mflops`. Throws InputError
/// naming `what` on malformed, zero, negative or infinite input.
[[nodiscard]] double parse_speed_flops(std::string_view text, std::string_view what = "host speed");

}  // namespace gridlock::topo
