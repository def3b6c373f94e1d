#include "gridlock/sim/params_json.hpp"

namespace gridlock::sim {

Json params_json(const LogGOPSParams& params) {
  return Json{{"L_ps", params.latency.ps},
              {"o_send_ps", params.overhead_send.ps},
              {"o_recv_ps", params.overhead_recv.ps},
              {"g_ps", params.gap.ps},
              {"G_ps", params.gap_per_byte.ps},
              {"O_ps", params.overhead_per_byte.ps},
              {"S_bytes", params.eager_threshold_bytes},
              {"rendezvous_handshake", params.rendezvous_handshake}};
}

}  // namespace gridlock::sim
