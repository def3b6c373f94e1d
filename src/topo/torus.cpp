#include "gridlock/topo/torus.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::topo {
namespace {

constexpr std::array<char, 3> kDimName{'X', 'Y', 'Z'};

void validate(const TorusOptions& options) {
  const auto& dims = options.dims;
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 1 || dims[d] > 4096) {
      throw InputError(
          fmt::format("torus dimension {} has size {}: each size must be 1..4096, e.g. 'torus:2x2x8'",
                      kDimName[d], dims[d]));
    }
    if (!(options.capacity_bytes_per_s[d] > 0)) {
      throw InputError(fmt::format("torus capacity of dimension {} must be positive", kDimName[d]));
    }
  }
  if (options.nodes_per_router < 1) {
    throw InputError("torus nodes per router (npr) must be at least 1");
  }
  // The sizes alone allow 4096^3 routers: bound the whole, as the other models do, before building.
  const long long router_count = static_cast<long long>(dims[0]) * dims[1] * dims[2];
  if (router_count * options.nodes_per_router > kMaxTopologyNodes) {
    throw InputError(fmt::format(
        "torus too large: {}x{}x{} routers with {} nodes each is {} nodes, at most {}", dims[0], dims[1],
        dims[2], options.nodes_per_router, router_count * options.nodes_per_router, kMaxTopologyNodes));
  }
}

std::string spec_of(const TorusOptions& o);

// Name of node `index` in the regular numbering.
std::string node_name(std::uint64_t index) { return fmt::format("nid{:05d}", index); }

// Coordinates of the whole torus's router `index` (x-major, then y, then z).
std::array<int, 3> whole_coords(const std::array<int, 3>& dims, std::uint64_t index) {
  const auto yz = static_cast<std::uint64_t>(dims[1]) * static_cast<std::uint64_t>(dims[2]);
  const auto z_size = static_cast<std::uint64_t>(dims[2]);
  return {static_cast<int>(index / yz),
          static_cast<int>((index / z_size) % static_cast<std::uint64_t>(dims[1])),
          static_cast<int>(index % z_size)};
}

std::uint64_t whole_index(const std::array<int, 3>& dims, const std::array<int, 3>& c) {
  return (static_cast<std::uint64_t>(c[0]) * static_cast<std::uint64_t>(dims[1]) +
          static_cast<std::uint64_t>(c[1])) *
             static_cast<std::uint64_t>(dims[2]) +
         static_cast<std::uint64_t>(c[2]);
}

// The whole torus's router of node `index` in the regular numbering: the inverse of the
// constructor's snake or linear walk.
std::uint64_t router_of_node(const TorusOptions& o, std::uint64_t index) {
  const std::uint64_t position = index / static_cast<std::uint64_t>(o.nodes_per_router);
  if (o.numbering == NodeNumbering::kLinear) {
    return position;
  }
  const auto y_size = static_cast<std::uint64_t>(o.dims[1]);
  const auto z_size = static_cast<std::uint64_t>(o.dims[2]);
  const std::uint64_t x = position / (y_size * z_size);
  const std::uint64_t yi = (position / z_size) % y_size;
  const std::uint64_t y = x % 2 == 1 ? y_size - 1 - yi : yi;
  const std::uint64_t zi = position % z_size;
  const std::uint64_t z = (x * y_size + yi) % 2 == 1 ? z_size - 1 - zi : zi;
  return (x * y_size + y) * z_size + z;
}

// The whole torus's index of the node `name` names, as find_node() resolves it: the name of a
// regular node, else a decimal index.
std::optional<std::uint64_t> whole_node_index(std::string_view name, std::uint64_t nodes) {
  const auto parse = [](std::string_view digits) { return parse_u64(digits); };
  if (name.starts_with("nid")) {
    if (const auto index = parse(name.substr(3)); index && *index < nodes && node_name(*index) == name) {
      return index;
    }
  }
  if (const auto index = parse(name); index && *index < nodes) {
    return index;
  }
  return std::nullopt;
}

// What a part of the torus holds (Torus3D(options, nodes)).
struct PartPlan {
  std::vector<std::uint64_t> nodes;     // whole-torus node indices, sorted, distinct
  std::array<std::vector<bool>, 3> on;  // per dimension: coordinates of the nodes' routers
  std::vector<std::uint64_t> routers;   // whole-torus router indices on the part's rings, sorted
  std::uint64_t network_links = 0;
};

