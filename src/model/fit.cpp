#include "gridlock/model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/least_squares.hpp"
#include "detail/stats.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/model/fit_json.hpp"

namespace gridlock::model {
namespace {

constexpr double kHuberK = 1.345;  // 95% efficiency at normal residuals
constexpr int kMaxIterations = 500;
// Iterations that re-estimate the residual scale (MAD); after them the scale is held. With the
// scale changing every step, IRLS can cycle (three noisy points: the median point's weight flips
// back and forth, FitLine.RobustFitOfThreeNoisyPointsConverges); with a fixed scale the Huber
// objective is convex and IRLS decreases it at every step, so it converges.
constexpr int kScaleIterations = 20;
constexpr double kMadToSigma = 1.4826;  // MAD of a normal distribution -> its sigma
// Relative residuals below one in a million are measurement resolution, not signal: the floor
// keeps BIC finite on exact synthetic data and the Huber scale positive.
constexpr double kRelResolution = 1e-6;
constexpr std::size_t kMinSegmentPoints = 3;

void check_times(const std::vector<double>& t, std::string_view what) {
  for (const double v : t) {
    if (!std::isfinite(v) || v <= 0) {
      throw InputError(fmt::format("cannot fit {}: time {} us is not positive and finite", what, v));
    }
  }
}

// Relative-error weighting: minimising sum ((y - f)/y)^2 means weights 1/y^2.
Eigen::VectorXd relative_weights(const std::vector<double>& y) {
  Eigen::VectorXd w(static_cast<Eigen::Index>(y.size()));
  for (std::size_t i = 0; i < y.size(); ++i) {
    w(static_cast<Eigen::Index>(i)) = 1.0 / (y[i] * y[i]);
  }
  return w;
}

std::pair<double, double> solve_line(const std::vector<double>& x, const std::vector<double>& y,
                                     const Eigen::VectorXd& w, std::string_view what) {
  const auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0;
    a(i, 1) = x[static_cast<std::size_t>(i)];
    b(i) = y[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd c = detail::weighted_least_squares(a, b, w, what);
  return {c(0), c(1)};
}

void fill_errors(LineFit& f, const std::vector<double>& x, const std::vector<double>& y) {
  f.rel_err.resize(x.size());
  std::vector<double> abs_err(x.size());
  double sw = 0;
  double swy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    f.rel_err[i] = (f.at(x[i]) - y[i]) / y[i];
    abs_err[i] = std::abs(f.rel_err[i]);
    const double w = 1.0 / (y[i] * y[i]);
    sw += w;
    swy += w * y[i];
  }
  f.max_rel_err = *std::max_element(abs_err.begin(), abs_err.end());
  f.median_rel_err = detail::median(abs_err);
  const double mean = swy / sw;
  double ss_tot = 0;
  double ss_res = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double w = 1.0 / (y[i] * y[i]);
    ss_tot += w * (y[i] - mean) * (y[i] - mean);
    ss_res += f.rel_err[i] * f.rel_err[i];
  }
  const double floor = static_cast<double>(x.size()) * kRelResolution * kRelResolution;
  if (ss_tot <= floor) {
    f.r2 = ss_res <= floor ? 1.0 : 0.0;
  } else {
    f.r2 = 1.0 - ss_res / ss_tot;
  }
}

double weighted_rss(const std::vector<double>& x, const std::vector<double>& y, std::size_t from,
                    std::size_t to) {
  const std::vector<double> xs(x.begin() + static_cast<std::ptrdiff_t>(from),
                               x.begin() + static_cast<std::ptrdiff_t>(to) + 1);
  const std::vector<double> ys(y.begin() + static_cast<std::ptrdiff_t>(from),
                               y.begin() + static_cast<std::ptrdiff_t>(to) + 1);
  const auto [a, b] = solve_line(xs, ys, relative_weights(ys), "a segment");
  double rss = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double r = (a + b * xs[i] - ys[i]) / ys[i];
    rss += r * r;
  }
  return rss;
}

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

