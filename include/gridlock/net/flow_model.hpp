#pragma once
/// @file
/// The flow model (`gridlock sim --net-model flow`; docs/network-models.md): every message is a
/// flow on its path, and the links' capacity is shared max-min fairly among the flows crossing
/// them (progressive filling). The path is the sender's NIC (a link of rate 1/G per rank), its
/// node's injection link, the topology's route, the receiver's ejection link and NIC. Rates are
/// recomputed only for the flows connected to a link whose set of flows changed, once per
/// simulated time at which flows start or end.
///
/// As in LogGOPS the first byte travels with the latency; the network carries the other s-1. A
/// message's last byte reaches the receiver L + hops * hop_latency after the flow has moved its
/// bytes: alone on a path whose links are at least as fast as 1/G that is t + L + (s-1)·G, the
/// LogGOPS arrival. Messages that overlap at a NIC share its rate (LogGOPS queues them).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gridlock/net/model.hpp"
#include "gridlock/net/network.hpp"

namespace gridlock::net {

/// Max-min fair flow model (see the file comment).
class FlowModel final : public Model {
 public:
  /// A model on `network` (shared: several runs may use one network).
  explicit FlowModel(std::shared_ptr<const Network> network);
  ~FlowModel() override;
  FlowModel(const FlowModel&) = delete;             ///< Holds run state.
  FlowModel& operator=(const FlowModel&) = delete;  ///< Holds run state.
  FlowModel(FlowModel&&) = delete;                  ///< Holds run state.
  FlowModel& operator=(FlowModel&&) = delete;       ///< Holds run state.

  /// See sim::NetworkModel::begin(); throws InputError when the schedule has more ranks than the
  /// placement places.
  void begin(std::uint32_t ranks, const sim::LogGOPSParams& params) override;
  /// See sim::NetworkModel::inject().
  void inject(std::uint64_t time_ps, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
              std::uint64_t token) override;
  /// See sim::NetworkModel::next_time().
  [[nodiscard]] std::uint64_t next_time() override;
  /// See sim::NetworkModel::advance().
  void advance(std::uint64_t time_ps, std::vector<sim::NetDelivery>& out) override;
  /// See sim::NetworkModel::in_flight().
  [[nodiscard]] std::uint64_t in_flight() const override;
  /// `flow model on SPEC (placement)`.
  [[nodiscard]] std::string describe() const override;

  /// See Model::stats().
  [[nodiscard]] const NetStats& stats() const noexcept override;
  /// Rate recomputations so far and the flows they visited (for benchmarks).
  [[nodiscard]] std::uint64_t recomputations() const noexcept;

 private:
  struct State;
  std::shared_ptr<const Network> network_;
  std::unique_ptr<State> state_;
};

}  // namespace gridlock::net
