#pragma once
/// @file
/// The LogGOPS parameters as recorded in output files (the `loggops` object of a context block).

#include "gridlock/core/output.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::sim {

/// `{"L_ps", "o_send_ps", "o_recv_ps", "g_ps", "G_ps", "O_ps", "S_bytes", "rendezvous_handshake"}`.
[[nodiscard]] Json params_json(const LogGOPSParams& params);

}  // namespace gridlock::sim
