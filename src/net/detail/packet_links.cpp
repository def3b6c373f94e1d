#include "packet_links.hpp"

#include <algorithm>

#include "gridlock/topo/dragonfly.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::net::detail {

VcRule vc_rule(const Network& network) {
  const topo::Topology& t = network.topology();
  if (dynamic_cast<const topo::Dragonfly*>(&t) != nullptr) {
    return VcRule::kDragonfly;
  }
  if (const auto* torus = dynamic_cast<const topo::Torus3D*>(&t); torus != nullptr) {
    const auto& dims = torus->options().dims;
    // A ring of 3 or fewer routers takes one hop at most: dimension order alone is acyclic.
    if (std::any_of(dims.begin(), dims.end(), [](int d) { return d >= 4; })) {
      return VcRule::kTorus;
    }
  }
  return VcRule::kSingle;
}

std::vector<LinkClass> link_classes(const Network& network) {
  const topo::Topology& t = network.topology();
  std::vector<LinkClass> out(t.links().size());
  const auto* dragonfly = dynamic_cast<const topo::Dragonfly*>(&t);
  const auto* torus = dynamic_cast<const topo::Torus3D*>(&t);
  for (const topo::Link& link : t.links()) {
    if (link.kind != topo::LinkKind::kNetwork) {
      continue;
    }
    LinkClass& c = out[link.id];
    if (dragonfly != nullptr) {
      c.global = dragonfly->is_global(link);
    } else if (torus != nullptr && link.direction.size() == 2) {
      const auto dim = static_cast<std::size_t>(link.direction[0] - 'X');
      if (dim < 3) {
        const int from = torus->coords_of(link.src_router)[dim];
        const int to = torus->coords_of(link.dst_router)[dim];
        c.dim = static_cast<std::uint8_t>(dim);
        c.wrap = link.direction[1] == '+' ? to < from : to > from;
      }
    }
  }
  return out;
}

}  // namespace gridlock::net::detail
