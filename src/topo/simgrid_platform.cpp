#include "gridlock/topo/simgrid_platform.hpp"

#include <array>
#include <cmath>
#include <string>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/version.hpp"

namespace gridlock::topo {
namespace {

// Pieces are handed to the sink in chunks of about this size: a large platform is streamed to its
// file instead of being held whole in memory.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// An XML comment may not contain "--" nor end with '-' (a spec's coords=FILE path might).
std::string comment_safe(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '-' && !out.empty() && out.back() == '-') {
      out += ' ';
    }
    out += c;
  }
  if (!out.empty() && out.back() == '-') {
    out += ' ';
  }
  return out;
}

// SimGrid reads times with units; whole nanoseconds are written as such for people, anything
// finer in picoseconds, so the value is exact either way.
std::string simgrid_time(std::uint64_t ps) {
  if (ps % 1000 == 0) {
    return fmt::format("{}ns", ps / 1000);
  }
  return fmt::format("{}ps", ps);
}

// Shortest text that reads back as the same double (e.g. 9375000000, 4.6875e+09).
std::string number(double value) { return fmt::format("{}", value); }

void check_size(const Topology& topo, const SimgridPlatformOptions& options) {
  const std::size_t n = topo.nodes().size();
  if (n == 0) {
    throw InputError(
        fmt::format("topology {} has no nodes: a SimGrid platform needs at least one host", topo.spec()));
  }
  if (n > options.max_nodes) {
    throw InputError(fmt::format(
        "topology {} has {} nodes, more than the {} a SimGrid platform is generated for: its "
        "explicit routes (one per ordered node pair, {} here) make a file of about {} MB that SimGrid "
        "is slow to load; use a smaller topology, or raise the bound with --max-nodes {}",
        topo.spec(), n, options.max_nodes, n * (n - 1), n * (n - 1) * 300 / 1'000'000 + 1, n));
  }
  if (!(options.host_speed_flops > 0) || !std::isfinite(options.host_speed_flops)) {
    throw InputError(
        fmt::format("host speed {} flop/s must be positive and finite, e.g. 1Gf", options.host_speed_flops));
  }
}

// Emits the platform piece by piece into `sink` (a callable taking std::string_view).
template <typename Sink>
void emit(const Topology& topo, const SimgridPlatformOptions& options, Sink&& sink) {
  check_size(topo, options);
  std::string out;
  out.reserve(kChunkBytes + 4096);
  const auto flush_if_full = [&] {
    if (out.size() >= kChunkBytes) {
      sink(std::string_view(out));
      out.clear();
    }
  };
  const std::string context =
      options.context_comment.empty() ? simgrid_default_context(topo, options) : options.context_comment;
  out += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!-- ";
  out += comment_safe(context);
  out += " -->\n<platform version=\"4.1\">\n";
  // The zone's id is the model's kind: any string works, and the spec may hold characters (a
  // coordinates file's path) that are awkward in an id.
  out += fmt::format("  <zone id=\"gridlock-{}\" routing=\"Full\">\n", topo.kind());
  const std::string speed = number(options.host_speed_flops) + "f";
  for (const auto& node : topo.nodes()) {
    out += "    <host id=\"";
    append_xml_escaped(out, node.name);
    out += fmt::format("\" speed=\"{}\"/>\n", speed);
    flush_if_full();
  }
  // One SHARED link per direction: each direction of a physical link has its own capacity, as in
  // the model, and a route names exactly the directed links it crosses.
  std::vector<std::string> ids;
  ids.reserve(topo.links().size());
  std::unordered_set<std::string> seen;
  for (const auto& link : topo.links()) {
    ids.push_back(xml_escaped(simgrid_link_id(topo, link.id)));
    if (!seen.insert(ids.back()).second) {
      // Port names are unique per router and node names per topology, so only a coordinates file
      // naming a node like a router port could get here.
      throw InputError(
          fmt::format("two links of {} would both be named '{}' in the SimGrid platform; "
                      "rename the node (coordinates file) so that no name ends like a port",
                      topo.spec(), ids.back()));
    }
    const auto latency = simgrid_time(link.kind == LinkKind::kNetwork ? options.network_latency_ps
                                                                      : options.terminal_latency_ps);
    out += fmt::format("    <link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}\" sharing_policy=\"SHARED\"/>\n",
                       ids.back(), number(link.capacity_bytes_per_s), latency);
    flush_if_full();
  }
  std::vector<std::string> hosts;
  hosts.reserve(topo.nodes().size());
  for (const auto& node : topo.nodes()) {
    hosts.push_back(xml_escaped(node.name));
  }
  std::vector<LinkId> route;
  for (const auto& src : topo.nodes()) {
    for (const auto& dst : topo.nodes()) {
      if (src.id == dst.id) {
        continue;  // SimGrid's Full routing adds its loopback link for a host to itself
      }
      topo.route_into(src.id, dst.id, route);
      out += fmt::format("    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\"><link_ctn id=\"{}\"/>",
                         hosts[src.id], hosts[dst.id], ids[topo.injection_link(src.id)]);
      for (const LinkId id : route) {
        out += fmt::format("<link_ctn id=\"{}\"/>", ids[id]);
      }
      out += fmt::format("<link_ctn id=\"{}\"/></route>\n", ids[topo.ejection_link(dst.id)]);
      flush_if_full();
    }
  }
  out += "  </zone>\n</platform>\n";
  sink(std::string_view(out));
}

}  // namespace