double LineFit::bandwidth_mib_s() const noexcept {
  return beta_us_per_byte > 0 ? 1.0 / beta_us_per_byte * 1e6 / static_cast<double>(kMiB) : 0.0;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, FitMethod method,
                 std::string_view what) {
  if (x.size() != y.size()) {
    throw InputError(fmt::format("cannot fit {}: {} sizes but {} times", what, x.size(), y.size()));
  }
  if (x.size() < 2) {
    throw InputError(
        fmt::format("cannot fit {}: {} point(s); a line needs at least 2 sizes", what, x.size()));
  }
  check_times(y, what);
  if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); })) {
    throw InputError(fmt::format(
        "cannot fit {}: every point has the same size ({} B); sweep at least 2 sizes", what, x.front()));
  }
  Eigen::VectorXd w = relative_weights(y);
  auto [alpha, beta] = solve_line(x, y, w, what);
  if (method == FitMethod::kHuber) {
    const Eigen::VectorXd base = w;
    bool converged = false;
    std::vector<double> r(x.size());
    double scale = kRelResolution;
    for (int it = 0; it < kMaxIterations && !converged; ++it) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        r[i] = (alpha + beta * x[i] - y[i]) / y[i];
      }
      if (it < kScaleIterations) {
        std::vector<double> abs_r(r.size());
        std::transform(r.begin(), r.end(), abs_r.begin(), [](double v) { return std::abs(v); });
        scale = std::max(kMadToSigma * detail::median(abs_r), kRelResolution);
      }
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double u = std::abs(r[i]) / scale;
        w(static_cast<Eigen::Index>(i)) =
            base(static_cast<Eigen::Index>(i)) * (u <= kHuberK ? 1.0 : kHuberK / u);
      }
      const auto [a2, b2] = solve_line(x, y, w, what);
      converged = std::abs(a2 - alpha) <= 1e-9 * (std::abs(alpha) + 1e-12) + 1e-12 &&
                  std::abs(b2 - beta) <= 1e-9 * std::abs(beta) + 1e-18;
      alpha = a2;
      beta = b2;
    }
    if (!converged) {
      throw InputError(
          fmt::format("robust fit of {} did not converge in {} iterations: the points are far "
                      "from any line; look at the sweep (gridlock model fit prints the points)",
                      what, kMaxIterations));
    }
  }
  LineFit f;
  f.alpha_us = alpha;
  f.beta_us_per_byte = beta;
  if (!std::isfinite(alpha) || !std::isfinite(beta)) {
    throw InputError(fmt::format("cannot fit {}: the fit is not finite (degenerate input)", what));
  }
  fill_errors(f, x, y);
  return f;
}