// True when the ring along dimension `d` through `c` is one of the part's: its other two
// coordinates are those of the part's nodes.
bool on_part_ring(const PartPlan& plan, const std::array<int, 3>& c, int d) {
  const int a = (d + 1) % 3;
  const int b = (d + 2) % 3;
  return plan.on[a][static_cast<std::size_t>(c[a])] && plan.on[b][static_cast<std::size_t>(c[b])];
}

PartPlan plan_part(const TorusOptions& o, std::span<const std::string> names) {
  validate(o);
  if (!o.coords_file.empty()) {
    throw InputError(fmt::format(
        "a part of torus '{}' needs the regular node numbering: its coordinates file places the nodes "
        "(build the whole torus)",
        spec_of(o)));
  }
  const auto& dims = o.dims;
  const std::uint64_t routers = static_cast<std::uint64_t>(dims[0]) * static_cast<std::uint64_t>(dims[1]) *
                                static_cast<std::uint64_t>(dims[2]);
  const std::uint64_t nodes = routers * static_cast<std::uint64_t>(o.nodes_per_router);
  PartPlan plan;
  std::vector<std::string> unknown;
  for (const std::string& name : names) {
    if (const auto index = whole_node_index(name, nodes)) {
      plan.nodes.push_back(*index);
    } else {
      unknown.push_back(printable_excerpt(name));
    }
  }
  if (!unknown.empty()) {
    // As a whole torus's find_node() would answer (mapping::make_allocation()).
    constexpr std::size_t kMaxListed = 10;
    std::string listed;
    for (std::size_t i = 0; i < unknown.size() && i < kMaxListed; ++i) {
      listed += (i == 0 ? "" : ", ") + unknown[i];
    }
    if (unknown.size() > kMaxListed) {
      listed += fmt::format(" and {} more", unknown.size() - kMaxListed);
    }
    throw InputError(fmt::format("{} {} not in topology '{}': {} (its nodes are {}..{}, or indices 0..{})",
                                 unknown.size(), unknown.size() == 1 ? "node is" : "nodes are", spec_of(o),
                                 listed, node_name(0), node_name(nodes - 1), nodes - 1));
  }
  std::sort(plan.nodes.begin(), plan.nodes.end());
  plan.nodes.erase(std::unique(plan.nodes.begin(), plan.nodes.end()), plan.nodes.end());
  for (std::size_t d = 0; d < 3; ++d) {
    plan.on[d].assign(static_cast<std::size_t>(dims[d]), false);
  }
  for (const std::uint64_t node : plan.nodes) {
    const auto c = whole_coords(dims, router_of_node(o, node));
    for (std::size_t d = 0; d < 3; ++d) {
      plan.on[d][static_cast<std::size_t>(c[d])] = true;
    }
  }
  // One pass over the routers' coordinates (2^22 at most: milliseconds, no allocation per router).
  std::array<int, 3> c{};
  for (c[0] = 0; c[0] < dims[0]; ++c[0]) {
    for (c[1] = 0; c[1] < dims[1]; ++c[1]) {
      for (c[2] = 0; c[2] < dims[2]; ++c[2]) {
        if (on_part_ring(plan, c, 0) || on_part_ring(plan, c, 1) || on_part_ring(plan, c, 2)) {
          plan.routers.push_back(whole_index(dims, c));
        }
      }
    }
  }
  // A + and a - link per router of each ring (dimensions of size 1 have none).
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 2) {
      continue;
    }
    const auto count = [&](int k) {
      const auto& on = plan.on[static_cast<std::size_t>(k)];
      return static_cast<std::uint64_t>(std::count(on.begin(), on.end(), true));
    };
    plan.network_links += 2 * static_cast<std::uint64_t>(dims[d]) * count((d + 1) % 3) * count((d + 2) % 3);
  }
  return plan;
}

}  // namespace

std::string_view to_string(TieBreak rule) noexcept {
  switch (rule) {
    case TieBreak::kPlusIfDestOdd:
      return "dest-odd-plus";
    case TieBreak::kPlusIfDestEven:
      return "dest-even-plus";
    case TieBreak::kPlus:
      return "plus";
    case TieBreak::kMinus:
      return "minus";
  }
  return "?";
}

