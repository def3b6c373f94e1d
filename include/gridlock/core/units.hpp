#pragma once
/// @file
/// Parsing and formatting of quantities with units (byte sizes, durations).

#include <cstdint>
#include <string>
#include <string_view>

namespace gridlock {

/// Bytes in one KiB / MiB / GiB.
inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;  ///< Bytes in one MiB.
inline constexpr std::uint64_t kGiB = 1024 * kMiB;  ///< Bytes in one GiB.

/// Parses a byte size such as `8`, `8B`, `4KiB`, `4k`, `128KiB`, `8MiB`, `1GiB`, `2TB`.
/// Binary suffixes (KiB, MiB, GiB, TiB, and the shorthands k, K, m, M, g, G, t, T) are powers of
/// 1024; SI suffixes (KB, MB, GB, TB) are powers of 1000. Throws InputError naming `what` on
/// malformed, negative or overflowing input.
[[nodiscard]] std::uint64_t parse_byte_size(std::string_view text, std::string_view what = "size");

/// Parses a duration such as `10`, `10s`, `500ms`, `2.5us`, `100ns`, `1e-6s`, `1.5min` and returns
/// seconds.
/// A bare number is seconds. Throws InputError naming `what` on malformed or negative input.
[[nodiscard]] double parse_duration_seconds(std::string_view text, std::string_view what = "duration");

/// Parses an exact time such as `2.5us`, `6ns`, `0.25ns`, `1500ps`, `1ms`, `2s`, `1e-6s`, `2.5E3ns`
/// into integer picoseconds, without floating point (the exponent shifts the decimal point). A unit (ps, ns,
/// us, ms, s) is required except for `0`. Throws InputError naming `what` on malformed, negative,
/// fractional-picosecond or overflowing input.
[[nodiscard]] std::uint64_t parse_time_ps(std::string_view text, std::string_view what = "time");

/// Formats a picosecond count for people with the largest unit that keeps it exact enough:
/// `2.5 us`, `6 ns`, `250 ps`, `1.000000001 s`.
[[nodiscard]] std::string format_time_ps(std::uint64_t ps);

/// Parses a data rate into bytes/s: a number (exponents allowed: `4.5e9`) with an optional unit and
/// optional `/s`. Byte rates: `B`, `KB`, `MB`, `GB`, `TB` (powers of 1000), `KiB` .. `TiB` and the
/// shorthands `k`, `M`, `G`, `T` (powers of 1024). Bit rates: `Mb`, `Gb`, `Tb` or `Mbit`, `Gbit`,
/// `Tbit` (powers of 1000, 8 bits a byte): `100Gb/s` is 12.5e9 bytes/s. Throws InputError naming
/// `what` unless the rate is positive and finite.
[[nodiscard]] double parse_rate_bytes_per_s(std::string_view text, std::string_view what = "rate");

/// Formats a rate in bytes/s with an SI prefix and 4 significant digits: `12.5 GB/s`.
[[nodiscard]] std::string format_rate(double bytes_per_s);

/// Formats a rate given in bytes/s as bits/s: `100 Gb/s` for 12.5e9 bytes/s.
[[nodiscard]] std::string format_bit_rate(double bytes_per_s);

/// The one style of a duration in seconds in tables: the largest of s, ms, us, ns that keeps the
/// value >= 1, with 4 significant digits: `1.5 us`, `250 ns`, `2.003 s`.
[[nodiscard]] std::string format_duration_s(double seconds);

/// Formats a byte count for people: `4 KiB`, `128 KiB`, `8 MiB`, or `1000 B` when not a round unit.
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);

}  // namespace gridlock
