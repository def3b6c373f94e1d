#pragma once
/// @file
/// The interface through which the LogGOPS engine hands messages to a network model (issue 26;
/// gridlock::net implements it: a flow model and a packet model). Without a model the engine
/// delivers every message L after its o_s ends, as LogGOPSim does; with one, the model decides
/// when the message's last byte reaches the receiver, so messages that share links slow each
/// other down. The CPU side (o, O, g, eager and rendezvous, noise) stays the engine's.
///
/// Contract, in the engine's integer picoseconds:
/// - The engine calls begin() once per run, then inject() for every message with the simulated
///   time it leaves the sender (the end of its o_s). That time is never earlier than the last
///   advance(), but may be earlier than a message injected before (noise, a waiting NIC).
/// - next_time() is the earliest time at which the model has something to do (a delivery to
///   hand over, a flow or packet to move), or kNetIdle; it is never earlier than the last time
///   the engine reached. The engine calls advance(t) with t = next_time() once every event of
///   its own before t is processed; advance appends the messages it delivers, each at a time >=
///   t, and must make progress (a later next_time(), or a delivery).
/// - An idle model with links at least as fast as 1/G delivers a message of s bytes injected at
///   t at t + L + (s-1)·G: the LogGOPS arrival of its last byte (docs/network-models.md).
#include <cstdint>
#include <string>
#include <vector>

namespace gridlock::sim {

struct LogGOPSParams;

/// next_time() of a model with nothing to do.
inline constexpr std::uint64_t kNetIdle = ~std::uint64_t{0};

/// A message the model hands back: it arrived at its receiver at `time_ps`.
struct NetDelivery {
  std::uint64_t time_ps = 0;  ///< Arrival of the last byte at the receiver.
  std::uint64_t token = 0;    ///< The engine's token given to inject().
  std::uint32_t dst = 0;      ///< Receiving rank (the host the engine's event belongs to).
};

/// A network model the engine calls for each message (see the file comment for the contract).
class NetworkModel {
 public:
  /// Virtual destructor: models derive from this class.
  virtual ~NetworkModel() = default;
  NetworkModel() = default;
  NetworkModel(const NetworkModel&) = delete;             ///< Models hold run state.
  NetworkModel& operator=(const NetworkModel&) = delete;  ///< Models hold run state.
  NetworkModel(NetworkModel&&) = delete;                  ///< Models hold run state.
  NetworkModel& operator=(NetworkModel&&) = delete;       ///< Models hold run state.

  /// Starts a run of `ranks` ranks with the engine's LogGOPS parameters (L and G are the model's
  /// endpoint latency and NIC rate). Throws InputError when the ranks do not fit the network.
  virtual void begin(std::uint32_t ranks, const LogGOPSParams& params) = 0;
  /// A message of `bytes` from rank `src` to rank `dst` leaves the sender at `time_ps`.
  virtual void inject(std::uint64_t time_ps, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                      std::uint64_t token) = 0;
  /// The earliest time the model has something to do, or kNetIdle.
  [[nodiscard]] virtual std::uint64_t next_time() = 0;
  /// Moves the model to `time_ps` (== next_time()) and appends the messages delivered.
  virtual void advance(std::uint64_t time_ps, std::vector<NetDelivery>& out) = 0;
  /// Messages injected but not delivered yet (for the report of a run that cannot finish).
  [[nodiscard]] virtual std::uint64_t in_flight() const = 0;
  /// One line saying what the model is, for reports (`flow model on dragonfly:...`).
  [[nodiscard]] virtual std::string describe() const = 0;
};

}  // namespace gridlock::sim