Torus3D::Torus3D(TorusOptions options) : options_(std::move(options)) {
  validate(options_);
  const auto& dims = options_.dims;
  {
    // A + and a - link per router in every dimension of size >= 2; a coordinates file lists its
    // own nodes, so only the regular numbering's are known here.
    const auto routers = static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]) *
                         static_cast<std::size_t>(dims[2]);
    const auto ring_dims =
        static_cast<std::size_t>(std::count_if(dims.begin(), dims.end(), [](int n) { return n >= 2; }));
    const std::size_t nodes =
        options_.coords_file.empty() ? routers * static_cast<std::size_t>(options_.nodes_per_router) : 0;
    reserve(nodes, routers, 2 * ring_dims * routers);
  }
  for (int x = 0; x < dims[0]; ++x) {
    for (int y = 0; y < dims[1]; ++y) {
      for (int z = 0; z < dims[2]; ++z) {
        add_router(fmt::format("({},{},{})", x, y, z), {x, y, z});
      }
    }
  }
  // Links: + and - in each dimension of size >= 2.
  add_dimension_links(dims, [](const std::array<int, 3>&, int) { return true; });
  if (!options_.coords_file.empty()) {
    std::istringstream in(read_input_file(options_.coords_file, "torus coordinates file",
                                          "check the path (format: one 'name x y z' line per node)"));
    std::string line;
    int line_no = 0;
    // Where each name was first listed: finish() would find a duplicate too, but without file:line.
    std::unordered_map<std::string, int> first_line;
    while (std::getline(in, line)) {
      ++line_no;
      std::string_view view(line);
      if (const auto hash = view.find('#'); hash != std::string_view::npos) {
        view = view.substr(0, hash);
      }
      const auto fields = split_fields(view);
      if (fields.empty()) {
        continue;
      }
      const auto where = fmt::format("{}:{}", options_.coords_file.string(), line_no);
      if (fields.size() != 4) {
        throw InputError(fmt::format("{}: expected 'name x y z', got {} fields", where, fields.size()));
      }
      std::array<int, 3> c{};
      for (int d = 0; d < 3; ++d) {
        const auto f = fields[static_cast<std::size_t>(d) + 1];
        const std::optional<int> coordinate = parse_int(f);
        c[d] = coordinate.value_or(-1);
        if (c[d] < 0 || c[d] >= dims[d]) {
          throw InputError(fmt::format("{}: {} coordinate '{}' must be an integer from 0 to {}", where,
                                       kDimName[d], printable_excerpt(f), dims[d] - 1));
        }
      }
      const auto [earlier, added] = first_line.try_emplace(std::string(fields[0]), line_no);
      if (!added) {
        throw InputError(
            fmt::format("{}: node '{}' is already listed on line {}; every node needs a unique name", where,
                        printable_excerpt(fields[0]), earlier->second));
      }
      add_node(std::string(fields[0]), router_at(c[0], c[1], c[2]));
    }
    if (nodes().empty()) {
      throw InputError(
          fmt::format("torus coordinates file '{}' lists no nodes", options_.coords_file.string()));
    }
  } else {
    int nid = 0;
    const auto add_router_nodes = [&](int x, int y, int z) {
      for (int k = 0; k < options_.nodes_per_router; ++k) {
        add_node(fmt::format("nid{:05d}", nid++), router_at(x, y, z));
      }
    };
    if (options_.numbering == NodeNumbering::kLinear) {
      for (RouterId r = 0; r < routers().size(); ++r) {
        const auto c = coords_of(r);
        add_router_nodes(c[0], c[1], c[2]);
      }
    } else {
      for (int x = 0; x < dims[0]; ++x) {
        for (int yi = 0; yi < dims[1]; ++yi) {
          const int y = x % 2 == 1 ? dims[1] - 1 - yi : yi;
          const int line_index = x * dims[1] + yi;
          for (int zi = 0; zi < dims[2]; ++zi) {
            const int z = line_index % 2 == 1 ? dims[2] - 1 - zi : zi;
            add_router_nodes(x, y, z);
          }
        }
      }
    }
  }
  finish(options_.terminal_capacity_bytes_per_s);
}

