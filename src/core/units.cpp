#include "gridlock/core/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

// Splits "12.5us" into the number and the unit; the number must be non-negative and finite.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what,
                                                 std::string_view example) {
  const std::string_view trimmed = trim(text);
  double value = 0;
  const auto* first = trimmed.data();
  const auto* last = trimmed.data() + trimmed.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc{} || trimmed.empty()) {
    throw InputError(fmt::format("invalid {} '{}': expected a number with an optional unit, e.g. '{}'",
                                 what, text, example));
  }
  if (!std::isfinite(value) || value < 0) {
    throw InputError(fmt::format("invalid {} '{}': must be a non-negative finite number", what, text));
  }
  return {value, trim(std::string_view(ptr, static_cast<std::size_t>(last - ptr)))};
}

}  // namespace

std::uint64_t parse_byte_size(std::string_view text, std::string_view what) {
  const auto [value, unit] = split_number(text, what, "128KiB");
  struct Suffix {
    std::string_view name;
    double factor;
  };
  static constexpr Suffix kSuffixes[] = {
      {"", 1},          {"B", 1},         {"b", 1},         {"KiB", 1024.0},  {"k", 1024.0},
      {"K", 1024.0},    {"KB", 1e3},      {"kB", 1e3},      {"MiB", 1048576.0}, {"m", 1048576.0},
      {"M", 1048576.0}, {"MB", 1e6},      {"GiB", 1073741824.0}, {"g", 1073741824.0},
      {"G", 1073741824.0}, {"GB", 1e9}};
  for (const auto& suffix : kSuffixes) {
    if (unit != suffix.name) {
      continue;
    }
    const double bytes = value * suffix.factor;
    if (bytes != std::floor(bytes)) {
      throw InputError(fmt::format("invalid {} '{}': not a whole number of bytes", what, text));
    }
    if (bytes >= 0x1p64) {
      throw InputError(fmt::format("invalid {} '{}': too large", what, text));
    }
    return static_cast<std::uint64_t>(bytes);
  }
  throw InputError(fmt::format("invalid {} '{}': unknown unit '{}' (use B, KiB, MiB, GiB, KB, MB, GB)",
                               what, text, unit));
}

double parse_duration_seconds(std::string_view text, std::string_view what) {
  const auto [value, unit] = split_number(text, what, "10s");
  struct Suffix {
    std::string_view name;
    double seconds;
  };
  static constexpr Suffix kSuffixes[] = {{"", 1.0},     {"s", 1.0},     {"ms", 1e-3}, {"us", 1e-6},
                                         {"ns", 1e-9},  {"min", 60.0},  {"h", 3600.0}};
  for (const auto& suffix : kSuffixes) {
    if (unit == suffix.name) {
      return value * suffix.seconds;
    }
  }
  throw InputError(fmt::format("invalid {} '{}': unknown unit '{}' (use s, ms, us, ns, min, h)", what,
                               text, unit));
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes >= kGiB && bytes % kGiB == 0) {
    return fmt::format("{} GiB", bytes / kGiB);
  }
  if (bytes >= kMiB && bytes % kMiB == 0) {
    return fmt::format("{} MiB", bytes / kMiB);
  }
  if (bytes >= kKiB && bytes % kKiB == 0) {
    return fmt::format("{} KiB", bytes / kKiB);
  }
  return fmt::format("{} B", bytes);
}

}  // namespace gridlock
