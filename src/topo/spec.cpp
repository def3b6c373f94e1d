#include "gridlock/topo/spec.hpp"

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
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
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    throw InputError(fmt::format("invalid {} '{}' in topology spec '{}': expected an integer; {}", what, text,
                                 spec, kForms));
  }
  return value;
}

double parse_double(std::string_view text, std::string_view spec, std::string_view what) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    throw InputError(
        fmt::format("invalid {} '{}' in topology spec '{}': expected a number", what, text, spec));
  }
  return value;
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

std::unique_ptr<Topology> make_dragonfly(std::string_view shape, const std::vector<KeyValue>& keys,
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
  return std::make_unique<Dragonfly>(o);
}

std::unique_ptr<Topology> make_fat_tree(std::string_view shape, const std::vector<KeyValue>& keys,
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
  return std::make_unique<FatTree>(o);
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
    return make_dragonfly(p.shape, p.keys, spec);
  }
  if (p.kind == "fattree") {
    return make_fat_tree(p.shape, p.keys, spec);
  }
  throw InputError(fmt::format("unknown topology kind '{}' in '{}': use torus, dragonfly or fattree; {}",
                               p.kind, spec, kForms));
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
