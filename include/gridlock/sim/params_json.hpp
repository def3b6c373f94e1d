#pragma once
/// @file
/// The parameters of a simulation as recorded in output files (the `loggops` and `noise` objects
/// of a context block), written alike by `gridlock sim` and `gridlock-bench sim-replicas`.

#include <cstdint>

#include "gridlock/core/output.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::sim {

/// `{"L_ps", "o_send_ps", "o_recv_ps", "g_ps", "G_ps", "O_ps", "S_bytes", "rendezvous_handshake"}`.
[[nodiscard]] Json params_json(const LogGOPSParams& params);

/// The noise of a run with the user's `seed`: `{"model", "rule", "seed", "noise_seed", "cosched",
/// "period_ps", "detours_per_period", "noise_fraction"}`, where `model` is noise::describe(spec,
/// pattern), `rule` to_string(rule) and `noise_seed` the base seed of the phases,
/// derive_seed(seed, kNoiseSeedStream).
[[nodiscard]] Json noise_json(const noise::NoiseSpec& spec, const noise::DetourPattern& pattern,
                              std::uint64_t seed, bool cosched, NoiseRule rule = NoiseRule::kGridlock);

}  // namespace gridlock::sim