Torus3D::Torus3D(TorusOptions options, std::span<const std::string> nodes) : options_(std::move(options)) {
  PartPlan plan = plan_part(options_, nodes);
  const auto& dims = options_.dims;
  reserve(plan.nodes.size(), plan.routers.size(), plan.network_links);
  part_routers_ = std::move(plan.routers);
  part_nodes_ = std::move(plan.nodes);
  for (const std::uint64_t index : part_routers_) {
    const auto c = whole_coords(dims, index);
    add_router(fmt::format("({},{},{})", c[0], c[1], c[2]), {c[0], c[1], c[2]});
  }
  // As the whole torus's constructor, for the links along the part's rings.
  add_dimension_links(dims, [&plan](const std::array<int, 3>& c, int d) { return on_part_ring(plan, c, d); });
  for (const std::uint64_t index : part_nodes_) {
    const auto c = whole_coords(dims, router_of_node(options_, index));
    add_node(node_name(index), router_at(c[0], c[1], c[2]));
  }
  finish(options_.terminal_capacity_bytes_per_s);
}

std::array<std::uint64_t, 3> Torus3D::part_counts(const TorusOptions& options,
                                                  std::span<const std::string> nodes) {
  const PartPlan plan = plan_part(options, nodes);
  return {plan.nodes.size(), plan.routers.size(), plan.network_links};
}

std::optional<std::uint64_t> Torus3D::node_index_of(const TorusOptions& options, std::string_view name) {
  const std::uint64_t nodes =
      static_cast<std::uint64_t>(options.dims[0]) * static_cast<std::uint64_t>(options.dims[1]) *
      static_cast<std::uint64_t>(options.dims[2]) * static_cast<std::uint64_t>(options.nodes_per_router);
  return whole_node_index(name, nodes);
}

std::optional<NodeId> Torus3D::node_of_index(std::uint64_t index) const {
  if (part_nodes_.empty()) {
    return Topology::node_of_index(index);
  }
  const auto it = std::lower_bound(part_nodes_.begin(), part_nodes_.end(), index);
  if (it == part_nodes_.end() || *it != index) {
    return std::nullopt;
  }
  return static_cast<NodeId>(it - part_nodes_.begin());
}

std::uint64_t Torus3D::whole_link_count() const {
  if (part_routers_.empty()) {
    return Topology::whole_link_count();
  }
  const TopologySummary whole = summary_of(options_);
  return whole.network_links + whole.terminal_links;
}

std::uint64_t Torus3D::whole_link_id(LinkId link) const {
  if (part_routers_.empty()) {
    return Topology::whole_link_id(link);
  }
  // The whole torus's order: per router its + and - link in each dimension of size >= 2 (as
  // add_dimension_links() adds them), then per node its injection and ejection link (finish()).
  const Link& l = links().at(link);
  const auto& dims = options_.dims;
  const auto ring_dims =
      static_cast<std::uint64_t>(std::count_if(dims.begin(), dims.end(), [](int n) { return n >= 2; }));
  if (l.kind != LinkKind::kNetwork) {
    const std::uint64_t routers = static_cast<std::uint64_t>(dims[0]) * static_cast<std::uint64_t>(dims[1]) *
                                  static_cast<std::uint64_t>(dims[2]);
    return 2 * ring_dims * routers + 2 * part_nodes_.at(l.node) + (l.kind == LinkKind::kEjection ? 1 : 0);
  }
  const auto d = static_cast<std::size_t>(l.direction.at(0) - 'X');
  std::uint64_t port = l.direction.at(1) == '+' ? 0 : 1;
  for (std::size_t e = 0; e < d; ++e) {
    port += dims.at(e) >= 2 ? 2 : 0;
  }
  return 2 * ring_dims * part_routers_.at(l.src_router) + port;
}

