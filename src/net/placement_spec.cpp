#include "gridlock/net/placement_spec.hpp"

#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::net {

PlacementSpec parse_placement_spec(std::string_view text, std::string_view what) {
  constexpr std::string_view kRankfilePrefix = "rankfile:";
  if (text == "identity") {
    return PlacementSpec{PlacementKind::kIdentity, {}};
  }
  if (text == "random") {
    return PlacementSpec{PlacementKind::kRandom, {}};
  }
  if (text.starts_with(kRankfilePrefix) && text.size() > kRankfilePrefix.size()) {
    return PlacementSpec{PlacementKind::kRankfile, std::string(text.substr(kRankfilePrefix.size()))};
  }
  throw InputError(fmt::format(
      "{} '{}': give identity (rank r on node r / ranks per node), random (nodes shuffled with --seed) or "
      "rankfile:FILE (`rank R=HOST slot=S` lines, e.g. from `gridlock map --rankfile`)",
      what, text));
}

}  // namespace gridlock::net
