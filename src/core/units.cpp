#include "gridlock/core/units.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock {
namespace {

// Splits "12.5us" into the number and the unit; the number must be non-negative and finite.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what,
                                                 std::string_view example) {
  const auto number = parse_number_prefix<double>(trim(text));
  if (!number) {
    throw InputError(fmt::format("invalid {} '{}': expected a number with an optional unit, e.g. '{}'", what,
                                 text, example));
  }
  if (!std::isfinite(number->value) || number->value < 0) {
    throw InputError(fmt::format("invalid {} '{}': must be a non-negative finite number", what, text));
  }
  return {number->value, trim(number->rest)};
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
                                         {"GB", 1e9},
                                         {"TiB", 1099511627776.0},
                                         {"t", 1099511627776.0},
                                         {"T", 1099511627776.0},
                                         {"TB", 1e12}};
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
  throw InputError(fmt::format(
      "invalid {} '{}': unknown unit '{}' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", what, text, unit));
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

namespace {

// A decimal number as parse_time_ps() reads it: whole and fractional digits and a power of ten.
struct DecimalNumber {
  std::uint64_t whole = 0;
  std::uint64_t fraction = 0;
  int fraction_digits = 0;
  int exponent = 0;
};

// The error parse_time_ps() throws for `text`.
InputError bad_time(std::string_view what, std::string_view text, std::string_view why) {
  return InputError(fmt::format("invalid {} '{}': {}", what, text, why));
}

// Reads the number at the start of `trimmed` (digits, an optional fraction and exponent) and
// leaves `pos` after it.
DecimalNumber scan_decimal(std::string_view trimmed, std::size_t& pos, std::string_view what,
                           std::string_view text) {
  const auto bad = [&](std::string_view why) { return bad_time(what, text, why); };
  DecimalNumber n;
  bool any_digit = false;
  bool overflow = false;
  while (pos < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[pos])) != 0) {
    any_digit = true;
    overflow = overflow || __builtin_mul_overflow(n.whole, 10U, &n.whole) ||
               __builtin_add_overflow(n.whole, static_cast<std::uint64_t>(trimmed[pos] - '0'), &n.whole);
    ++pos;
  }
  if (pos < trimmed.size() && trimmed[pos] == '.') {
    ++pos;
    while (pos < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[pos])) != 0) {
      any_digit = true;
      if (n.fraction_digits >= 18) {
        if (trimmed[pos] != '0') {
          throw bad("more than 18 fractional digits");
        }
      } else {
        n.fraction = n.fraction * 10 + static_cast<std::uint64_t>(trimmed[pos] - '0');
        ++n.fraction_digits;
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
  // Scientific notation: `1e-6s`, `2.5E3ns`. The exponent shifts the decimal point exactly.
  if (pos < trimmed.size() && (trimmed[pos] == 'e' || trimmed[pos] == 'E')) {
    ++pos;
    bool negative = false;
    if (pos < trimmed.size() && (trimmed[pos] == '+' || trimmed[pos] == '-')) {
      negative = trimmed[pos] == '-';
      ++pos;
    }
    const std::size_t start = pos;
    while (pos < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[pos])) != 0) {
      if (n.exponent > 1000) {
        throw bad("exponent out of range");
      }
      n.exponent = n.exponent * 10 + (trimmed[pos] - '0');
      ++pos;
    }
    if (pos == start) {
      throw bad("expected digits after the exponent 'e', e.g. '1e-6s'");
    }
    n.exponent = negative ? -n.exponent : n.exponent;
  }
  return n;
}

// `n` in units of `factor` picoseconds, exactly: throws when it overflows or is not a n.whole
// number of picoseconds.
std::uint64_t scale_to_ps(DecimalNumber n, std::uint64_t factor, std::string_view what,
                          std::string_view text) {
  const auto bad = [&](std::string_view why) { return bad_time(what, text, why); };
  // value = digits * 10^shift * factor, with digits the whole and fractional digits together
  // (trailing zeros of the fraction dropped first: they change nothing and could overflow).
  while (n.fraction_digits > 0 && n.fraction % 10 == 0) {
    n.fraction /= 10;
    --n.fraction_digits;
  }
  std::uint64_t digits = n.whole;
  for (int i = 0; i < n.fraction_digits; ++i) {
    if (__builtin_mul_overflow(digits, 10U, &digits)) {
      throw bad("too large");
    }
  }
  if (__builtin_add_overflow(digits, n.fraction, &digits)) {
    throw bad("too large");
  }
  const int shift = n.exponent - n.fraction_digits;
  if (digits == 0) {
    return 0;
  }
  std::uint64_t result = 0;
  if (shift >= 0) {
    if (__builtin_mul_overflow(digits, factor, &result)) {
      throw bad("too large");
    }
    for (int i = 0; i < shift; ++i) {
      if (__builtin_mul_overflow(result, 10U, &result)) {
        throw bad("too large");
      }
    }
    return result;
  }
  if (-shift > 19) {
    throw bad("not a whole number of picoseconds");
  }
  std::uint64_t scale = 1;
  for (int i = 0; i < -shift; ++i) {
    scale *= 10;
  }
  // digits / scale * factor must be a whole number of picoseconds.
  const std::uint64_t common = std::gcd(factor, scale);
  const std::uint64_t reduced_scale = scale / common;
  if (digits % reduced_scale != 0) {
    throw bad("not a whole number of picoseconds");
  }
  if (__builtin_mul_overflow(digits / reduced_scale, factor / common, &result)) {
    throw bad("too large");
  }
  return result;
}

}  // namespace

