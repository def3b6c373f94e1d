#pragma once
/// @file
/// The one way the tools build a network model from `--net-model flow|packet`
/// (docs/network-models.md).
#include <memory>

#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"

namespace gridlock::net {

/// A flow model (`packet` is ignored) or a packet model with `packet` (validate()d: throws
/// InputError for options it refuses) on `network`.
[[nodiscard]] std::unique_ptr<Model> make_model(ModelKind kind, std::shared_ptr<const Network> network,
                                                const PacketOptions& packet);

}  // namespace gridlock::net
