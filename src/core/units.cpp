#include "gridlock/core/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
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
    throw InputError(fmt::format("invalid {} '{}': expected a number with an optional unit, e.g. '{}'", what,
                                 text, example));
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
  static constexpr Suffix kSuffixes[] = {{"", 1},
                                         {"B", 1},
                                         {"b", 1},
                                         {"KiB", 1024.0},
                                         {"k", 1024.0},
                                         {"K", 1024.0},
                                         {"KB", 1e3},
                                         {"kB", 1e3},
                                         {"MiB", 1048576.0},
                                         {"m", 1048576.0},
                                         {"M", 1048576.0},
                                         {"MB", 1e6},
                                         {"GiB", 1073741824.0},
                                         {"g", 1073741824.0},
                                         {"G", 1073741824.0},
                                         {"GB", 1e9}};
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
  throw InputError(
      fmt::format("invalid {} '{}': unknown unit '{}' (use B, KiB, MiB, GiB, KB, MB, GB)", what, text, unit));
}

double parse_duration_seconds(std::string_view text, std::string_view what) {
  const auto [value, unit] = split_number(text, what, "10s");
  struct Suffix {
    std::string_view name;
    double seconds;
  };
  static constexpr Suffix kSuffixes[] = {{"", 1.0},    {"s", 1.0},    {"ms", 1e-3}, {"us", 1e-6},
                                         {"ns", 1e-9}, {"min", 60.0}, {"h", 3600.0}};
  for (const auto& suffix : kSuffixes) {
    if (unit == suffix.name) {
      return value * suffix.seconds;
    }
  }
  throw InputError(
      fmt::format("invalid {} '{}': unknown unit '{}' (use s, ms, us, ns, min, h)", what, text, unit));
}

std::uint64_t parse_time_ps(std::string_view text, std::string_view what) {
  const std::string_view trimmed = trim(text);
  const auto bad = [&](std::string_view why) {
    return InputError(fmt::format("invalid {} '{}': {}", what, text, why));
  };
  std::size_t pos = 0;
  std::uint64_t whole = 0;
  std::uint64_t fraction = 0;
  int fraction_digits = 0;
  bool any_digit = false;
  bool overflow = false;
  while (pos < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[pos])) != 0) {
    any_digit = true;
    overflow = overflow || __builtin_mul_overflow(whole, 10U, &whole) ||
               __builtin_add_overflow(whole, static_cast<std::uint64_t>(trimmed[pos] - '0'), &whole);
    ++pos;
  }
  if (pos < trimmed.size() && trimmed[pos] == '.') {
    ++pos;
    while (pos < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[pos])) != 0) {
      any_digit = true;
      if (fraction_digits >= 18) {
        if (trimmed[pos] != '0') {
          throw bad("more than 18 fractional digits");
        }
      } else {
        fraction = fraction * 10 + static_cast<std::uint64_t>(trimmed[pos] - '0');
        ++fraction_digits;
      }
      ++pos;
    }
  }
  if (!any_digit) {
    throw bad("expected a non-negative number with a unit, e.g. '2.5us'");
  }
  if (overflow) {
    throw bad("too large");
  }
  const std::string_view unit = trim(trimmed.substr(pos));
  struct Suffix {
    std::string_view name;
    std::uint64_t ps;
  };
  static constexpr Suffix kSuffixes[] = {
      {"ps", 1}, {"ns", 1000}, {"us", 1000000}, {"ms", 1000000000}, {"s", 1000000000000}};
  std::uint64_t factor = 0;
  for (const auto& suffix : kSuffixes) {
    if (unit == suffix.name) {
      factor = suffix.ps;
    }
  }
  if (factor == 0) {
    if (unit.empty() && whole == 0 && fraction == 0) {
      return 0;
    }
    throw bad(unit.empty() ? std::string("a unit is required (ps, ns, us, ms, s)")
                           : fmt::format("unknown unit '{}' (use ps, ns, us, ms, s)", unit));
  }
  std::uint64_t result = 0;
  if (__builtin_mul_overflow(whole, factor, &result)) {
    throw bad("too large");
  }
  if (fraction_digits > 0) {
    std::uint64_t scale = 1;
    for (int i = 0; i < fraction_digits; ++i) {
      scale *= 10;
    }
    // fraction / scale * factor must be a whole number of picoseconds.
    const std::uint64_t common = std::gcd(factor, scale);
    const std::uint64_t reduced_scale = scale / common;
    if (fraction % reduced_scale != 0) {
      throw bad("not a whole number of picoseconds");
    }
    std::uint64_t part = 0;
    if (__builtin_mul_overflow(fraction / reduced_scale, factor / common, &part) ||
        __builtin_add_overflow(result, part, &result)) {
      throw bad("too large");
    }
  }
  return result;
}

std::string format_time_ps(std::uint64_t ps) {
  struct Unit {
    std::string_view name;
    std::uint64_t ps;
  };
  static constexpr Unit kUnits[] = {{"s", 1000000000000}, {"ms", 1000000000}, {"us", 1000000}, {"ns", 1000}};
  for (const auto& unit : kUnits) {
    if (ps >= unit.ps) {
      const std::uint64_t whole = ps / unit.ps;
      std::uint64_t rest = ps % unit.ps;
      if (rest == 0) {
        return fmt::format("{} {}", whole, unit.name);
      }
      int digits = 0;
      for (std::uint64_t f = unit.ps; f > 1; f /= 10) {
        ++digits;
      }
      std::string frac = fmt::format("{:0{}}", rest, digits);
      while (!frac.empty() && frac.back() == '0') {
        frac.pop_back();
      }
      return fmt::format("{}.{} {}", whole, frac, unit.name);
    }
  }
  return fmt::format("{} ps", ps);
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
