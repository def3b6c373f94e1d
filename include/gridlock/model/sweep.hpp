#pragma once
/// @file
/// Reading sweep results (schema `gridlock.sweep` v1 and v2, docs/formats/sweep-json.md) into series
/// of (size, median time) points for the Hockney and collective fits and the guideline checks.

#include <compare>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/output.hpp"

namespace gridlock::model {

/// The longest time a sweep or fit file holds for one operation: 10^9 us (1000 s). Longer is no
/// network's latency, and fits of such times leave the ranges a fit file can hold.
inline constexpr double kMaxTimeUs = 1e9;

/// What identifies one measured curve: every record with the same key is one point per size.
struct SeriesKey {
  std::string kind;         ///< `p2p`, `rma` or `collective`.
  std::string op;           ///< `pingpong`, `allreduce`, ...
  std::uint32_t ranks = 0;  ///< Communicator size.
  std::string pair_class;   ///< `node`, `router`, `far`; empty for collectives.
  /// Orders keys by kind, op, ranks, pair class.
  auto operator<=>(const SeriesKey&) const = default;  // NOLINT(modernize-use-nullptr)
};

/// A key as people read it: `pingpong (far)` or `allreduce p=4`.
[[nodiscard]] std::string describe(const SeriesKey& key);

/// One message size of a series, repeats pooled.
struct Point {
  std::uint64_t size_bytes = 0;           ///< Message size (collectives: bytes per rank).
  double median_us = 0;                   ///< Median of the records' medians (one record per repeat).
  std::vector<double> record_medians_us;  ///< Each pooled record's median (repeats, files).
  std::vector<double> samples_us;         ///< Every sample of every repeat, when the sweep kept them.
};

/// One measured curve: points sorted by size, sizes distinct.
struct Series {
  SeriesKey key;              ///< What was measured.
  std::vector<Point> points;  ///< Sorted by size_bytes.
  std::size_t left_out = 0;   ///< Failed or skipped records of this series (not in `points`).
};

/// One or more sweep files read and merged.
struct Sweep {
  std::vector<Series> series;         ///< Sorted by key.
  std::vector<std::string> inputs;    ///< The files read, in order.
  Json context;                       ///< The first file's context block.
  std::vector<std::string> warnings;  ///< Mismatched contexts and suspicious data.
  /// The series with this key, or nullptr.
  [[nodiscard]] const Series* find(const SeriesKey& key) const;
  /// The collective series of `op` on `ranks` ranks, or nullptr.
  [[nodiscard]] const Series* find_collective(std::string_view op, std::uint32_t ranks) const;
};

/// Parses one sweep document (`name` is used in messages). Throws InputError naming the file
/// and record index: wrong schema, missing or mistyped fields, times that are zero, negative,
/// not finite or above kMaxTimeUs, the same (kind, op, size, ranks, pair class, repeat) twice. Failed and
/// skipped records (v2 `status`) are left out with one warning naming how many; none left is an error. A
/// cut-short (partial) file gives a warning.
[[nodiscard]] Sweep parse_sweep(std::string_view text, std::string_view name);

/// Reads and merges sweep files: records of the same key and size from several files are pooled
/// like repeats. Contexts that differ in host, mpi_library or ranks give a warning naming the
/// files and values (in Sweep::warnings), not an error; so does a time that falls by more than
/// half from one size to the next (warn_non_monotone). Throws IoError / InputError.
[[nodiscard]] Sweep load_sweeps(const std::vector<std::filesystem::path>& paths);

/// Adds a warning to `sweep` for every series whose pooled time falls by more than half from one
/// size to the next larger one.
void warn_non_monotone(Sweep& sweep);

/// Merges `more` into `into` (same pooling and warnings as load_sweeps).
void merge_sweep(Sweep& into, Sweep more);

}  // namespace gridlock::model
