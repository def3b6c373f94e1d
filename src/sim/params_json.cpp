#include "gridlock/sim/params_json.hpp"

#include "gridlock/core/rng.hpp"
#include "gridlock/sim/replicas.hpp"

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

Json noise_json(const noise::NoiseSpec& spec, const noise::DetourPattern& pattern, std::uint64_t seed,
                bool cosched, NoiseRule rule) {
  return Json{{"model", noise::describe(spec, pattern)},
              {"rule", to_string(rule)},
              {"seed", seed},
              {"noise_seed", derive_seed(seed, kNoiseSeedStream)},
              {"cosched", cosched},
              {"period_ps", pattern.period_ps()},
              {"detours_per_period", pattern.size()},
              {"noise_fraction", pattern.noise_fraction()}};
}

}  // namespace gridlock::sim
