#include "gridlock/net/factory.hpp"

#include <utility>

#include "gridlock/core/error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/net/flow_model.hpp"

namespace gridlock::net {

std::unique_ptr<Model> make_model(ModelKind kind, std::shared_ptr<const Network> network,
                                  const PacketOptions& packet) {
  if (kind == ModelKind::kPacket) {
    if (network && network->params().spread) {
      // The packet model's virtual channels assume the topology's own route order (a torus's
      // dimension order, a dragonfly's row-first groups); other orders could deadlock.
      throw InputError(
          "--spread is for the flow model: the packet model routes with --routing (minimal, valiant, ugal)");
    }
    return std::make_unique<PacketModel>(std::move(network), packet);
  }
  return std::make_unique<FlowModel>(std::move(network));
}

std::uint64_t estimate_model_bytes(ModelKind kind, std::uint64_t links, std::uint64_t ranks,
                                   const PacketOptions& packet) noexcept {
  // Counted from the models' vectors (flow_model.cpp, packet_model.cpp's State) and rounded up:
  // per link its capacity, hop time, byte counter and flow list (flow) or port, requester list
  // and per-channel queue heads, credits and flags (packet); per rank its NIC times and rate.
  constexpr std::uint64_t kFlowPerLink = 96;
  constexpr std::uint64_t kFlowPerRank = 64;
  constexpr std::uint64_t kPacketPerLink = 96;
  constexpr std::uint64_t kPacketPerQueue = 48;
  constexpr std::uint64_t kPacketPerSlot = 8;
  constexpr std::uint64_t kPacketPerRank = 128;
  if (kind != ModelKind::kPacket) {
    return saturating_add(saturating_mul(links, kFlowPerLink), saturating_mul(ranks, kFlowPerRank));
  }
  const std::uint64_t slots = packet.packet_bytes == 0 ? 1 : packet.buffer_bytes / packet.packet_bytes;
  const std::uint64_t per_queue = saturating_add(kPacketPerQueue, saturating_mul(slots, kPacketPerSlot));
  const std::uint64_t per_link = saturating_add(kPacketPerLink, saturating_mul(packet.vcs, per_queue));
  return saturating_add(saturating_mul(links, per_link), saturating_mul(ranks, kPacketPerRank));
}

}  // namespace gridlock::net
