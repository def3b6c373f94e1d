#pragma once
/// @file
/// Hockney parameters of a fit mapped to LogGP parameters for `gridlock sim --loggops-from`
/// (docs/model.md, "--loggops-from").

#include <cstdint>
#include <optional>
#include <string>

#include "gridlock/model/fit.hpp"

namespace gridlock::model {

/// LogGP parameters derived from a fit, in microseconds.
struct LogGpFromFit {
  double latency_us = 0;       ///< L = alpha / 2.
  double overhead_us = 0;      ///< o = alpha / 4 (each side), so that o + L + o = alpha.
  double gap_us = 0;           ///< g: bw_uni's alpha (time per small streamed message), else o.
  double gap_per_byte_us = 0;  ///< G = beta of the large-message segment.
  std::optional<std::uint64_t> eager_threshold_bytes;  ///< S: last size before pingpong's first switch.
  std::string basis;                                   ///< Which series each parameter came from.
};

/// Maps the fit's pingpong series (pair class far, else router, else node) to LogGP: alpha of the
/// small-message segment split as L = alpha/2 and o = alpha/4 per side, G = beta of the
/// large-message segment, g from bw_uni of the same pair class when measured. Throws InputError
/// when the fit has no pingpong series or alpha or beta is not positive.
[[nodiscard]] LogGpFromFit loggp_from_fit(const FitResult& fit);

/// A fit's LogGP parameters in picoseconds, as a simulator takes them.
struct LogGpPs {
  std::uint64_t latency_ps = 0;                        ///< L.
  std::uint64_t overhead_ps = 0;                       ///< o, each side.
  std::uint64_t gap_ps = 0;                            ///< g.
  std::uint64_t gap_per_byte_ps = 0;                   ///< G (per byte).
  std::optional<std::uint64_t> eager_threshold_bytes;  ///< S, when the fit shows it.
  std::string basis;                                   ///< Which series each parameter came from.
};

/// The LogGP parameters of the `gridlock model fit --json` file `path` (--loggops-from) in
/// picoseconds. A fit file is input like any other: NaN, infinite, negative or absurd values (a
/// fit of `alpha_us = -1e300`) are refused (InputError naming the file, the parameter and the fix),
/// not converted. Throws IoError when the file cannot be read.
[[nodiscard]] LogGpPs loggp_ps_from_fit_file(const std::string& path);

}  // namespace gridlock::model
