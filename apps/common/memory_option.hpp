#pragma once
// --max-memory, as every command that sizes a run from its input takes it: the budget a run's
// estimate (gridlock::MemoryBudget) must fit, so that a few bytes of input never cost gigabytes.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "gridlock/core/memory.hpp"

namespace gridlock::cli {

/// Adds `--max-memory SIZE|PCT` to `cmd`, its text into `text` (empty: the default).
inline CLI::Option* add_max_memory_option(CLI::App& cmd, std::string& text) {
  return cmd.add_option("--max-memory", text,
                        "Refuse a run whose estimated memory exceeds this: a size (8GiB) or a share of "
                        "physical memory (50%); default 80% of physical memory");
}

/// The budget in bytes of a --max-memory text (empty: the option was not given, so
/// default_max_memory_bytes(); check_text_options() refuses an empty value given); throws
/// InputError naming the option when it is malformed.
inline std::uint64_t max_memory_from(const std::string& text) {
  return text.empty() ? default_max_memory_bytes() : parse_max_memory(text);
}

}  // namespace gridlock::cli