std::vector<Segment> fit_segments(const std::vector<std::uint64_t>& sizes, const std::vector<double>& y,
                                  std::string_view what, int max_breaks) {
  const std::size_t m = sizes.size();
  std::vector<double> x(m);
  std::transform(sizes.begin(), sizes.end(), x.begin(),
                 [](std::uint64_t s) { return static_cast<double>(s); });
  const auto whole = [&] {
    return std::vector<Segment>{
        Segment{sizes.front(), sizes.back(), fit_line(x, y, FitMethod::kLeastSquares, what)}};
  };
  const std::size_t max_segments =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(max_breaks, 0)) + 1, m / kMinSegmentPoints);
  if (max_segments <= 1) {
    return whole();
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // cost[i][j]: relative RSS of one line through points i..j (at least kMinSegmentPoints).
  // Flat m*m arrays (row i, column j).
  std::vector<double> cost(m * m, kInf);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = i + kMinSegmentPoints - 1; j < m; ++j) {
      cost[i * m + j] = weighted_rss(x, y, i, j);
    }
  }
  // best[k][j]: lowest cost of points 0..j in k+1 segments; from[k][j]: where the last one starts.
  std::vector<double> best(max_segments * m, kInf);
  std::vector<std::size_t> from(max_segments * m, 0);
  std::copy(cost.begin(), cost.begin() + static_cast<std::ptrdiff_t>(m), best.begin());
  for (std::size_t k = 1; k < max_segments; ++k) {
    for (std::size_t j = 0; j < m; ++j) {
      for (std::size_t s = 1; s <= j; ++s) {
        const double c = best[(k - 1) * m + s - 1] + cost[s * m + j];
        if (c < best[k * m + j]) {
          best[k * m + j] = c;
          from[k * m + j] = s;
        }
      }
    }
  }
  // BIC with Gaussian relative residuals: m ln(RSS/m) + (parameters) ln m, where k segments have
  // 2k line parameters and k-1 break positions.
  const double md = static_cast<double>(m);
  const double floor = md * kRelResolution * kRelResolution;
  std::size_t chosen = 0;
  double chosen_bic = kInf;
  for (std::size_t k = 0; k < max_segments; ++k) {
    if (!std::isfinite(best[k * m + m - 1])) {
      continue;
    }
    const double rss = std::max(best[k * m + m - 1], floor);
    const double bic = md * std::log(rss / md) + static_cast<double>(3 * (k + 1) - 1) * std::log(md);
    if (bic < chosen_bic - 1e-9) {
      chosen_bic = bic;
      chosen = k;
    }
  }
  // BIC alone finds spurious breaks in noisy straight lines (the break positions are searched,
  // which BIC does not charge for), so every break must also be a material jump: the two lines
  // differ at the break's end points by more than 5 residual sigmas and more than 5%.
  for (std::size_t k = chosen; k > 0; --k) {
    std::vector<std::pair<std::size_t, std::size_t>> bounds;
    std::size_t end = m - 1;
    for (std::size_t s = k + 1; s-- > 0;) {
      const std::size_t start = s == 0 ? 0 : from[s * m + end];
      bounds.emplace_back(start, end);
      if (start > 0) {
        end = start - 1;
      }
    }
    std::reverse(bounds.begin(), bounds.end());
    std::vector<Segment> out;
    for (const auto& [i, j] : bounds) {
      const std::vector<double> xs(x.begin() + static_cast<std::ptrdiff_t>(i),
                                   x.begin() + static_cast<std::ptrdiff_t>(j) + 1);
      const std::vector<double> ys(y.begin() + static_cast<std::ptrdiff_t>(i),
                                   y.begin() + static_cast<std::ptrdiff_t>(j) + 1);
      out.push_back(Segment{sizes[i], sizes[j], fit_line(xs, ys, FitMethod::kLeastSquares, what)});
    }
    const double dof = md - static_cast<double>(3 * (k + 1) - 1);
    const double sigma = std::sqrt(std::max(best[k * m + m - 1], floor) / std::max(dof, 1.0));
    bool material = true;
    for (std::size_t s = 0; s + 1 < out.size(); ++s) {
      double jump = 0;
      for (const auto at :
           {static_cast<double>(out[s].to_bytes), static_cast<double>(out[s + 1].from_bytes)}) {
        const double a = out[s].fit.at(at);
        const double b = out[s + 1].fit.at(at);
        jump = std::max(jump, std::abs(b - a) / std::max(std::min(std::abs(a), std::abs(b)), 1e-300));
      }
      material = material && jump > std::max(5 * sigma, 0.05);
    }
    if (material) {
      return out;
    }
  }
  return whole();
}

std::string describe_switch(const Segment& before, const Segment& after) {
  return fmt::format(
      "switch near {} (between {} and {}): alpha jumps from {} to {} us, beta from {} to {} us/B",
      format_bytes(after.from_bytes), format_bytes(before.to_bytes), format_bytes(after.from_bytes),
      fmt_num(before.fit.alpha_us), fmt_num(after.fit.alpha_us), fmt_num(before.fit.beta_us_per_byte),
      fmt_num(after.fit.beta_us_per_byte));
}

