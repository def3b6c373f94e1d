#include "gridlock/net/factory.hpp"

#include <utility>

#include "gridlock/net/flow_model.hpp"

namespace gridlock::net {

std::unique_ptr<Model> make_model(ModelKind kind, std::shared_ptr<const Network> network,
                                  const PacketOptions& packet) {
  if (kind == ModelKind::kPacket) {
    return std::make_unique<PacketModel>(std::move(network), packet);
  }
  return std::make_unique<FlowModel>(std::move(network));
}

}  // namespace gridlock::net
