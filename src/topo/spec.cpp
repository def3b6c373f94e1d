#include "gridlock/topo/spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/topo/dragonfly.hpp"
#include "gridlock/topo/fat_tree.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::topo {
namespace {

constexpr std::string_view kForms =
    "accepted forms: "
    "'torus:XxYxZ[,npr=N][,tie=dest-odd-plus|dest-even-plus|plus|minus][,numbering=snake|linear]"
    "[,cap=RATE|RX:RY:RZ][,terminal=RATE][,coords=FILE]', 'dragonfly:g=G,a=A,p=P,h=H[,intra=all|2d:RxC]"
    "[,local=RATE][,global=RATE][,terminal=RATE]', 'fattree:M1xM2[x...][,taper=T][,up=W2x...][,cap=RATE]'";

int parse_int(std::string_view text, std::string_view spec, std::string_view what) {
  const std::optional<int> value = gridlock::parse_int(text);
  if (!value) {
    throw InputError(fmt::format("invalid {} '{}' in topology spec '{}': expected an integer; {}", what, text,
                                 spec, kForms));
  }
  return *value;
}

double parse_double(std::string_view text, std::string_view spec, std::string_view what) {
  const std::optional<double> value = gridlock::parse_double(text);
  if (!value) {
    throw InputError(
        fmt::format("invalid {} '{}' in topology spec '{}': expected a number", what, text, spec));
  }
  return *value;
}

std::vector<int> parse_shape(std::string_view text, std::string_view spec, std::string_view what) {
  std::vector<int> out;
  for (const auto part : split(text, 'x')) {
    out.push_back(parse_int(part, spec, what));
  }
  return out;
}

struct KeyValue {
  std::string_view key;
  std::string_view value;
};

[[noreturn]] void unknown_key(std::string_view key, std::string_view kind, std::string_view spec) {
  throw InputError(
      fmt::format("unknown key '{}' for a {} in topology spec '{}'; {}", key, kind, spec, kForms));
}

TorusOptions torus_options(std::string_view shape, const std::vector<KeyValue>& keys, std::string_view spec) {
  TorusOptions o;
  const auto dims = parse_shape(shape, spec, "torus shape");
  if (dims.size() != 3) {
    throw InputError(
        fmt::format("torus shape '{}' in '{}' must have three sizes, e.g. 'torus:2x2x8'", shape, spec));
  }
  o.dims = {dims[0], dims[1], dims[2]};
  for (const auto& [key, value] : keys) {
    if (key == "npr") {
      o.nodes_per_router = parse_int(value, spec, "nodes per router (npr)");
    } else if (key == "tie") {
      if (value == "dest-odd-plus") {
        o.tie_break = TieBreak::kPlusIfDestOdd;
      } else if (value == "dest-even-plus") {
        o.tie_break = TieBreak::kPlusIfDestEven;
      } else if (value == "plus") {
        o.tie_break = TieBreak::kPlus;
      } else if (value == "minus") {
        o.tie_break = TieBreak::kMinus;
      } else {
        throw InputError(
            fmt::format("unknown tie-break rule '{}' in '{}': use dest-odd-plus (default, the paper's "
                        "example), dest-even-plus (the paper's text), plus or minus",
                        value, spec));
      }
    } else if (key == "numbering") {
      if (value == "snake") {
        o.numbering = NodeNumbering::kSnake;
      } else if (value == "linear") {
        o.numbering = NodeNumbering::kLinear;
      } else {
        throw InputError(fmt::format("unknown numbering '{}' in '{}': use snake or linear", value, spec));
      }
    } else if (key == "cap") {
      const auto parts = split(value, ':');
      if (parts.size() == 1) {
        const double cap = parse_rate_bytes_per_s(parts[0], "torus link capacity (cap)");
        o.capacity_bytes_per_s = {cap, cap, cap};
      } else if (parts.size() == 3) {
        for (std::size_t d = 0; d < 3; ++d) {
          o.capacity_bytes_per_s[d] = parse_rate_bytes_per_s(parts[d], "torus link capacity (cap)");
        }
      } else {
        throw InputError(
            fmt::format("torus 'cap={}' in '{}': give one rate or three as X:Y:Z, e.g. "
                        "cap=9.375GB/s:4.6875GB/s:9.375GB/s",
                        value, spec));
      }
    } else if (key == "terminal") {
      o.terminal_capacity_bytes_per_s = parse_rate_bytes_per_s(value, "terminal link capacity");
    } else if (key == "coords") {
      o.coords_file = std::string(value);
    } else {
      unknown_key(key, "torus", spec);
    }
  }
  return o;
}

DragonflyOptions dragonfly_options(std::string_view shape, const std::vector<KeyValue>& keys,
                                   std::string_view spec) {
  if (!shape.empty()) {
    throw InputError(
        fmt::format("dragonfly spec '{}' takes keys only, e.g. 'dragonfly:g=9,a=4,p=2,h=2'", spec));
  }
  DragonflyOptions o;
  for (const auto& [key, value] : keys) {
    if (key == "g") {
      o.groups = parse_int(value, spec, "group count (g)");
    } else if (key == "a") {
      o.routers_per_group = parse_int(value, spec, "routers per group (a)");
    } else if (key == "p") {
      o.nodes_per_router = parse_int(value, spec, "nodes per router (p)");
    } else if (key == "h") {
      o.global_links_per_router = parse_int(value, spec, "global links per router (h)");
    } else if (key == "intra") {
      if (value == "all") {
        o.rows = 0;
      } else if (value.substr(0, 3) == "2d:") {
        const auto rc = parse_shape(value.substr(3), spec, "2-D group shape");
        if (rc.size() != 2) {
          throw InputError(fmt::format("dragonfly 'intra={}' in '{}': use 2d:RxC, e.g. 2d:2x2", value, spec));
        }
        o.rows = rc[0];
        if (rc[0] < 1 || static_cast<long long>(rc[0]) * rc[1] != o.routers_per_group) {
          throw InputError(
              fmt::format("dragonfly 'intra={}' in '{}': R*C must equal a = {} (give a before intra)", value,
                          spec, o.routers_per_group));
        }
      } else {
        throw InputError(fmt::format("dragonfly 'intra={}' in '{}': use all or 2d:RxC", value, spec));
      }
    } else if (key == "local") {
      o.local_capacity_bytes_per_s = parse_rate_bytes_per_s(value, "dragonfly local link capacity");
    } else if (key == "global") {
      o.global_capacity_bytes_per_s = parse_rate_bytes_per_s(value, "dragonfly global link capacity");
    } else if (key == "terminal") {
      o.terminal_capacity_bytes_per_s = parse_rate_bytes_per_s(value, "dragonfly terminal link capacity");
    } else {
      unknown_key(key, "dragonfly", spec);
    }
  }
  return o;
}

FatTreeOptions fat_tree_options(std::string_view shape, const std::vector<KeyValue>& keys,
                                std::string_view spec) {
  FatTreeOptions o;
  if (shape.empty()) {
    throw InputError(
        fmt::format("fat tree spec '{}' needs a shape, e.g. 'fattree:16x8' (16 nodes per leaf, 8 "
                    "leaves per top switch)",
                    spec));
  }
  o.down = parse_shape(shape, spec, "fat tree shape");
  std::string_view taper;
  std::string_view up;
  for (const auto& [key, value] : keys) {
    if (key == "taper") {
      taper = value;
    } else if (key == "up") {
      up = value;
    }
  }
  if (!taper.empty() && !up.empty()) {
    throw InputError(
        fmt::format("keys 'taper={}' and 'up={}' conflict in fat tree spec '{}': both set the up-links "
                    "(taper divides them, up "
                    "lists them per level); give one",
                    taper, up, spec));
  }
  for (const auto& [key, value] : keys) {
    if (key == "taper") {
      o.taper = parse_double(value, spec, "taper");
    } else if (key == "up") {
      o.up = parse_shape(value, spec, "up ports (up)");
    } else if (key == "cap") {
      o.capacity_bytes_per_s = parse_rate_bytes_per_s(value, "fat tree link capacity (cap)");
    } else {
      unknown_key(key, "fat tree", spec);
    }
  }
  return o;
}

}  // namespace