std::uint64_t parse_time_ps(std::string_view text, std::string_view what) {
  const std::string_view trimmed = trim(text);
  const auto bad = [&](std::string_view why) { return bad_time(what, text, why); };
  std::size_t pos = 0;
  const DecimalNumber n = scan_decimal(trimmed, pos, what, text);
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
    if (unit.empty() && n.whole == 0 && n.fraction == 0) {
      return 0;
    }
    throw bad(unit.empty() ? std::string("a unit is required (ps, ns, us, ms, s)")
                           : fmt::format("unknown unit '{}' (use ps, ns, us, ms, s)", unit));
  }
  return scale_to_ps(n, factor, what, text);
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

double parse_rate_bytes_per_s(std::string_view text, std::string_view what) {
  const auto [value, raw_unit] = split_number(text, what, "12.5GB/s");
  std::string_view unit = raw_unit;
  if (unit.ends_with("/s")) {
    unit.remove_suffix(2);
  }
  struct Suffix {
    std::string_view name;
    double bytes_per_s;
  };
  // Byte units as parse_byte_size() reads them (`b` is a byte there, kept for old specs), then
  // bit rates with SI prefixes: a lower-case `b` after a prefix, or `bit`, is a bit (1/8 byte).
  static constexpr Suffix kSuffixes[] = {
      {"", 1},          {"B", 1},        {"b", 1},         {"KB", 1e3},     {"kB", 1e3},
      {"MB", 1e6},      {"GB", 1e9},     {"TB", 1e12},     {"KiB", 1024.0}, {"k", 1024.0},
      {"K", 1024.0},    {"MiB", 0x1p20}, {"m", 0x1p20},    {"M", 0x1p20},   {"GiB", 0x1p30},
      {"g", 0x1p30},    {"G", 0x1p30},   {"TiB", 0x1p40},  {"T", 0x1p40},   {"bit", 0.125},
      {"kb", 125.0},    {"Kb", 125.0},   {"kbit", 125.0},  {"Kbit", 125.0}, {"Mb", 1.25e5},
      {"Mbit", 1.25e5}, {"Gb", 1.25e8},  {"Gbit", 1.25e8}, {"Tb", 1.25e11}, {"Tbit", 1.25e11}};
  for (const auto& suffix : kSuffixes) {
    if (unit == suffix.name) {
      const double rate = value * suffix.bytes_per_s;
      if (!(rate > 0) || !std::isfinite(rate)) {
        throw InputError(fmt::format("invalid {} '{}': must be a positive finite rate", what, text));
      }
      return rate;
    }
  }
  throw InputError(fmt::format(
      "invalid {} '{}': unknown unit '{}' (bytes/s: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s .. TiB/s; bits/s: "
      "Mb/s, Gb/s, Tb/s or Mbit/s, Gbit/s, Tbit/s)",
      what, text, raw_unit));
}

namespace {

// `value` scaled by the largest SI prefix that keeps it >= 1, with 4 significant digits.
std::string format_si(double value, std::string_view unit) {
  static constexpr std::pair<double, std::string_view> kPrefixes[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [factor, prefix] : kPrefixes) {
    if (value >= factor) {
      return fmt::format("{:.4g} {}{}", value / factor, prefix, unit);
    }
  }
  return fmt::format("{:.4g} {}", value, unit);
}

}  // namespace

std::string format_rate(double bytes_per_s) { return format_si(bytes_per_s, "B/s"); }

std::string format_bit_rate(double bytes_per_s) { return format_si(bytes_per_s * 8, "b/s"); }

std::string format_duration_s(double seconds) {
  if (!std::isfinite(seconds)) {
    return fmt::format("{}", seconds);
  }
  const double magnitude = std::fabs(seconds);
  static constexpr std::pair<double, std::string_view> kUnits[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}};
  for (const auto& [factor, name] : kUnits) {
    if (magnitude >= factor) {
      return fmt::format("{:.4g} {}", seconds / factor, name);
    }
  }
  return fmt::format("{:.4g} ns", seconds / 1e-9);
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
