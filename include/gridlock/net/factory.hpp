#pragma once
/// @file
/// The one way the tools build a network model from `--net-model flow|packet`
/// (docs/network-models.md).
#include <cstdint>
#include <memory>

#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"

namespace gridlock::net {

/// A flow model (`packet` is ignored) or a packet model with `packet` (validate()d: throws
/// InputError for options it refuses) on `network`.
[[nodiscard]] std::unique_ptr<Model> make_model(ModelKind kind, std::shared_ptr<const Network> network,
                                                const PacketOptions& packet);

/// An estimate of the bytes a model of `kind` allocates before any traffic on a topology of
/// `links` links (network, injection and ejection) for `ranks` ranks: the per-link state (the
/// packet model: every virtual channel's queue and a credit ring of buffer_bytes / packet_bytes
/// slots) and per-rank NIC state. Messages, flows and packets in flight come on top (one per
/// message at most: callers count them with the schedule's operations). Saturating.
[[nodiscard]] std::uint64_t estimate_model_bytes(ModelKind kind, std::uint64_t links, std::uint64_t ranks,
                                                 const PacketOptions& packet) noexcept;

}  // namespace gridlock::net