SeriesFit fit_series(const Series& series) {
  SeriesFit f;
  f.key = series.key;
  const std::string what = describe(series.key);
  if (series.points.size() < 2) {
    throw InputError(fmt::format("cannot fit op {}: one size measured; sweep at least 2 sizes", what));
  }
  std::vector<double> x;
  for (const Point& p : series.points) {
    f.sizes_bytes.push_back(p.size_bytes);
    f.median_us.push_back(p.median_us);
    x.push_back(static_cast<double>(p.size_bytes));
  }
  f.least_squares = fit_line(x, f.median_us, FitMethod::kLeastSquares, what);
  f.robust = fit_line(x, f.median_us, FitMethod::kHuber, what);
  f.segments = fit_segments(f.sizes_bytes, f.median_us, what);
  return f;
}

std::string_view model_name(CollectiveModel model) {
  switch (model) {
    case CollectiveModel::kBinomialP2p:
      return "binomial";
    case CollectiveModel::kScatterRdP2p:
      return "scatter_rd";
    case CollectiveModel::kScatterRingP2p:
      return "scatter_ring";
    case CollectiveModel::kBinomialDirect:
      return "binomial_fit";
    case CollectiveModel::kPaperDirect:
      return "paper_fit";
  }
  return "?";
}

std::optional<CollectiveModel> parse_model_name(std::string_view name) {
  for (const CollectiveModel m : kAllCollectiveModels) {
    if (model_name(m) == name) {
      return m;
    }
  }
  return std::nullopt;
}

double evaluate(CollectiveModel model, const ModelParams& q, double n, double p) {
  const double lg = std::log2(p);
  const double share = (p - 1) / p;
  switch (model) {
    case CollectiveModel::kBinomialP2p:
    case CollectiveModel::kBinomialDirect:
      return (q.alpha_us + q.beta_us_per_byte * n) * lg;
    case CollectiveModel::kScatterRdP2p:
      return 2 * q.alpha_us * lg + 2 * n * q.beta_us_per_byte * share;
    case CollectiveModel::kScatterRingP2p:
      return q.alpha_us * (lg + p - 1) + 2 * n * q.beta_us_per_byte * share;
    case CollectiveModel::kPaperDirect:
      return q.gamma_us + q.delta_us_per_byte * n + (q.alpha_us + q.beta_us_per_byte * n) * lg;
  }
  return 0;
}

namespace {

// One measured point of a collective: message size n (bytes, also as a double), communicator
// size p, median time t (us).
struct CollectiveObs {
  double n, p, t;
  std::uint64_t size;
};

using ModelSet = std::array<ModelParams, kCollectiveModels>;
using ModelErrors = std::array<std::optional<double>, kCollectiveModels>;

constexpr std::array<CollectiveModel, 3> kP2pModels{
    CollectiveModel::kBinomialP2p, CollectiveModel::kScatterRdP2p, CollectiveModel::kScatterRingP2p};

// The models built on the point-to-point alpha and beta take them from `p2p` (none fitted here).
void set_p2p_models(ModelSet& models, const std::optional<P2pReference>& p2p) {
  for (const CollectiveModel m : kP2pModels) {
    auto& q = models[static_cast<std::size_t>(m)];
    if (p2p) {
      q.available = true;
      q.alpha_us = p2p->alpha_us;
      q.beta_us_per_byte = p2p->beta_us_per_byte;
      q.note = fmt::format("alpha, beta of {} ({})", p2p->op, p2p->pair_class);
    } else {
      q.note = "no pingpong series in the sweep";
    }
  }
}

// binomial_direct: t = (alpha + beta n) log2 p, weighted least squares; alpha only without sizes.
void fit_binomial_direct(ModelParams& q, const std::vector<CollectiveObs>& obs, const Eigen::VectorXd& y,
                         const Eigen::VectorXd& w, bool sized, std::string_view op) {
  const auto rows = static_cast<Eigen::Index>(obs.size());
  Eigen::MatrixXd a(rows, sized ? 2 : 1);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const CollectiveObs& o = obs[static_cast<std::size_t>(i)];
    a(i, 0) = std::log2(o.p);
    if (sized) {
      a(i, 1) = o.n * std::log2(o.p);
    }
  }
  try {
    const Eigen::VectorXd c = detail::weighted_least_squares(
        a, y, w, fmt::format("{} ({})", op, model_name(CollectiveModel::kBinomialDirect)));
    q.available = true;
    q.alpha_us = c(0);
    q.beta_us_per_byte = sized ? c(1) : 0.0;
    q.note = sized ? "fitted" : "fitted (no message size: alpha only)";
  } catch (const InputError& e) {
    q.note = e.what();
  }
}

