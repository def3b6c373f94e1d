#include "gridlock/topo/dragonfly.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::topo {

Dragonfly::Dragonfly(DragonflyOptions options) : options_(options) {
  const int g = options_.groups;
  const int a = options_.routers_per_group;
  const int p = options_.nodes_per_router;
  const int h = options_.global_links_per_router;
  if (g < 2 || a < 1 || p < 1 || h < 1) {
    throw InputError(
        fmt::format("dragonfly needs g >= 2, a >= 1, p >= 1, h >= 1 (got g={} a={} p={} h={}), "
                    "e.g. 'dragonfly:g=9,a=4,p=2,h=2'",
                    g, a, p, h));
  }
  // Per-router counts are radices, bounded like the other models' (fat tree, torus), which also
  // keeps every product below within 64 bits: g < 2^31 and the rest at most 4096.
  if (a > kMaxRadix || p > kMaxRadix || h > kMaxRadix) {
    throw InputError(
        fmt::format("dragonfly a, p and h are per-router counts and must be 1..{} (got a={} p={} h={})",
                    kMaxRadix, a, p, h));
  }
  const long long router_count = static_cast<long long>(g) * a;
  if (router_count * p > kMaxTopologyNodes) {
    throw InputError(fmt::format("dragonfly too large: g*a*p = {} nodes, at most {}", router_count * p,
                                 kMaxTopologyNodes));
  }
  const long long ports_per_group = static_cast<long long>(a) * h;
  if (ports_per_group < g - 1) {
    throw InputError(
        fmt::format("dragonfly with g={} groups needs a*h >= g-1 = {} global ports per group to join "
                    "every pair of groups (a*h = {}): raise a or h, or lower g",
                    g, g - 1, ports_per_group));
  }
  // Every router links to the others of its group and has h global ports: bounded before building,
  // as g=1024, a=4096, p=1 (4 M nodes, within the node bound) would ask for 17 G local links.
  const long long links = router_count * (a - 1) + router_count * h;
  if (links > kMaxTopologyLinks) {
    throw InputError(fmt::format(
        "dragonfly too large: g*a*(a-1) local plus g*a*h global links = {}, at most {}; lower a or h", links,
        kMaxTopologyLinks));
  }
  if (options_.rows < 0 || (options_.rows > 0 && a % options_.rows != 0)) {
    throw InputError(
        fmt::format("dragonfly 2-D group 'intra=2d:RxC' needs R*C = a = {} (got R = {})", a, options_.rows));
  }
  if (!(options_.local_capacity_bytes_per_s > 0) || !(options_.global_capacity_bytes_per_s > 0) ||
      !(options_.terminal_capacity_bytes_per_s > 0)) {
    throw InputError("dragonfly link capacities must be positive");
  }
  const int cols = options_.rows > 0 ? a / options_.rows : a;
  // Local links: to every other router of the group, or along its row and column; global links:
  // at most h per router (ports beyond the partners a group has stay unused).
  const long long local_per_router = options_.rows > 0 ? (cols - 1) + (options_.rows - 1) : a - 1;
  reserve(static_cast<std::size_t>(router_count * p), static_cast<std::size_t>(router_count),
          static_cast<std::size_t>(router_count * (local_per_router + h)));
  for (int grp = 0; grp < g; ++grp) {
    for (int r = 0; r < a; ++r) {
      add_router(fmt::format("g{}r{}", grp, r), {grp, r});
    }
  }
  local_link_.assign(static_cast<std::size_t>(g) * a * a, kNoLink);
  for (int grp = 0; grp < g; ++grp) {
    for (int r = 0; r < a; ++r) {
      for (int r2 = 0; r2 < a; ++r2) {
        const bool joined =
            options_.rows == 0 ? r != r2 : (r != r2 && (r / cols == r2 / cols || r % cols == r2 % cols));
        if (!joined) {
          continue;
        }
        const auto src = static_cast<RouterId>(grp * a + r);
        const auto dst = static_cast<RouterId>(grp * a + r2);
        local_link_[(static_cast<std::size_t>(grp) * a + r) * a + r2] = add_link(
            src, dst, fmt::format("l{}", r2), fmt::format("l{}", r), options_.local_capacity_bytes_per_s);
      }
    }
  }
  global_ports_.assign(static_cast<std::size_t>(g) * g, {});
  const int ports = a * h;
  for (int grp = 0; grp < g; ++grp) {
    for (int k = 0; k < ports; ++k) {
      const int offset = k % (g - 1) + 1;
      const int copy = k / (g - 1);
      const int target = (grp + offset) % g;
      const int partner = copy * (g - 1) + (g - offset - 1);
      if (partner >= ports) {
        continue;  // the other group has no port left for this copy
      }
      const auto src = static_cast<RouterId>(grp * a + k / h);
      const auto landing = static_cast<RouterId>(target * a + partner / h);
      const LinkId link = add_link(src, landing, fmt::format("g{}", k % h), fmt::format("g{}", partner % h),
                                   options_.global_capacity_bytes_per_s);
      global_ports_[static_cast<std::size_t>(grp) * g + target].push_back(GlobalPort{k / h, link, landing});
    }
  }
  int nid = 0;
  for (RouterId r = 0; r < routers().size(); ++r) {
    for (int k = 0; k < p; ++k) {
      add_node(fmt::format("n{:05d}", nid++), r);
    }
  }
  finish(options_.terminal_capacity_bytes_per_s);
}

