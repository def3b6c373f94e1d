#pragma once
/// @file
/// The `--placement` choices of `gridlock sim --network` (docs/network-models.md, "Using the
/// models"): `identity`, `random` or `rankfile:FILE` (an Open MPI rankfile, docs/formats/rankfile.md,
/// against the topology's nodes). Parsing only: identity_placement() and random_placement() place
/// the ranks; a rankfile is read outside net (mapping::read_rankfile_nodes(), then
/// explicit_placement()), so that the models do not depend on gridlock::mapping.
#include <cstdint>
#include <string>
#include <string_view>

namespace gridlock::net {

/// How ranks are placed on the network's nodes.
enum class PlacementKind : std::uint8_t {
  kIdentity,  ///< identity_placement()
  kRandom,    ///< random_placement() with the run's seed
  kRankfile,  ///< explicit_placement() of a rankfile's nodes (mapping::read_rankfile_nodes())
};

/// A parsed `--placement` value.
struct PlacementSpec {
  PlacementKind kind = PlacementKind::kIdentity;  ///< Which placement.
  std::string rankfile;                           ///< The file of `rankfile:FILE`; empty otherwise.
};

/// How the run placed its ranks, as given on the command line.
struct PlacementChoice {
  PlacementSpec spec;                ///< identity, random or rankfile:FILE.
  std::uint32_t ranks_per_node = 1;  ///< Ranks per node (identity, random).
  std::uint64_t seed = 0;            ///< The shuffle's seed (random).
};

/// Parses `identity`, `random` or `rankfile:FILE`; throws InputError naming `what` and the choices.
[[nodiscard]] PlacementSpec parse_placement_spec(std::string_view text,
                                                 std::string_view what = "--placement");

}  // namespace gridlock::net
