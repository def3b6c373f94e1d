#include "gridlock/core/memory.hpp"

#include <unistd.h>

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock {

std::uint64_t physical_memory_bytes() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) {
    return 0;
  }
  return saturating_mul(static_cast<std::uint64_t>(pages), static_cast<std::uint64_t>(page_size));
}

std::uint64_t default_max_memory_bytes() noexcept {
  const std::uint64_t physical = physical_memory_bytes();
  if (physical == 0) {
    return 4 * kGiB;
  }
  return physical / 5 * 4;
}

namespace {
constexpr std::uint64_t kMaxMemoryLimit =
    std::uint64_t{1024} * 1024 * kGiB;  // 1 PiB: beyond any one machine.

// An estimate is not exact: three significant digits in the largest binary unit read best
// ("3.73 GiB"), where format_bytes() would print every byte of a non-round count.
std::string format_estimate(std::uint64_t bytes) {
  if (bytes == UINT64_MAX) {
    return "more than 16 EiB";
  }
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  // From 999.5 on, three significant digits would print as 1e+03: the next unit reads better.
  while (value >= 999.5 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.3g} {}", value, kUnits[unit]);
}
}  // namespace

std::uint64_t parse_max_memory(std::string_view text, std::string_view option) {
  if (text.ends_with('%')) {
    const std::string_view number = text.substr(0, text.size() - 1);
    const double percent = parse_double(number).value_or(0.0);
    if (!(percent > 0) || percent > 100) {
      throw InputError(
          fmt::format("{} '{}': a percentage of physical memory must be above 0% and at most 100%, "
                      "e.g. 50%",
                      option, text));
    }
    const std::uint64_t physical = physical_memory_bytes();
    if (physical == 0) {
      throw InputError(
          fmt::format("{} '{}': this machine's physical memory cannot be read; give a size such "
                      "as 8GiB",
                      option, text));
    }
    return static_cast<std::uint64_t>(std::floor(static_cast<double>(physical) * percent / 100.0));
  }
  const std::uint64_t bytes = parse_byte_size(text, option);
  if (bytes == 0 || bytes > kMaxMemoryLimit) {
    throw InputError(
        fmt::format("{} '{}': give a size above 0 and at most 1 PiB (e.g. 8GiB), or a "
                    "percentage of physical memory (e.g. 50%)",
                    option, text));
  }
  return bytes;
}

MemoryBudget::MemoryBudget(std::uint64_t limit_bytes, std::string option)
    : limit_bytes_(limit_bytes), option_(std::move(option)) {}

void MemoryBudget::reserve(std::uint64_t bytes, std::string_view what, std::string_view hint) {
  reserved_bytes_ = saturating_add(reserved_bytes_, bytes);
  if (reserved_bytes_ <= limit_bytes_) {
    return;
  }
  throw InputError(fmt::format(
      "{} would need about {} of memory in all (estimated before allocating), more than the limit of {}; {}"
      "raise {} if the machine has the memory (default: 80% of physical memory)",
      what, format_estimate(reserved_bytes_), format_estimate(limit_bytes_),
      hint.empty() ? std::string() : fmt::format("{}, or ", hint), option_));
}

}  // namespace gridlock