int Dragonfly::group_of(RouterId router) const noexcept {
  return static_cast<int>(router) / options_.routers_per_group;
}

// With several global links between two groups (copies: a*h > g-1), the minimal route takes one
// of the source router's own links into the destination group when it has any (no local hop
// before the global one), else a copy on another router; among the candidates it chooses by the
// sum of the source and destination router indices, so that the traffic of a router pair stays
// on one path (in order) while different pairs spread over all copies. (Choosing by the source
// router alone, as before, put a 2-group machine's cross-group traffic on the global links of 10
// of its 96 routers: Crystal's isolated BW+Sync at 696 nodes was a fifth of the paper's.) A real
// Aries or Slingshot router spreads it adaptively; this is the deterministic stand-in.
const Dragonfly::GlobalPort& Dragonfly::global_port(RouterId src, int dst_group, RouterId toward) const {
  const int a = options_.routers_per_group;
  const int r = static_cast<int>(src) % a;
  const auto& ports = global_ports_.at(static_cast<std::size_t>(group_of(src)) * options_.groups + dst_group);
  const auto spread = static_cast<std::size_t>(r) + static_cast<std::size_t>(static_cast<int>(toward) % a);
  // The ports of one group pair are in port order, so the source router's own ones are adjacent.
  const auto first = std::find_if(ports.begin(), ports.end(),
                                  [r](const GlobalPort& port) { return port.router_in_group == r; });
  if (first != ports.end()) {
    const auto last =
        std::find_if(first, ports.end(), [r](const GlobalPort& port) { return port.router_in_group != r; });
    return *(first + static_cast<std::ptrdiff_t>(spread % static_cast<std::size_t>(last - first)));
  }
  return ports[spread % ports.size()];
}

void Dragonfly::append_local(RouterId src, RouterId dst, std::vector<LinkId>& out, bool column_first) const {
  if (src == dst) {
    return;
  }
  const int a = options_.routers_per_group;
  const int grp = group_of(src);
  const int r = static_cast<int>(src) % a;
  const int r2 = static_cast<int>(dst) % a;
  const auto direct = [&](int from, int to) {
    return local_link_[(static_cast<std::size_t>(grp) * a + from) * a + to];
  };
  if (direct(r, r2) != kNoLink) {
    out.push_back(direct(r, r2));
    return;
  }
  // 2-D group: along the row to the destination column, then along the column (or, with
  // `column_first`, along the column to the destination row, then along the row).
  const int cols = a / options_.rows;
  const int mid = column_first ? (r2 / cols) * cols + r % cols : (r / cols) * cols + r2 % cols;
  out.push_back(direct(r, mid));
  out.push_back(direct(mid, r2));
}

void Dragonfly::append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const {
  const int a = options_.routers_per_group;
  const int src_group = group_of(src);
  const int dst_group = group_of(dst);
  if (src_group == dst_group) {
    append_local(src, dst, out, false);
    return;
  }
  const GlobalPort& port = global_port(src, dst_group, dst);
  append_local(src, static_cast<RouterId>(src_group * a + port.router_in_group), out, false);
  out.push_back(port.link);
  append_local(port.landing, dst, out, false);
}

