#include "gridlock/net/factory.hpp"

#include <utility>

#include "gridlock/core/error.hpp"
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

}  // namespace gridlock::net
