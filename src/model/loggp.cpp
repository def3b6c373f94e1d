#include "gridlock/model/loggp.hpp"

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

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

}  // namespace gridlock::model
