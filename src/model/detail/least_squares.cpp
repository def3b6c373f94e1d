#include "detail/least_squares.hpp"

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::model::detail {

Eigen::VectorXd weighted_least_squares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                       const Eigen::VectorXd& w, std::string_view what) {
  const Eigen::Index cols = x.cols();
  if (x.rows() < cols) {
    throw InputError(fmt::format("cannot fit {}: {} points for {} parameters; measure more sizes or ranks",
                                 what, x.rows(), cols));
  }
  Eigen::VectorXd scale(cols);
  for (Eigen::Index c = 0; c < cols; ++c) {
    const double m = x.col(c).cwiseAbs().maxCoeff();
    scale(c) = m > 0 ? m : 1.0;
  }
  const Eigen::VectorXd sw = w.cwiseSqrt();
  const Eigen::MatrixXd a = sw.asDiagonal() * x * scale.cwiseInverse().asDiagonal();
  const Eigen::VectorXd b = sw.cwiseProduct(y);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-10);
  if (qr.rank() < cols) {
    throw InputError(
        fmt::format("cannot fit {}: the points do not determine the {} parameters (degenerate: "
                    "e.g. every size equal, or one communicator size); measure more sizes or "
                    "communicator sizes",
                    what, cols));
  }
  Eigen::VectorXd coef = qr.solve(b);
  return coef.cwiseQuotient(scale);
}

}  // namespace gridlock::model::detail
