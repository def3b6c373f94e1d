// libFuzzer target for the network models (issue 26): a topology spec as `gridlock sim --network`
// takes it, the model and its packet options, and a burst of messages, all decoded from the input.
// Any spec or option must be refused with InputError or accepted; an accepted network must
// deliver every message exactly once, to its receiver, never before it left plus L, and leave
// nothing in flight.
//
// Input: the spec's text up to the first newline; then bytes: model (flow/packet), routing,
// vcs, packet size and buffer (in 256-byte steps), congestion control, ranks per node, hop
// latency, and 6 bytes per message (source, destination, size exponent and mantissa, start time).
// Seed corpus: tests/fuzz/net-corpus.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/network.hpp"
#include "gridlock/topo/spec.hpp"

namespace {

namespace net = gridlock::net;
namespace sim = gridlock::sim;

// Bounds that keep one input's run short: the fuzzer should explore, not simulate big machines.
constexpr std::size_t kMaxNodes = 256;
constexpr std::size_t kMaxMessages = 64;
constexpr std::uint64_t kMaxSteps = 2'000'000;

struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
  [[nodiscard]] std::size_t left() const { return size - at; }
};

void run(std::string_view spec, Reader& in) {
  const std::shared_ptr<const gridlock::topo::Topology> topology = gridlock::topo::make_topology(spec);
  if (topology->nodes().size() > kMaxNodes || topology->nodes().empty()) {
    return;
  }
  const net::ModelKind kind = in.next() % 2 == 0 ? net::ModelKind::kFlow : net::ModelKind::kPacket;
  net::PacketOptions packet;
  packet.routing = static_cast<net::Routing>(in.next() % 3);
  packet.vcs = in.next() % 10;
  packet.packet_bytes = 256U * (in.next() % 17);
  packet.buffer_bytes = 256U * in.next();
  packet.congestion_control = in.next() % 2 == 1;
  const std::uint32_t per_node = 1 + in.next() % 4;
  net::NetworkParams params;
  params.hop_latency_ps = 1000ULL * in.next();
  const auto nodes = static_cast<std::uint32_t>(topology->nodes().size());
  const std::uint32_t ranks = std::min<std::uint32_t>(nodes * per_node, 1024);
  auto network = std::make_shared<const net::Network>(
      topology, net::identity_placement(*topology, ranks, per_node), params);
  const std::unique_ptr<net::Model> model = net::make_model(kind, network, packet);
  sim::LogGOPSParams loggops;
  loggops.gap_per_byte = sim::SimTime{static_cast<std::uint64_t>(in.next() % 8)};
  model->begin(ranks, loggops);
  struct Sent {
    std::uint64_t time;
    std::uint32_t dst;
  };
  std::vector<Sent> sent;
  std::uint64_t now = 0;
  while (in.left() >= 6 && sent.size() < kMaxMessages) {
    const std::uint32_t src = (in.next() | in.next() << 8U) % ranks;
    const std::uint32_t dst = in.next() % ranks;
    const std::uint64_t bytes = (std::uint64_t{1} << (in.next() % 21)) + in.next();
    now += 10'000ULL * in.next();
    model->inject(now, src, dst, bytes, sent.size());
    sent.push_back(Sent{now, dst});
  }
  std::vector<int> delivered(sent.size(), 0);
  std::vector<sim::NetDelivery> out;
  std::uint64_t steps = 0;
  for (std::uint64_t t = model->next_time(); t != sim::kNetIdle; t = model->next_time()) {
    if (++steps > kMaxSteps) {
      return;  // long but not endless: a heavy input, not a bug
    }
    out.clear();
    model->advance(t, out);
    for (const sim::NetDelivery& d : out) {
      if (d.token >= sent.size() || d.time_ps < t || d.dst != sent[d.token].dst ||
          d.time_ps < sent[d.token].time + loggops.latency.ps) {
        std::abort();  // a delivery that is not one of ours, in the past, misrouted or too early
      }
      ++delivered[d.token];
    }
  }
  for (const int count : delivered) {
    if (count != 1) {
      std::abort();  // a message lost or delivered twice
    }
  }
  if (model->in_flight() != 0) {
    std::abort();  // idle while holding a message
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos || newline > 200) {
    return 0;
  }
  Reader in{data + newline + 1, size - newline - 1};
  try {
    run(text.substr(0, newline), in);
  } catch (const gridlock::InputError&) {
    // Refused with a message: what bad input must get.
  }
  return 0;
}