std::uint64_t Dragonfly::router_route_choices(RouterId src, RouterId dst) const {
  // In 2-D groups one bit per local part (row or column first), used only where both the row and
  // the column change; a bit that does not apply gives the same route for both values.
  const std::uint64_t local = options_.rows == 0 ? 1 : 2;
  if (group_of(src) == group_of(dst)) {
    return local;
  }
  const auto& ports =
      global_ports_.at(static_cast<std::size_t>(group_of(src)) * options_.groups + group_of(dst));
  return ports.size() * local * local;
}

void Dragonfly::append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                           std::vector<LinkId>& out) const {
  const int a = options_.routers_per_group;
  const int src_group = group_of(src);
  const int dst_group = group_of(dst);
  if (src_group == dst_group) {
    append_local(src, dst, out, (choice & 1U) != 0);
    return;
  }
  // Index = copy + copies * (source-side bit + 2 * destination-side bit).
  const auto& ports = global_ports_.at(static_cast<std::size_t>(src_group) * options_.groups + dst_group);
  const GlobalPort& port = ports[choice % ports.size()];
  const std::uint64_t bits = choice / ports.size();
  append_local(src, static_cast<RouterId>(src_group * a + port.router_in_group), out, (bits & 1U) != 0);
  out.push_back(port.link);
  append_local(port.landing, dst, out, (bits & 2U) != 0);
}

std::vector<int> Dragonfly::valiant_candidates(NodeId src, NodeId dst) const {
  const int gs = group_of(nodes().at(src).router);
  const int gd = group_of(nodes().at(dst).router);
  std::vector<int> out;
  if (gs == gd) {
    return out;
  }
  for (int grp = 0; grp < options_.groups; ++grp) {
    if (grp != gs && grp != gd) {
      out.push_back(grp);
    }
  }
  return out;
}

std::vector<LinkId> Dragonfly::valiant_route(NodeId src, NodeId dst, int intermediate_group) const {
  const RouterId s = nodes().at(src).router;
  const RouterId d = nodes().at(dst).router;
  const int gs = group_of(s);
  const int gd = group_of(d);
  if (intermediate_group < 0 || intermediate_group >= options_.groups || intermediate_group == gs ||
      intermediate_group == gd) {
    throw InputError(
        fmt::format("Valiant intermediate group {} must differ from the source group {} and the "
                    "destination group {} and be below {}",
                    intermediate_group, gs, gd, options_.groups));
  }
  std::vector<LinkId> out;
  append_group_valiant(s, d, intermediate_group, out);
  return out;
}

void Dragonfly::append_group_valiant(RouterId src, RouterId dst, int group, std::vector<LinkId>& out) const {
  const RouterId mid = global_port(src, group, dst).landing;
  append_router_route(src, mid, out);
  append_router_route(mid, dst, out);
}

std::size_t Dragonfly::valiant_choices(NodeId src, NodeId dst) const {
  const RouterId s = nodes().at(src).router;
  const RouterId d = nodes().at(dst).router;
  const auto a = static_cast<std::size_t>(options_.routers_per_group);
  if (group_of(s) == group_of(d)) {
    return s == d ? 0 : a - 2;
  }
  if (options_.groups == 2) {
    return a - 1;
  }
  return static_cast<std::size_t>(options_.groups) - 2;
}

