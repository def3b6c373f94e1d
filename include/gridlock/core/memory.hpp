#pragma once
/// @file
/// Memory budgets: a run estimates what it will allocate before allocating it, and refuses with the
/// estimate and the option to change when the estimate exceeds the budget (`--max-memory`), so that a
/// few bytes of input (`num_ranks 100000000`) never cost gigabytes.

#include <cstdint>
#include <string>
#include <string_view>

namespace gridlock {

/// Physical memory of this machine in bytes (0 when it cannot be read).
[[nodiscard]] std::uint64_t physical_memory_bytes() noexcept;

/// The default memory budget of a run: 80% of physical memory (4 GiB when it cannot be read).
[[nodiscard]] std::uint64_t default_max_memory_bytes() noexcept;

/// Parses a `--max-memory` value: a byte size (`8GiB`, `500MB`) or a percentage of physical memory
/// (`50%`). Throws InputError naming `option` when malformed, zero, or above 1 PiB.
[[nodiscard]] std::uint64_t parse_max_memory(std::string_view text, std::string_view option = "--max-memory");

/// Saturating arithmetic for size estimates: the result is UINT64_MAX instead of wrapping.
[[nodiscard]] constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > UINT64_MAX / a) {
    return UINT64_MAX;
  }
  return a * b;
}

/// Saturating addition for size estimates (see saturating_mul).
[[nodiscard]] constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/// A run's memory budget: callers add the estimated bytes of each large structure before they
/// allocate it; the first estimate that takes the total past the limit throws InputError naming what
/// was being sized, the estimate, the limit, and how to change it.
class MemoryBudget {
 public:
  /// A budget of `limit_bytes`; `option` is how the user changes it (named in the error).
  explicit MemoryBudget(std::uint64_t limit_bytes, std::string option = "--max-memory");

  /// Adds `bytes` for `what` (e.g. "the schedule of 100000000 ranks") and throws InputError when the
  /// running total exceeds the limit. `hint` (optional) names a smaller setting that would fit.
  void reserve(std::uint64_t bytes, std::string_view what, std::string_view hint = {});

  /// Bytes reserved so far (saturating).
  [[nodiscard]] std::uint64_t reserved_bytes() const noexcept { return reserved_bytes_; }
  /// The limit in bytes.
  [[nodiscard]] std::uint64_t limit_bytes() const noexcept { return limit_bytes_; }

 private:
  std::uint64_t limit_bytes_;
  std::uint64_t reserved_bytes_ = 0;
  std::string option_;
};

}  // namespace gridlock
