#pragma once
// The LogGOPS host parameters as the prediction reports' context blocks write them
// (`gridlock predict gpcnet` and `gridlock predict mapping`: docs/formats/).
#include <cstdint>

#include "gridlock/core/output.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::predict::detail {

// Sets the host parameters and the per-hop latency in `params`, in integer picoseconds.
inline void put_loggops_params(Json& params, const sim::LogGOPSParams& loggops,
                               std::uint64_t hop_latency_ps) {
  params["latency_ps"] = loggops.latency.ps;
  params["overhead_send_ps"] = loggops.overhead_send.ps;
  params["overhead_recv_ps"] = loggops.overhead_recv.ps;
  params["gap_ps"] = loggops.gap.ps;
  params["gap_per_byte_ps"] = loggops.gap_per_byte.ps;
  params["overhead_per_byte_ps"] = loggops.overhead_per_byte.ps;
  params["eager_threshold_bytes"] = loggops.eager_threshold_bytes;
  params["hop_latency_ps"] = hop_latency_ps;
}

}  // namespace gridlock::predict::detail