double parse_rate_bytes_per_s(std::string_view text, std::string_view what) {
  return ::gridlock::parse_rate_bytes_per_s(text, what);
}

namespace {

struct ParsedSpec {
  std::string_view kind;
  std::string_view shape;
  std::vector<KeyValue> keys;
};

[[noreturn]] void unknown_kind(std::string_view kind, std::string_view spec) {
  throw InputError(fmt::format("unknown topology kind '{}' in '{}': use torus, dragonfly or fattree; {}",
                               kind, spec, kForms));
}

ParsedSpec parse_spec(std::string_view spec) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) {
    throw InputError(fmt::format("topology spec '{}' has no ':' after the kind; {}", spec, kForms));
  }
  ParsedSpec parsed;
  const auto kind = spec.substr(0, colon);
  parsed.kind = kind;
  const auto rest = spec.substr(colon + 1);
  std::string_view& shape = parsed.shape;
  std::vector<KeyValue>& keys = parsed.keys;
  bool first = true;
  for (const auto part : split(rest, ',')) {
    const auto eq = part.find('=');
    if (eq == std::string_view::npos) {
      if (part.empty() && first) {
        first = false;
        continue;
      }
      if (!first) {
        throw InputError(fmt::format("'{}' in topology spec '{}' is not key=value; {}", part, spec, kForms));
      }
      shape = part;
    } else {
      const auto key = part.substr(0, eq);
      // A repeated key would silently take its last value; say which one instead.
      for (const auto& earlier : keys) {
        if (earlier.key == key) {
          throw InputError(
              fmt::format("key '{}' is given twice in topology spec '{}' ('{}={}' and '{}'); give it once",
                          key, spec, key, earlier.value, part));
        }
      }
      keys.push_back({key, part.substr(eq + 1)});
    }
    first = false;
  }
  return parsed;
}

}  // namespace