std::size_t Dragonfly::append_valiant_route(NodeId src, NodeId dst, std::size_t choice,
                                            std::vector<LinkId>& out) const {
  const std::size_t choices = valiant_choices(src, dst);
  if (choice >= choices) {
    throw InputError(fmt::format("Valiant path {} from node {} to node {}: there are {} (0 to {})", choice,
                                 src, dst, choices, choices == 0 ? 0 : choices - 1));
  }
  const RouterId s = nodes().at(src).router;
  const RouterId d = nodes().at(dst).router;
  const int a = options_.routers_per_group;
  const int gs = group_of(s);
  const int gd = group_of(d);
  // The choice-th router of the source group other than `skip` and `skip2` (which may be equal).
  const auto nth_router = [&](RouterId skip, RouterId skip2) {
    const int lo = static_cast<int>(std::min(skip, skip2)) % a;
    const int hi = static_cast<int>(std::max(skip, skip2)) % a;
    int r = static_cast<int>(choice);
    r += r >= lo ? 1 : 0;
    r += hi != lo && r >= hi ? 1 : 0;
    return static_cast<RouterId>(gs * a + r);
  };
  if (gs == gd) {
    const RouterId mid = nth_router(s, d);
    const std::size_t start = out.size();
    append_local(s, mid, out, false);
    const std::size_t turn = out.size() - start;
    append_local(mid, d, out, false);
    return turn;
  }
  if (options_.groups == 2) {
    // No third group: through another gateway of the source group. No channel change is needed:
    // the path is local, global, local like a minimal one.
    const RouterId mid = nth_router(s, s);
    const GlobalPort& port = global_port(mid, gd, d);
    append_local(s, mid, out, false);
    append_local(mid, static_cast<RouterId>(gs * a + port.router_in_group), out, false);
    out.push_back(port.link);
    append_local(port.landing, d, out, false);
    return 0;
  }
  int group = static_cast<int>(choice);
  group += group >= std::min(gs, gd) ? 1 : 0;
  group += group >= std::max(gs, gd) ? 1 : 0;
  append_group_valiant(s, d, group, out);
  return 0;
}

std::size_t Dragonfly::append_route_via_router(NodeId src, NodeId dst, RouterId intermediate,
                                               std::vector<LinkId>& out) const {
  const RouterId s = nodes().at(src).router;
  const RouterId d = nodes().at(dst).router;
  if (intermediate >= routers().size() || intermediate == s || intermediate == d) {
    throw InputError(
        fmt::format("path from node {} to node {} through router {}: give a router other than {} "
                    "and {}, below {}",
                    src, dst, intermediate, s, d, routers().size()));
  }
  const std::size_t start = out.size();
  append_router_route(s, intermediate, out);
  const std::size_t turn = out.size() - start;
  append_router_route(intermediate, d, out);
  return turn;
}

std::size_t Dragonfly::minimal_hops_closed_form(NodeId src, NodeId dst) const {
  const int a = options_.routers_per_group;
  const auto local_hops = [&](RouterId x, RouterId y) -> std::size_t {
    if (x == y) {
      return 0;
    }
    if (options_.rows == 0) {
      return 1;
    }
    const int cols = a / options_.rows;
    const int rx = static_cast<int>(x) % a;
    const int ry = static_cast<int>(y) % a;
    return static_cast<std::size_t>(rx / cols != ry / cols) +
           static_cast<std::size_t>(rx % cols != ry % cols);
  };
  const RouterId s = nodes().at(src).router;
  const RouterId d = nodes().at(dst).router;
  if (group_of(s) == group_of(d)) {
    return local_hops(s, d);
  }
  const GlobalPort& port = global_port(s, group_of(d), d);
  const auto gateway = static_cast<RouterId>(group_of(s) * a + port.router_in_group);
  return local_hops(s, gateway) + 1 + local_hops(port.landing, d);
}

std::string Dragonfly::spec() const {
  const auto& o = options_;
  const std::string intra =
      o.rows == 0 ? std::string("all") : fmt::format("2d:{}x{}", o.rows, o.routers_per_group / o.rows);
  return fmt::format("dragonfly:g={},a={},p={},h={},intra={},local={},global={},terminal={}", o.groups,
                     o.routers_per_group, o.nodes_per_router, o.global_links_per_router, intra,
                     o.local_capacity_bytes_per_s, o.global_capacity_bytes_per_s,
                     o.terminal_capacity_bytes_per_s);
}

Parameters Dragonfly::parameters() const {
  const auto& o = options_;
  return {
      {"groups", std::int64_t{o.groups}},
      {"routers_per_group", std::int64_t{o.routers_per_group}},
      {"nodes_per_router", std::int64_t{o.nodes_per_router}},
      {"global_links_per_router", std::int64_t{o.global_links_per_router}},
      {"intra_group",
       o.rows == 0 ? std::string("all") : fmt::format("2d:{}x{}", o.rows, o.routers_per_group / o.rows)},
      {"local_capacity_bytes_per_s", o.local_capacity_bytes_per_s},
      {"global_capacity_bytes_per_s", o.global_capacity_bytes_per_s},
      {"terminal_capacity_bytes_per_s", o.terminal_capacity_bytes_per_s},
  };
}

}  // namespace gridlock::topo