void Torus3D::add_dimension_links(const std::array<int, 3>& dims,
                                  const std::function<bool(const std::array<int, 3>&, int)>& keep) {
  port_link_.assign(routers().size() * 6, kNoLink);
  for (RouterId r = 0; r < routers().size(); ++r) {
    const auto c = coords_of(r);
    for (int d = 0; d < 3; ++d) {
      if (dims[d] < 2 || !keep(c, d)) {
        continue;
      }
      for (int sign = 0; sign < 2; ++sign) {
        auto n = c;
        n[d] = sign == 0 ? (c[d] + 1) % dims[d] : (c[d] - 1 + dims[d]) % dims[d];
        const std::string out = fmt::format("{}{}", kDimName[d], sign == 0 ? '+' : '-');
        const std::string in = fmt::format("{}{}", kDimName[d], sign == 0 ? '-' : '+');
        port_link_[r * 6 + d * 2 + sign] =
            add_link(r, router_at(n[0], n[1], n[2]), out, in, options_.capacity_bytes_per_s[d]);
      }
    }
  }
}

RouterId Torus3D::router_at(int x, int y, int z) const {
  const auto& d = options_.dims;
  if (x < 0 || y < 0 || z < 0 || x >= d[0] || y >= d[1] || z >= d[2]) {
    throw std::out_of_range("torus coordinates out of range");
  }
  if (part_routers_.empty()) {
    return static_cast<RouterId>((x * d[1] + y) * d[2] + z);
  }
  const std::uint64_t index = whole_index(d, {x, y, z});
  const auto it = std::lower_bound(part_routers_.begin(), part_routers_.end(), index);
  if (it == part_routers_.end() || *it != index) {
    throw std::out_of_range("torus router outside the part");
  }
  return static_cast<RouterId>(it - part_routers_.begin());
}

std::array<int, 3> Torus3D::coords_of(RouterId router) const {
  if (!part_routers_.empty()) {
    return whole_coords(options_.dims, part_routers_.at(router));
  }
  const auto& d = options_.dims;
  const int r = static_cast<int>(router);
  return {r / (d[1] * d[2]), (r / d[2]) % d[1], r % d[2]};
}

int Torus3D::closed_form_hops(const std::array<int, 3>& dims, const std::array<int, 3>& a,
                              const std::array<int, 3>& b) noexcept {
  int hops = 0;
  for (int d = 0; d < 3; ++d) {
    const int delta = ((b[d] - a[d]) % dims[d] + dims[d]) % dims[d];
    hops += std::min(delta, dims[d] - delta);
  }
  return hops;
}

void Torus3D::append_router_route(RouterId src, RouterId dst, std::vector<LinkId>& out) const {
  append_dimension_route(src, dst, {0, 1, 2}, nullptr, out);
}

namespace {

// The orders of the three dimensions, indexed by a route choice modulo 6.
constexpr std::array<std::array<int, 3>, 6> kDimensionOrders{{
    {0, 1, 2},
    {0, 2, 1},
    {1, 0, 2},
    {1, 2, 0},
    {2, 0, 1},
    {2, 1, 0},
}};

}  // namespace

std::uint64_t Torus3D::router_route_choices(RouterId /*src*/, RouterId /*dst*/) const {
  // The order of the dimensions times one bit per dimension for a half-way ring: orders or bits
  // that make no difference (a dimension without a move, a distance short of half) give the same
  // route, so every distinct route keeps equally many indices (a uniform index, a uniform route).
  return kDimensionOrders.size() * 8;
}

void Torus3D::append_router_route_choice(RouterId src, RouterId dst, std::uint64_t choice,
                                         std::vector<LinkId>& out) const {
  const std::uint64_t tie_bits = choice / kDimensionOrders.size();
  append_dimension_route(src, dst, kDimensionOrders[choice % kDimensionOrders.size()], &tie_bits, out);
}

void Torus3D::append_dimension_route(RouterId src, RouterId dst, const std::array<int, 3>& order,
                                     const std::uint64_t* tie_bits, std::vector<LinkId>& out) const {
  const auto& dims = options_.dims;
  auto cur = coords_of(src);
  const auto target = coords_of(dst);
  for (const int d : order) {
    const int n = dims[d];
    const int delta = ((target[d] - cur[d]) % n + n) % n;
    if (delta == 0) {
      continue;
    }
    bool plus = delta < n - delta;
    if (delta == n - delta) {
      if (tie_bits != nullptr) {
        plus = ((*tie_bits >> static_cast<unsigned>(d)) & 1U) != 0;
      } else {
        switch (options_.tie_break) {
          case TieBreak::kPlusIfDestOdd:
            plus = target[d] % 2 == 1;
            break;
          case TieBreak::kPlusIfDestEven:
            plus = target[d] % 2 == 0;
            break;
          case TieBreak::kPlus:
            plus = true;
            break;
          case TieBreak::kMinus:
            plus = false;
            break;
        }
      }
    }
    const int steps = plus ? delta : n - delta;
    for (int s = 0; s < steps; ++s) {
      const RouterId here = router_at(cur[0], cur[1], cur[2]);
      out.push_back(port_link_[here * 6 + static_cast<RouterId>(d * 2 + (plus ? 0 : 1))]);
      cur[d] = plus ? (cur[d] + 1) % n : (cur[d] - 1 + n) % n;
    }
  }
}