std::unique_ptr<Topology> make_topology(std::string_view spec) {
  const ParsedSpec p = parse_spec(spec);
  if (p.kind == "torus") {
    return std::make_unique<Torus3D>(torus_options(p.shape, p.keys, spec));
  }
  if (p.kind == "dragonfly") {
    return std::make_unique<Dragonfly>(dragonfly_options(p.shape, p.keys, spec));
  }
  if (p.kind == "fattree") {
    return std::make_unique<FatTree>(fat_tree_options(p.shape, p.keys, spec));
  }
  unknown_kind(p.kind, spec);
}

namespace {

// What a built model holds per element, from the sizes of its records (names and port names fit
// std::string's inline buffer): a node with its index entry, injection and ejection ids and its two
// terminal links; a router with its index entry, its out- and in-link lists and two heap blocks (its
// coordinates, the lists' growth); a network link with its entries in the lists, room for their
// growth included. The models reserve their tables from the same counts, so the built size is also
// the peak: checked against malloc's count on tori, dragonflies and fat trees (within 5%, above).
constexpr std::uint64_t kHeapBlock = 32;  // malloc's smallest block
constexpr std::uint64_t kBytesPerNode =
    sizeof(Node) + sizeof(std::pair<std::string, NodeId>) + 2 * sizeof(LinkId) + 2 * sizeof(Link);
constexpr std::uint64_t kBytesPerRouter = sizeof(Router) + sizeof(std::pair<std::string, RouterId>) +
                                          2 * sizeof(std::vector<LinkId>) + 2 * kHeapBlock;
constexpr std::uint64_t kBytesPerNetworkLink = sizeof(Link) + 4 * sizeof(LinkId);

// Element counts of a model, as its constructor would build it (upper bounds where the model
// leaves some ports unused), and its own tables; zeros when a parameter is out of range, so that
// the model's constructor names the problem.
struct Counts {
  std::uint64_t nodes = 0;
  std::uint64_t routers = 0;
  std::uint64_t network_links = 0;
  std::uint64_t table_bytes = 0;
};

std::uint64_t positive(int v) { return v > 0 ? static_cast<std::uint64_t>(v) : 0; }

Counts dragonfly_counts(const DragonflyOptions& o) {
  const std::uint64_t g = positive(o.groups);
  const std::uint64_t a = positive(o.routers_per_group);
  const std::uint64_t p = positive(o.nodes_per_router);
  const std::uint64_t h = positive(o.global_links_per_router);
  const auto radix = static_cast<std::uint64_t>(kMaxRadix);
  if (a > radix || p > radix || h > radix || o.rows < 0 || (o.rows > 0 && a % positive(o.rows) != 0)) {
    return {};
  }
  // Local links to every other router of the group, or (intra=2d:RxC) along its row and column;
  // at most h global links per router.
  const std::uint64_t rows = positive(o.rows);
  const std::uint64_t local = rows > 0 ? (a / rows - 1) + (rows - 1) : a - 1;
  Counts c;
  c.routers = saturating_mul(g, a);
  c.nodes = saturating_mul(c.routers, p);
  c.network_links = saturating_mul(c.routers, saturating_add(local, h));
  // The local link table (one id per ordered router pair of a group) and the global ports of every
  // ordered group pair (a list each; per port three 32-bit ids, twice for the lists' growth).
  constexpr std::uint64_t kGlobalPortBytes = 3 * sizeof(std::uint32_t);
  c.table_bytes =
      saturating_add(saturating_add(saturating_mul(saturating_mul(c.routers, a), sizeof(LinkId)),
                                    saturating_mul(saturating_mul(g, g), sizeof(std::vector<LinkId>))),
                     saturating_mul(saturating_mul(c.routers, h), 2 * kGlobalPortBytes));
  return c;
}

Counts fat_tree_counts(const FatTreeOptions& o) {
  const std::size_t h = o.down.size();
  if (h < 1 || h > 6 || !(o.taper >= 1) || !std::isfinite(o.taper) ||
      (!o.up.empty() && o.up.size() != h - 1)) {
    return {};
  }
  std::vector<std::uint64_t> m;
  for (const int v : o.down) {
    if (v < 1 || v > kMaxRadix) {
      return {};
    }
    m.push_back(positive(v));
  }
  std::vector<std::uint64_t> w;  // w2..wh
  for (std::size_t l = 2; l <= h; ++l) {
    const int v =
        o.up.empty() ? std::max(1, static_cast<int>(std::floor(o.down[l - 2] / o.taper))) : o.up[l - 2];
    if (v < 1 || v > kMaxRadix) {
      return {};
    }
    w.push_back(positive(v));
  }
  // As the constructor: W(l) = w2 * ... * wl, A(l) = m(l+1) * ... * mh, A(l) * W(l) switches at level l.
  const auto switches = [&](std::size_t l) {
    std::uint64_t out = 1;
    for (std::size_t j = 2; j <= l; ++j) {
      out = saturating_mul(out, w[j - 2]);
    }
    for (std::size_t j = l + 1; j <= h; ++j) {
      out = saturating_mul(out, m[j - 1]);
    }
    return out;
  };
  Counts c;
  c.nodes = 1;
  for (const std::uint64_t v : m) {
    c.nodes = saturating_mul(c.nodes, v);
  }
  for (std::size_t l = 1; l <= h; ++l) {
    c.routers = saturating_add(c.routers, switches(l));
  }
  for (std::size_t l = 2; l <= h; ++l) {
    c.network_links =
        saturating_add(c.network_links, saturating_mul(2, saturating_mul(switches(l - 1), w[l - 2])));
  }
  // Up- and down-link tables of every switch: a list each, one id per network link.
  c.table_bytes = saturating_add(saturating_mul(c.routers, 2 * sizeof(std::vector<LinkId>)),
                                 saturating_mul(c.network_links, sizeof(LinkId)));
  return c;
}

TopologySize size_of(const Counts& c) {
  TopologySize out;
  out.nodes = c.nodes;
  out.routers = c.routers;
  out.links = saturating_add(c.network_links, saturating_mul(2, c.nodes));
  out.bytes = saturating_add(
      saturating_add(saturating_mul(c.nodes, kBytesPerNode), saturating_mul(c.routers, kBytesPerRouter)),
      saturating_add(saturating_mul(c.network_links, kBytesPerNetworkLink), c.table_bytes));
  return out;
}

// A torus whose part can be built from formulas (no coordinates file), or nothing.
std::optional<TorusOptions> part_options(const ParsedSpec& p, std::string_view spec) {
  if (p.kind != "torus") {
    return std::nullopt;
  }
  TorusOptions options = torus_options(p.shape, p.keys, spec);
  if (!options.coords_file.empty()) {
    return std::nullopt;
  }
  return options;
}

}  // namespace

