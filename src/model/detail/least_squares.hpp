#pragma once
// Weighted linear least squares through Eigen (column-pivoting QR), with a rank check so that a
// degenerate design (all sizes equal, one communicator size for a model that needs two) is an
// error rather than NaN parameters.

#include <string_view>
#include <vector>

#include <Eigen/Dense>

namespace gridlock::model::detail {

// Minimises sum_i w_i (y_i - X_i b)^2. Throws InputError naming `what` when X does not have full
// column rank. Columns are scaled to unit maximum first: sizes reach 2^26 bytes next to a column
// of ones, and the rank decision must not depend on the unit.
[[nodiscard]] Eigen::VectorXd weighted_least_squares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                                     const Eigen::VectorXd& w, std::string_view what);

}  // namespace gridlock::model::detail