namespace {

std::string spec_of(const TorusOptions& o) {
  std::string out =
      fmt::format("torus:{}x{}x{},npr={},tie={},numbering={},cap={}:{}:{},terminal={}", o.dims[0], o.dims[1],
                  o.dims[2], o.nodes_per_router, to_string(o.tie_break),
                  o.numbering == NodeNumbering::kSnake ? "snake" : "linear", o.capacity_bytes_per_s[0],
                  o.capacity_bytes_per_s[1], o.capacity_bytes_per_s[2], o.terminal_capacity_bytes_per_s);
  if (!o.coords_file.empty()) {
    out += ",coords=" + o.coords_file.string();
  }
  return out;
}

Parameters parameters_of(const TorusOptions& o) {
  Parameters p{
      {"dims", std::vector<std::int64_t>(o.dims.begin(), o.dims.end())},
      {"nodes_per_router", std::int64_t{o.nodes_per_router}},
      {"tie_break", std::string(to_string(o.tie_break))},
      {"numbering",
       std::string(o.coords_file.empty() ? (o.numbering == NodeNumbering::kSnake ? "snake" : "linear")
                                         : "file")},
      {"capacity_bytes_per_s", std::vector<std::pair<std::string, double>>{{"X", o.capacity_bytes_per_s[0]},
                                                                           {"Y", o.capacity_bytes_per_s[1]},
                                                                           {"Z", o.capacity_bytes_per_s[2]}}},
      {"terminal_capacity_bytes_per_s", o.terminal_capacity_bytes_per_s},
  };
  if (!o.coords_file.empty()) {
    p.push_back({"coords_file", o.coords_file.string()});
  }
  return p;
}

}  // namespace

std::string Torus3D::spec() const { return spec_of(options_); }

Parameters Torus3D::parameters() const { return parameters_of(options_); }

TopologySummary Torus3D::summary_of(const TorusOptions& options) {
  if (!options.coords_file.empty()) {
    throw InputError("a torus with a coordinates file has no summary formula: build it (make_topology)");
  }
  validate(options);
  const auto& dims = options.dims;
  const auto routers = static_cast<std::uint64_t>(dims[0]) * static_cast<std::uint64_t>(dims[1]) *
                       static_cast<std::uint64_t>(dims[2]);
  const std::uint64_t nodes = routers * static_cast<std::uint64_t>(options.nodes_per_router);
  // As the constructor builds it: a + and a - link per router in every dimension of size >= 2
  // (two parallel links when the size is 2), and an injection and an ejection link per node.
  std::uint64_t network_links = 0;
  double min_cap = 0;
  double max_cap = 0;
  bool any = false;
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 2) {
      continue;
    }
    network_links += 2 * routers;
    const double cap = options.capacity_bytes_per_s[d];
    min_cap = any ? std::min(min_cap, cap) : cap;
    max_cap = any ? std::max(max_cap, cap) : cap;
    any = true;
  }
  TopologySummary out;
  out.kind = "torus";
  out.spec = spec_of(options);
  out.parameters = parameters_of(options);
  out.nodes = nodes;
  out.routers = routers;
  out.network_links = network_links;
  out.terminal_links = 2 * nodes;
  out.min_network_capacity_bytes_per_s = min_cap;
  out.max_network_capacity_bytes_per_s = max_cap;
  out.first_node = fmt::format("nid{:05d}", 0);
  out.last_node = fmt::format("nid{:05d}", nodes - 1);
  return out;
}

}  // namespace gridlock::topo