TopologySize estimate_topology_size(std::string_view spec) {
  const ParsedSpec p = parse_spec(spec);
  Counts c;
  if (p.kind == "torus") {
    TorusOptions options = torus_options(p.shape, p.keys, spec);
    // A coordinates file places the nodes; the routers and their links are the same.
    options.coords_file.clear();
    const TopologySummary summary = Torus3D::summary_of(options);
    c.nodes = summary.nodes;
    c.routers = summary.routers;
    c.network_links = summary.network_links;
    // The port table: six ids per router.
    c.table_bytes = saturating_mul(c.routers, 6 * sizeof(LinkId));
  } else if (p.kind == "dragonfly") {
    c = dragonfly_counts(dragonfly_options(p.shape, p.keys, spec));
  } else if (p.kind == "fattree") {
    c = fat_tree_counts(fat_tree_options(p.shape, p.keys, spec));
  } else {
    unknown_kind(p.kind, spec);
  }
  return size_of(c);
}

std::unique_ptr<Topology> make_topology_part(std::string_view spec, std::span<const std::string> nodes) {
  const ParsedSpec p = parse_spec(spec);
  if (auto options = part_options(p, spec)) {
    return std::make_unique<Torus3D>(std::move(*options), nodes);
  }
  return make_topology(spec);
}