std::string simgrid_link_id(const Topology& topo, LinkId link) {
  const auto& l = topo.links().at(link);
  if (l.kind == LinkKind::kNetwork) {
    return fmt::format("{}:{}", topo.routers()[l.src_router].name, l.direction);
  }
  return fmt::format("{}:{}", topo.nodes()[l.node].name, l.kind == LinkKind::kInjection ? "inject" : "eject");
}

std::string simgrid_default_context(const Topology& topo, const SimgridPlatformOptions& options) {
  const std::size_t n = topo.nodes().size();
  return fmt::format(
      "gridlock SMPI platform written by gridlock topo simgrid (gridlock {}, commit {}) on {}\n"
      "     topology: {}\n"
      "     {} hosts {} .. {} (one per node), {} routers; {} directed network links (latency {} each) and "
      "{} injection/ejection links (latency {}), all SHARED, capacities from the model.\n"
      "     Full routing: one one-way route per ordered host pair, injection link + the model's route + "
      "ejection link, so SimGrid routes as gridlock::topo does (docs/topologies.md). Host speed {} flop/s.",
      kVersion, kGitCommit, utc_timestamp(), topo.spec(), n, n > 0 ? topo.nodes().front().name : "-",
      n > 0 ? topo.nodes().back().name : "-", topo.routers().size(), topo.network_link_count(),
      simgrid_time(options.network_latency_ps), topo.links().size() - topo.network_link_count(),
      simgrid_time(options.terminal_latency_ps), number(options.host_speed_flops));
}

std::string simgrid_platform_xml(const Topology& topo, const SimgridPlatformOptions& options) {
  std::string xml;
  emit(topo, options, [&xml](std::string_view piece) { xml += piece; });
  return xml;
}

void write_simgrid_platform(const Topology& topo, const SimgridPlatformOptions& options,
                            const std::filesystem::path& path) {
  // Checked before the file is created, so a refused topology leaves nothing behind.
  check_size(topo, options);
  AtomicFileWriter writer(path);
  emit(topo, options, [&writer](std::string_view piece) { writer.write(piece); });
  writer.commit();
}

double parse_speed_flops(std::string_view text, std::string_view what) {
  static constexpr std::array<std::pair<std::string_view, double>, 6> kPrefixes = {
      {{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}}};
  const auto number = parse_number_prefix<double>(text);
  const auto bad = [&](std::string_view why) {
    return InputError(
        fmt::format("invalid {} '{}': {}; give flop/s with an optional unit f, kf, Mf, Gf, Tf "
                    "or Pf (or kflops, ...), e.g. 1Gf or 2.5e9",
                    what, text, why));
  };
  if (!number) {
    throw bad("it does not start with a number");
  }
  const std::string_view unit = number->rest;
  double scale = 0;
  for (const auto& [prefix, factor] : kPrefixes) {
    if (unit.empty() || unit == fmt::format("{}f", prefix) || unit == fmt::format("{}flops", prefix)) {
      scale = unit.empty() ? 1.0 : factor;
      break;
    }
  }
  if (scale == 0) {
    throw bad(fmt::format("unknown unit '{}'", unit));
  }
  const double flops = number->value * scale;
  if (!(flops > 0) || !std::isfinite(flops)) {
    throw bad("it must be positive and finite");
  }
  return flops;
}

}  // namespace gridlock::topo
