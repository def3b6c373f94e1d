#pragma once
/// @file
/// Hockney fits T = alpha + beta*n (least squares and robust), protocol-switch detection by
/// segmented regression, and the collective models of the Theta paper (docs/model.md).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/model/sweep.hpp"

namespace gridlock::model {

/// How a line was fitted.
enum class FitMethod {
  kLeastSquares,  ///< Weighted least squares minimising the squared relative error (weights 1/T^2).
  kHuber,         ///< Huber M-estimate of the relative residuals (k = 1.345), by IRLS.
};

/// A fitted line T = alpha + beta*n and how well it matches its points.
struct LineFit {
  double alpha_us = 0;          ///< Intercept: the time of a 0-byte message, microseconds.
  double beta_us_per_byte = 0;  ///< Slope: microseconds per byte.
  double r2 = 0;                ///< Coefficient of determination in the 1/T^2 weighting.
  std::vector<double> rel_err;  ///< (model - measured) / measured, one per point.
  double max_rel_err = 0;       ///< Largest |rel_err|.
  double median_rel_err = 0;    ///< Median |rel_err|.
  /// The model's time for `size_bytes`.
  [[nodiscard]] double at(double size_bytes) const noexcept {
    return alpha_us + beta_us_per_byte * size_bytes;
  }
  /// 1/beta in MiB/s, or 0 when beta is not positive.
  [[nodiscard]] double bandwidth_mib_s() const noexcept;
};

/// Fits T = alpha + beta*n to `(sizes, times)`. `what` names the data in messages. Throws InputError
/// with fewer than 2 points, when every size is equal (degenerate), on times that are not positive
/// and finite, or when the robust fit does not converge in 100 iterations.
[[nodiscard]] LineFit fit_line(const std::vector<double>& sizes_bytes, const std::vector<double>& times_us,
                               FitMethod method, std::string_view what);

/// One piece of a segmented (piecewise) Hockney model.
struct Segment {
  std::uint64_t from_bytes = 0;  ///< First measured size in the segment.
  std::uint64_t to_bytes = 0;    ///< Last measured size in the segment.
  LineFit fit;                   ///< Least-squares line of the segment's points.
};

/// Segmented regression: the best split of the points (sorted by size) into 1 to `max_breaks`+1
/// contiguous segments of at least 3 points each, each with its own line; break positions by
/// exhaustive dynamic programming, the number of segments by BIC. One segment means no switch.
[[nodiscard]] std::vector<Segment> fit_segments(const std::vector<std::uint64_t>& sizes_bytes,
                                                const std::vector<double>& times_us, std::string_view what,
                                                int max_breaks = 3);

/// "switch near 8 KiB: alpha jumps from 1.2 to 3.4 us, beta from ... to ... us/B" for the break
/// between segment `i` and `i + 1`.
[[nodiscard]] std::string describe_switch(const Segment& before, const Segment& after);

/// The Hockney fits of one series.
struct SeriesFit {
  SeriesKey key;                           ///< Which series.
  std::vector<std::uint64_t> sizes_bytes;  ///< Measured sizes.
  std::vector<double> median_us;           ///< Pooled median per size.
  LineFit least_squares;                   ///< Weighted least squares (relative error).
  LineFit robust;                          ///< Huber IRLS (relative error).
  std::vector<Segment> segments;           ///< One segment: no protocol switch found.
};

/// Fits one series. Throws InputError "cannot fit op X: one size measured; sweep at least 2 sizes".
[[nodiscard]] SeriesFit fit_series(const Series& series);

/// The collective models, in table order.
enum class CollectiveModel : std::uint8_t {
  kBinomialP2p,     ///< (alpha + beta*n)*log2(p), alpha/beta from the point-to-point fit.
  kScatterRdP2p,    ///< 2*alpha*log2(p) + 2*n*beta*(p-1)/p (scatter + recursive-doubling allgather).
  kScatterRingP2p,  ///< alpha*(log2(p) + p - 1) + 2*n*beta*(p-1)/p (scatter + ring allgather).
  kBinomialDirect,  ///< (alpha + beta*n)*log2(p) with alpha, beta fitted to this op directly.
  kPaperDirect,     ///< gamma + delta*n + (alpha + beta*n)*log2(p), all four fitted directly.
};
/// Number of collective models.
inline constexpr std::size_t kCollectiveModels = 5;
/// Every model, in table order.
inline constexpr std::array<CollectiveModel, kCollectiveModels> kAllCollectiveModels{
    CollectiveModel::kBinomialP2p, CollectiveModel::kScatterRdP2p, CollectiveModel::kScatterRingP2p,
    CollectiveModel::kBinomialDirect, CollectiveModel::kPaperDirect};

/// Short name used in tables and JSON: `binomial`, `scatter_rd`, `scatter_ring`, `binomial_fit`, `paper_fit`.
[[nodiscard]] std::string_view model_name(CollectiveModel model);
/// Parses a model_name; nullopt if unknown.
[[nodiscard]] std::optional<CollectiveModel> parse_model_name(std::string_view name);

/// Parameters of one collective model (gamma and delta only for kPaperDirect).
struct ModelParams {
  bool available = false;        ///< False: not fitted (see note).
  double alpha_us = 0;           ///< alpha.
  double beta_us_per_byte = 0;   ///< beta.
  double gamma_us = 0;           ///< gamma (paper form).
  double delta_us_per_byte = 0;  ///< delta (paper form).
  std::string note;              ///< Why a model is not available, or where its parameters came from.
};

/// The model's time for `size_bytes` per rank on `ranks` ranks.
[[nodiscard]] double evaluate(CollectiveModel model, const ModelParams& params, double size_bytes,
                              double ranks);

/// Sizes over which one model fits a collective best.
struct SizeRange {
  std::uint64_t from_bytes = 0;                                         ///< First size of the range.
  std::uint64_t to_bytes = 0;                                           ///< Last size of the range.
  CollectiveModel best = CollectiveModel::kBinomialP2p;                 ///< Lowest median |relative error|.
  std::array<std::optional<double>, kCollectiveModels> median_rel_err;  ///< Per model; empty if unavailable.
};

/// The collective models of one op over every measured communicator size p >= 2.
struct CollectiveFit {
  std::string op;                                     ///< `allreduce`, `bcast`, ...
  std::vector<std::uint32_t> ranks;                   ///< Communicator sizes used.
  std::array<ModelParams, kCollectiveModels> models;  ///< Indexed by CollectiveModel.
  std::vector<SizeRange> ranges;                      ///< Sorted by size, contiguous.
};

/// Point-to-point parameters that the *_P2p collective models use.
struct P2pReference {
  std::string op;               ///< Series it came from (`pingpong`).
  std::string pair_class;       ///< Its pair class.
  double alpha_us = 0;          ///< Robust-fit alpha.
  double beta_us_per_byte = 0;  ///< Robust-fit beta.
};

/// Everything `gridlock model fit` computes from a sweep.
struct FitResult {
  std::vector<std::string> inputs;         ///< Sweep files.
  std::vector<SeriesFit> series;           ///< One per series with a message size.
  std::optional<P2pReference> p2p;         ///< The pingpong fit the collective models use.
  std::vector<CollectiveFit> collectives;  ///< One per collective op.
  std::vector<std::string> notes;          ///< Series skipped and why.
};

/// Fits every series and collective of a sweep. The point-to-point reference is the robust fit
/// of `pingpong`, pair class `far`, else `router`, else `node`.
[[nodiscard]] FitResult fit_sweep(const Sweep& sweep);

/// Fits the collective models of `op` from `sweep`; nullopt when no series of `op` has p >= 2.
[[nodiscard]] std::optional<CollectiveFit> fit_collective(const Sweep& sweep, std::string_view op,
                                                          const std::optional<P2pReference>& p2p);

/// The console report of `gridlock model fit`: the Hockney fits (least squares and robust) per
/// series, the protocol switches found, the point-to-point reference, the collective models' errors
/// per size range with their fitted parameters, and the notes; one line each.
[[nodiscard]] std::string fit_text(const FitResult& fit);

}  // namespace gridlock::model
