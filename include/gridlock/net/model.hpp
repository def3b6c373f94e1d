#pragma once
/// @file
/// What every gridlock::net model is: a sim::NetworkModel that also reports what it saw
/// (NetStats), and the factory the tools use (`--net-model flow|packet`).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gridlock/net/network.hpp"
#include "gridlock/sim/network.hpp"

namespace gridlock::net {

/// A network model of gridlock::net.
class Model : public sim::NetworkModel {
 public:
  /// What the run saw so far (link bytes, slowdowns); reset by begin().
  [[nodiscard]] virtual const NetStats& stats() const noexcept = 0;
};

/// Which model: `flow` (max-min fair flows) or `packet` (packets, router buffers, credits).
enum class ModelKind : std::uint8_t {
  kFlow,    ///< net/flow_model.hpp
  kPacket,  ///< net/packet_model.hpp
};

/// `flow` or `packet`.
[[nodiscard]] const char* to_string(ModelKind kind) noexcept;
/// Parses a --net-model value; throws InputError naming `what` and the choices otherwise.
[[nodiscard]] ModelKind parse_model_kind(std::string_view text, std::string_view what = "--net-model");

}  // namespace gridlock::net