// paper_fit: t = gamma + delta n + (alpha + beta n) log2 p; needs two communicator sizes.
void fit_paper_direct(ModelParams& q, const std::vector<CollectiveObs>& obs, const Eigen::VectorXd& y,
                      const Eigen::VectorXd& w, bool sized, std::string_view op,
                      const std::vector<std::uint32_t>& ranks) {
  const std::set<std::uint32_t> distinct_p(ranks.begin(), ranks.end());
  if (distinct_p.size() < 2) {
    q.note = "needs at least 2 communicator sizes (gamma and alpha are not separable at one p)";
    return;
  }
  const auto rows = static_cast<Eigen::Index>(obs.size());
  const Eigen::Index cols = sized ? 4 : 2;
  Eigen::MatrixXd a(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const CollectiveObs& o = obs[static_cast<std::size_t>(i)];
    const double lg = std::log2(o.p);
    a(i, 0) = 1.0;
    a(i, 1) = lg;
    if (sized) {
      a(i, 2) = o.n;
      a(i, 3) = o.n * lg;
    }
  }
  try {
    const Eigen::VectorXd c = detail::weighted_least_squares(a, y, w, fmt::format("{} (paper_fit)", op));
    q.available = true;
    q.gamma_us = c(0);
    q.alpha_us = c(1);
    q.delta_us_per_byte = sized ? c(2) : 0.0;
    q.beta_us_per_byte = sized ? c(3) : 0.0;
    q.note = "fitted";
  } catch (const InputError& e) {
    q.note = e.what();
  }
}

// Each available model's median |relative error| over `pts`.
ModelErrors model_errors(const ModelSet& models, const std::vector<const CollectiveObs*>& pts) {
  ModelErrors e;
  for (const CollectiveModel m : kAllCollectiveModels) {
    const auto& q = models[static_cast<std::size_t>(m)];
    if (!q.available) {
      continue;
    }
    std::vector<double> errs;
    errs.reserve(pts.size());
    for (const CollectiveObs* o : pts) {
      errs.push_back(std::abs(evaluate(m, q, o->n, o->p) - o->t) / o->t);
    }
    e[static_cast<std::size_t>(m)] = detail::median(errs);
  }
  return e;
}

// The model with the smallest error (the first of equals); nullopt when none is available.
std::optional<CollectiveModel> best_model(const ModelErrors& e) {
  std::optional<CollectiveModel> b;
  for (const CollectiveModel m : kAllCollectiveModels) {
    const auto& v = e[static_cast<std::size_t>(m)];
    if (v && (!b || *v < *e[static_cast<std::size_t>(*b)])) {
      b = m;
    }
  }
  return b;
}

// Per size: each model's median |relative error| over the communicator sizes; then runs of sizes
// with the same best model become one range.
std::vector<SizeRange> best_model_ranges(const ModelSet& models, const std::vector<CollectiveObs>& obs) {
  std::map<std::uint64_t, std::vector<const CollectiveObs*>> by_size;
  for (const CollectiveObs& o : obs) {
    by_size[o.size].push_back(&o);
  }
  std::vector<SizeRange> ranges;
  std::vector<const CollectiveObs*> run;
  std::optional<CollectiveModel> run_best;
  std::uint64_t run_from = 0;
  std::uint64_t run_to = 0;
  const auto close_run = [&] {
    if (run.empty() || !run_best) {
      return;
    }
    SizeRange r;
    r.from_bytes = run_from;
    r.to_bytes = run_to;
    r.best = *run_best;
    r.median_rel_err = model_errors(models, run);
    ranges.push_back(r);
  };
  for (const auto& [size, pts] : by_size) {
    const auto b = best_model(model_errors(models, pts));
    if (!b) {
      continue;
    }
    if (run.empty() || b != run_best) {
      close_run();
      run.clear();
      run_best = b;
      run_from = size;
    }
    run.insert(run.end(), pts.begin(), pts.end());
    run_to = size;
  }
  close_run();
  return ranges;
}

}  // namespace