bool has_topology_parts(std::string_view spec) {
  const ParsedSpec p = parse_spec(spec);
  return part_options(p, spec).has_value();
}

std::vector<std::string> known_nodes(std::string_view spec, std::span<const std::string> names) {
  const ParsedSpec p = parse_spec(spec);
  std::vector<std::string> out;
  if (const auto options = part_options(p, spec)) {
    for (const std::string& name : names) {
      if (Torus3D::node_index_of(*options, name)) {
        out.push_back(name);
      }
    }
    return out;
  }
  const auto topology = make_topology(spec);
  for (const std::string& name : names) {
    if (topology->find_node(name)) {
      out.push_back(name);
    }
  }
  return out;
}

TopologySize estimate_topology_part_size(std::string_view spec, std::span<const std::string> nodes) {
  const ParsedSpec p = parse_spec(spec);
  const auto options = part_options(p, spec);
  if (!options) {
    return estimate_topology_size(spec);
  }
  const auto [part_nodes, routers, network_links] = Torus3D::part_counts(*options, nodes);
  Counts c;
  c.nodes = part_nodes;
  c.routers = routers;
  c.network_links = network_links;
  // The port table, and the sorted indices of the part's routers and nodes.
  c.table_bytes = saturating_add(saturating_mul(c.routers, 6 * sizeof(LinkId) + sizeof(std::uint64_t)),
                                 saturating_mul(c.nodes, sizeof(std::uint64_t)));
  return size_of(c);
}

TopologySummary topology_info(std::string_view spec) {
  const ParsedSpec p = parse_spec(spec);
  if (p.kind == "torus") {
    TorusOptions options = torus_options(p.shape, p.keys, spec);
    if (options.coords_file.empty()) {
      return Torus3D::summary_of(options);
    }
  }
  const auto topology = make_topology(spec);
  TopologySummary out = topology->summary();
  out.first_node = topology->nodes().front().name;
  out.last_node = topology->nodes().back().name;
  return out;
}

}  // namespace gridlock::topo
