#pragma once
// The simulator options both command-line tools take (`gridlock sim`, `gridlock-bench
// sim-replicas`): LogGOPS parameters, --loggops-from, the noise model. The options are added here
// once; their conversion and validation are gridlock::sim's (loggops_from_text) and
// gridlock::noise's (noise_spec_of_options).

#include <cstdint>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "gridlock/core/error.hpp"
#ifndef GRIDLOCK_NO_MODEL
#include "gridlock/model/loggp.hpp"
#endif
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/loggops_options.hpp"

namespace gridlock::cli {

/// The LogGOPS options as text, and --loggops-from.
struct SimModelText {
  sim::LogGOPSText
      loggops;  ///< -L -o --o-send --o-recv -g -G -O -S --rendezvous-handshake --network-scale --noise-rule
  std::string loggops_from;  ///< A `gridlock model fit --json` file: L, o, g, G, S from its pingpong fit.
};

/// Adds -L, -o, --o-send, --o-recv, -g, -G, -O, -S, --rendezvous-handshake, --network-scale,
/// --noise-rule and --loggops-from to `cmd`.
inline void add_sim_model_options(CLI::App& cmd, SimModelText& t) {
  sim::LogGOPSText& l = t.loggops;
  cmd.add_option("-L", l.latency, "Latency L (e.g. 2.5us; default 2.5us)");
  cmd.add_option("-o", l.overhead, "CPU overhead o per message, both sides (default 1.5us)");
  cmd.add_option("--o-send", l.overhead_send, "Sender overhead (extension; default: -o)");
  cmd.add_option("--o-recv", l.overhead_recv, "Receiver overhead (extension; default: -o)");
  cmd.add_option("-g", l.gap, "Gap g between messages on a NIC (default 1us)");
  cmd.add_option("-G", l.gap_per_byte, "Gap per byte G (sub-ns allowed, e.g. 0.25ns; default 6ns)");
  cmd.add_option("-O", l.overhead_per_byte, "CPU overhead per byte O (default 0)");
  cmd.add_option("-S", l.eager_threshold_bytes,
                 "Eager threshold S in bytes (larger: rendezvous; default 65535)");
  cmd.add_flag("--rendezvous-handshake", l.rendezvous_handshake,
               "Extension: rendezvous messages wait for a request-to-send / clear-to-send round trip");
  cmd.add_option("--network-scale", l.network_scale, "Multiply L, g and G by F (o unchanged)")
      ->capture_default_str();
  cmd.add_option("--noise-rule", l.noise_rule,
                 "gridlock (noise in o_s delays the message; default) or loggopsim (LogGOPSim's rule; "
                 "docs/sim-model.md, \"Differences\")");
#ifndef GRIDLOCK_NO_MODEL
  cmd.add_option("--loggops-from", t.loggops_from,
                 "Take L, o, g, G and S from a fit file (gridlock model fit --json; docs/model.md)");
#endif
}

/// The parameters of the options: --loggops-from's fit replaces the defaults (or a --system
/// preset's host parameters, `preset`), options given on the command line win over both. `tool`
/// names the program in the note about the fit (none if quiet).
inline sim::LogGOPSChoice sim_model_from(const SimModelText& t, const char* tool, bool quiet,
                                         const sim::LogGOPSParams* preset = nullptr) {
  sim::LogGOPSParams base = preset != nullptr ? *preset : sim::default_loggops();
#ifdef GRIDLOCK_NO_MODEL
  // The SMPI build tree has no gridlock::model (src/CMakeLists.txt); the option is not offered.
  (void)tool;
  (void)quiet;
#else
  if (!t.loggops_from.empty()) {
    const model::LogGpPs f = model::loggp_ps_from_fit_file(t.loggops_from);
    base.latency = sim::SimTime{f.latency_ps};
    base.overhead_send = sim::SimTime{f.overhead_ps};
    base.overhead_recv = sim::SimTime{f.overhead_ps};
    base.gap = sim::SimTime{f.gap_ps};
    base.gap_per_byte = sim::SimTime{f.gap_per_byte_ps};
    if (f.eager_threshold_bytes) {
      base.eager_threshold_bytes = *f.eager_threshold_bytes;
    }
    if (!quiet) {
      fmt::print(stderr, "{}: --loggops-from {}: {} (options on the command line win)\n", tool,
                 t.loggops_from, f.basis);
    }
  }
#endif
  return sim::loggops_from_text(t.loggops, base);
}

/// The noise options as text.
struct NoiseText {
  std::string trace;            ///< --noise FILE.
  std::string format = "auto";  ///< --noise-format.
  std::string periodic;         ///< --noise-periodic FREQ:LENGTH.
  std::string random;           ///< --noise-random RATE:LENGTH[:exp|fixed].
  bool cosched = false;         ///< --noise-cosched.
};

/// Adds --noise, --noise-format, --noise-periodic, --noise-random and --noise-cosched to `cmd`.
inline void add_noise_model_options(CLI::App& cmd, NoiseText& t) {
  cmd.add_option("--noise", t.trace, "Inject noise from a trace (gridlock, Netgauge, LogGOPSim)");
  // Refused alone rather than ignored.
  cmd.add_option("--noise-format", t.format, "auto, gridlock, netgauge or loggopsim")
      ->capture_default_str()
      ->needs("--noise");
  cmd.add_option("--noise-periodic", t.periodic, "Periodic noise FREQ:LENGTH, e.g. 1000Hz:100us");
  cmd.add_option("--noise-random", t.random,
                 "Random noise RATE:LENGTH[:exp|fixed] (Poisson arrivals), e.g. 1000Hz:100us:exp");
  cmd.add_flag("--noise-cosched", t.cosched, "Co-scheduled noise: every rank the same phase");
}

/// The noise model of the options (kind none when no noise option is given; noise::noise_spec_of_options).
inline noise::NoiseSpec noise_spec_from(const NoiseText& t) {
  return noise::noise_spec_of_options(t.trace, t.format, t.periodic, t.random);
}

}  // namespace gridlock::cli
