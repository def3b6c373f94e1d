#pragma once
// The GPCNeT-style text tables of gridlock-bench (`| name | avg | 99% | units |`), shared by the
// congestion tables (results.cpp) and spmv's table.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace gridlock::gpcnet::detail {

/// The bar above a table's title, 80 characters wide.
inline constexpr std::string_view kOuterBar =
    "+------------------------------------------------------------------------------+";
/// The bar between the rows of a name + three columns table.
inline constexpr std::string_view kInnerBar =
    "+---------------------------------+--------------+--------------+--------------+";

/// A number right-aligned in `width` with one decimal; NaN and infinities as `-`.
inline std::string table_cell(double value, int width) {
  return std::isfinite(value) ? fmt::format("{:>{}.1f}", value, width) : fmt::format("{:>{}}", "-", width);
}

/// Prints the outer bar and `title` centred under it (cut to the table's width).
inline void print_table_title(std::FILE* out, std::string_view title) {
  fmt::print(out, "\n{}\n", kOuterBar);
  const std::size_t inner = kOuterBar.size() - 4;
  const std::string_view shown = title.substr(0, inner);
  const std::size_t left = (inner - std::min(inner, shown.size())) / 2;
  fmt::print(out, "| {:<{}}{:<{}} |\n", "", left, shown, inner - left);
}

}  // namespace gridlock::gpcnet::detail
