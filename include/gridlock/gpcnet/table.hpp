#pragma once
/// @file
/// The GPCNeT-style text tables (`| name | avg | 99% | units |`): gridlock-bench's congestion
/// tables (results.hpp) and spmv's table print them with these pieces.

#include <cstdio>
#include <string>
#include <string_view>

namespace gridlock::gpcnet {

/// The bar above a table's title, 80 characters wide.
inline constexpr std::string_view kOuterBar =
    "+------------------------------------------------------------------------------+";
/// The bar between the rows of a name + three columns table.
inline constexpr std::string_view kInnerBar =
    "+---------------------------------+--------------+--------------+--------------+";

/// A number right-aligned in `width` with one decimal; NaN and infinities as `-`.
[[nodiscard]] std::string table_cell(double value, int width);

/// Prints the outer bar and `title` centred under it (cut to the table's width).
void print_table_title(std::FILE* out, std::string_view title);

}  // namespace gridlock::gpcnet
