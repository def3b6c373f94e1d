#include "gridlock/gpcnet/table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gridlock::gpcnet {

std::string table_cell(double value, int width) {
  return std::isfinite(value) ? fmt::format("{:>{}.1f}", value, width) : fmt::format("{:>{}}", "-", width);
}

void print_table_title(std::FILE* out, std::string_view title) {
  fmt::print(out, "\n{}\n", kOuterBar);
  const std::size_t inner = kOuterBar.size() - 4;
  const std::string_view shown = title.substr(0, inner);
  const std::size_t left = (inner - std::min(inner, shown.size())) / 2;
  fmt::print(out, "| {:<{}}{:<{}} |\n", "", left, shown, inner - left);
}

}  // namespace gridlock::gpcnet