std::optional<CollectiveFit> fit_collective(const Sweep& sweep, std::string_view op,
                                            const std::optional<P2pReference>& p2p) {
  std::vector<CollectiveObs> obs;
  CollectiveFit fit;
  fit.op = std::string(op);
  for (const Series& s : sweep.series) {
    if (s.key.kind != "collective" || s.key.op != op || s.key.ranks < 2) {
      continue;
    }
    fit.ranks.push_back(s.key.ranks);
    for (const Point& pt : s.points) {
      obs.push_back({static_cast<double>(pt.size_bytes), static_cast<double>(s.key.ranks), pt.median_us,
                     pt.size_bytes});
    }
  }
  if (obs.empty()) {
    return std::nullopt;
  }
  const bool sized = std::any_of(obs.begin(), obs.end(), [](const CollectiveObs& o) { return o.n > 0; });
  const auto rows = static_cast<Eigen::Index>(obs.size());
  Eigen::VectorXd y(rows);
  Eigen::VectorXd w(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    y(i) = obs[static_cast<std::size_t>(i)].t;
    w(i) = 1.0 / (y(i) * y(i));
  }
  set_p2p_models(fit.models, p2p);
  fit_binomial_direct(fit.models[static_cast<std::size_t>(CollectiveModel::kBinomialDirect)], obs, y, w,
                      sized, op);
  fit_paper_direct(fit.models[static_cast<std::size_t>(CollectiveModel::kPaperDirect)], obs, y, w, sized, op,
                   fit.ranks);
  fit.ranges = best_model_ranges(fit.models, obs);
  std::sort(fit.ranks.begin(), fit.ranks.end());
  return fit;
}

FitResult fit_sweep(const Sweep& sweep) {
  FitResult result;
  result.inputs = sweep.inputs;
  std::set<std::string> collective_ops;
  for (const Series& s : sweep.series) {
    if (s.key.kind == "collective") {
      collective_ops.insert(s.key.op);
    }
    if (s.points.size() == 1 && s.points.front().size_bytes == 0) {
      // Barrier (and any op measured at 0 B only) has no size dimension: no Hockney line.
      result.notes.push_back(fmt::format("{}: measured at 0 B only: no Hockney fit ({} us)", describe(s.key),
                                         fmt_num(s.points.front().median_us)));
      continue;
    }
    if (s.points.size() < 2 && s.left_out > 0) {
      // A failure cut the series short: the sizes measured before it stay in the file, but one
      // point makes no line, and the other series still deserve their fit.
      result.notes.push_back(
          fmt::format("{}: one size measured before {} failed or skipped ones: no Hockney fit",
                      describe(s.key), s.left_out));
      continue;
    }
    result.series.push_back(fit_series(s));
  }
  for (const char* pair : {"far", "router", "node"}) {
    for (const SeriesFit& f : result.series) {
      if (f.key.op == "pingpong" && f.key.pair_class == pair) {
        result.p2p = P2pReference{f.key.op, f.key.pair_class, f.robust.alpha_us, f.robust.beta_us_per_byte};
        break;
      }
    }
    if (result.p2p) {
      break;
    }
  }
  for (const std::string& op : collective_ops) {
    if (auto c = fit_collective(sweep, op, result.p2p)) {
      result.collectives.push_back(std::move(*c));
    } else {
      result.notes.push_back(fmt::format("{}: only measured on 1 rank: no collective model", op));
    }
  }
  // Times within kMaxTimeUs can still fit to lines outside a fit file's ranges (a steep negative
  // slope puts the intercept past 10^9 us): refused here, not written for `model predict` to refuse.
  check_fit_in_range(
      result, sweep.inputs.empty() ? std::string("sweep") : fmt::format("{}", fmt::join(sweep.inputs, ", ")));
  return result;
}

}  // namespace gridlock::model
