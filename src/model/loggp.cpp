#include "gridlock/model/loggp.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/model/fit_json.hpp"

namespace gridlock::model {

LogGpFromFit loggp_from_fit(const FitResult& fit) {
  const SeriesFit* ping = nullptr;
  for (const char* pair : {"far", "router", "node"}) {
    for (const SeriesFit& s : fit.series) {
      if (ping == nullptr && s.key.op == "pingpong" && s.key.pair_class == pair) {
        ping = &s;
      }
    }
  }
  if (ping == nullptr) {
    throw InputError(
        "the fit has no pingpong series: --loggops-from needs a sweep with p2p pingpong; "
        "or give -L, -o, -g and -G");
  }
  const LineFit& small = ping->segments.size() > 1 ? ping->segments.front().fit : ping->robust;
  const LineFit& large = ping->segments.size() > 1 ? ping->segments.back().fit : ping->robust;
  if (!(small.alpha_us > 0) || !(large.beta_us_per_byte > 0)) {
    throw InputError(
        fmt::format("pingpong ({}) fit has alpha {} us and beta {} us/B: LogGP needs both positive; "
                    "give -L, -o, -g and -G instead",
                    ping->key.pair_class, small.alpha_us, large.beta_us_per_byte));
  }
  LogGpFromFit out;
  out.latency_us = small.alpha_us / 2;
  out.overhead_us = small.alpha_us / 4;
  out.gap_per_byte_us = large.beta_us_per_byte;
  out.gap_us = out.overhead_us;
  std::string g_from = "g = o (no bw_uni series)";
  for (const SeriesFit& s : fit.series) {
    if (s.key.op == "bw_uni" && s.key.pair_class == ping->key.pair_class && s.robust.alpha_us > 0) {
      out.gap_us = s.robust.alpha_us;
      g_from = fmt::format("g from bw_uni ({})", s.key.pair_class);
    }
  }
  if (ping->segments.size() > 1) {
    out.eager_threshold_bytes = ping->segments.front().to_bytes;
  }
  out.basis =
      fmt::format("pingpong ({}): alpha {:.4g} us -> L = alpha/2, o = alpha/4; G = beta {:.4g} us/B; {}{}",
                  ping->key.pair_class, small.alpha_us, large.beta_us_per_byte, g_from,
                  out.eager_threshold_bytes
                      ? fmt::format("; S = {} B (the first protocol switch)", *out.eager_threshold_bytes)
                      : "");
  return out;
}

LogGpPs loggp_ps_from_fit_file(const std::string& path) {
  const LogGpFromFit f = loggp_from_fit(load_fit(path));
  const auto ps = [&path](double us, const char* name) {
    constexpr double kMaxUs = 1e6;  // 1 s: far above any network's latency, overhead or gap
    if (!std::isfinite(us) || us < 0 || us > kMaxUs) {
      throw InputError(
          fmt::format("--loggops-from {}: the fit gives {} = {} us; expected a finite value from 0 "
                      "to 1 s (fit the sweep again, or give the parameter on the command line)",
                      path, name, us));
    }
    // Bounded above: the rounded picoseconds fit in 64 bits.
    return static_cast<std::uint64_t>(std::llround(us * 1e6));
  };
  LogGpPs out;
  out.latency_ps = ps(f.latency_us, "L");
  out.overhead_ps = ps(f.overhead_us, "o");
  out.gap_ps = ps(f.gap_us, "g");
  out.gap_per_byte_ps = ps(f.gap_per_byte_us, "G");
  out.eager_threshold_bytes = f.eager_threshold_bytes;
  out.basis = f.basis;
  return out;
}

}  // namespace gridlock::model
