#pragma once
// What the packet model needs to know about each link to choose a packet's virtual channel on it
// (the deadlock-avoidance rules of docs/network-models.md, "Packet model").
#include <cstdint>
#include <vector>

#include "gridlock/net/network.hpp"

namespace gridlock::net::detail {

/// How virtual channels are assigned on a topology.
enum class VcRule : std::uint8_t {
  kSingle,     ///< Always channel 0 (fat tree up/down, other acyclic routings).
  kDragonfly,  ///< Channel = global links crossed, plus turns inside a group, before this link.
  kTorus,      ///< Dateline per dimension: 1 from the wrap-around link on, 0 after a turn.
};

/// Per link: its torus dimension (3: none), whether it wraps around, whether it is global.
struct LinkClass {
  std::uint8_t dim = 3;  ///< 0..2 for torus links X, Y, Z; 3 otherwise.
  bool wrap = false;     ///< Torus link from the last coordinate to the first (or back).
  bool global = false;   ///< Dragonfly link between groups.
};

/// The rule for `network`'s topology and the class of every topology link.
[[nodiscard]] VcRule vc_rule(const Network& network);
/// One LinkClass per topology link.
[[nodiscard]] std::vector<LinkClass> link_classes(const Network& network);

/// The channel a packet takes on `next` after crossing `prev` on channel `prev_vc`; `turned`: `prev`
/// led to the intermediate router of a Valiant path that turns inside a dragonfly group
/// (topo::Dragonfly::append_valiant_route()), where the packet's next phase begins.
[[nodiscard]] inline std::uint32_t next_vc(VcRule rule, const LinkClass& prev, std::uint32_t prev_vc,
                                           const LinkClass& next, bool turned) noexcept {
  switch (rule) {
    case VcRule::kDragonfly:
      return prev_vc + (prev.global || turned ? 1U : 0U);
    case VcRule::kTorus:
      if (next.dim == 3) {
        return 0;
      }
      if (next.dim != prev.dim) {
        return next.wrap ? 1U : 0U;
      }
      return prev_vc | (next.wrap ? 1U : 0U);
    case VcRule::kSingle:
      break;
  }
  return 0;
}

}  // namespace gridlock::net::detail
