// libFuzzer target for the small input languages users type or feed in besides GOAL: noise traces
// (three formats), --noise-periodic/--noise-random specs, sizes, durations and times, and program
// specs (gridlock sim --program). Any input must be rejected with InputError or accepted; an
// accepted trace must write and re-read to the same detours.
//
// The first byte picks the parser, the rest is its text (seed corpus: tests/fuzz/inputs-corpus).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/noise/trace.hpp"
#include "gridlock/sim/generate.hpp"

namespace {

namespace noise = gridlock::noise;

// Parses `text` as a trace in `format`; an accepted trace must validate, and must come back
// unchanged from gridlock's own format.
void fuzz_trace(std::string_view text, noise::TraceFormat format) {
  const noise::NoiseTrace trace = noise::parse_trace(text, format, "fuzz");
  noise::NoiseTrace again;
  try {
    noise::validate_trace(trace, "fuzz");
    again = noise::parse_trace(noise::format_trace(trace, noise::TraceFormat::kGridlock),
                               noise::TraceFormat::kGridlock, "fuzz");
  } catch (const gridlock::InputError&) {
    std::abort();  // an accepted trace failed to validate or to re-read
  }
  if (again.detours != trace.detours || again.duration_ns != trace.duration_ns ||
      again.detours_not_listed != trace.detours_not_listed) {
    std::abort();  // the round trip through gridlock's format changed the trace
  }
}

// Parses a noise spec; an accepted one must describe itself and build its pattern.
void fuzz_noise_spec(std::string_view text, bool random) {
  const noise::NoiseSpec spec = random ? noise::parse_random_spec(text) : noise::parse_periodic_spec(text);
  const noise::DetourPattern pattern = noise::make_pattern(spec, 1);
  if (noise::describe(spec, pattern).empty()) {
    std::abort();
  }
}

// Parses sizes and times; a time that parses must format to text that parses.
void fuzz_units(std::string_view text) {
  try {
    (void)gridlock::parse_byte_size(text);
  } catch (const gridlock::InputError&) {
  }
  try {
    (void)gridlock::parse_duration_seconds(text);
  } catch (const gridlock::InputError&) {
  }
  const std::uint64_t ps = gridlock::parse_time_ps(text);
  (void)gridlock::parse_time_ps(gridlock::format_time_ps(ps));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) {
    return 0;
  }
  const std::uint8_t which = data[0];
  // Ranks for program specs: 1 .. 65,536, from two bytes (checking is cheap at any scale).
  const std::uint32_t ranks = 1U + (static_cast<std::uint32_t>(data[1]) | (std::uint32_t{data[2]} << 8U));
  const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
  try {
    switch (which % 8) {
      case 0:
        fuzz_trace(text, noise::TraceFormat::kAuto);
        break;
      case 1:
        fuzz_trace(text, noise::TraceFormat::kGridlock);
        break;
      case 2:
        fuzz_trace(text, noise::TraceFormat::kNetgauge);
        break;
      case 3:
        fuzz_trace(text, noise::TraceFormat::kLoggopsim);
        break;
      case 4:
        fuzz_noise_spec(text, false);
        break;
      case 5:
        fuzz_noise_spec(text, true);
        break;
      case 6:
        fuzz_units(text);
        break;
      default:
        gridlock::sim::check_program(text, ranks, 1);
        break;
    }
  } catch (const gridlock::InputError&) {
    // Rejected with a message: the expected outcome for bad input.
  }
  return 0;
}
