#pragma once
/// @file
/// Noise for simulations: a periodic detour pattern in integer picoseconds, built from a trace or
/// from a synthetic model, that answers "CPU work of length d ready at t ends when?".

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/noise/trace_format.hpp"

namespace gridlock::noise {

struct NoiseTrace;

/// Detours that repeat with period `period_ps()`; rank r sees pattern time `t + offset_r`.
///
/// Rule (docs/sim-model.md, "Noise"): CPU work of length d that becomes ready at t first waits
/// for a detour already in progress at t (one with start <= t < end), then runs; every detour that
/// starts in [start, end) of the work extends it by the detour's length (the end moves, so later
/// detours can fall in too). Work of length 0 only waits for a detour in progress.
class DetourPattern {
 public:
  /// An empty pattern (no noise, period 1).
  DetourPattern() = default;

  /// From sorted, non-overlapping detours in [0, period_ps). Throws InputError (naming `source`)
  /// if they are not, if the period is 0, or if the detours cover the whole period.
  DetourPattern(const std::vector<std::uint64_t>& start_ps, const std::vector<std::uint64_t>& length_ps,
                std::uint64_t period_ps, std::string_view source);

  /// From a trace (ns to ps); the period is the trace's duration. Throws InputError for a trace
  /// whose measurement left detours out of the list (it would inject less noise than measured).
  [[nodiscard]] static DetourPattern from_trace(const NoiseTrace& trace, std::string_view source);

  /// One detour of `length_ps` at the start of every period of `period_ps` (periodic noise).
  [[nodiscard]] static DetourPattern periodic(std::uint64_t period_ps, std::uint64_t length_ps);

  /// Random noise: Poisson arrivals at `rate_hz` with lengths of mean `length_ps` (exponential
  /// if `exponential`, else fixed), drawn with `seed` over a horizon of `horizon_ps` (at most
  /// `max_detours` detours), which then repeats. A detour drawn inside the previous one starts
  /// at its end (no overlaps).
  [[nodiscard]] static DetourPattern random(double rate_hz, std::uint64_t length_ps, bool exponential,
                                            std::uint64_t seed, std::uint64_t horizon_ps,
                                            std::uint64_t max_detours = 1'000'000);

  /// Period of the pattern.
  [[nodiscard]] std::uint64_t period_ps() const noexcept { return period_ps_; }
  /// Number of detours per period.
  [[nodiscard]] std::size_t size() const noexcept { return spans_.size(); }
  /// Fraction of the period taken by detours.
  [[nodiscard]] double noise_fraction() const noexcept;
  /// For a pattern read from a trace: `source (format)`, the format as read (detected or given);
  /// empty otherwise.
  [[nodiscard]] const std::string& trace_origin() const noexcept { return trace_origin_; }
  /// Detours as (start, length) in ps, for tests and output.
  [[nodiscard]] std::vector<std::pair<std::uint64_t, std::uint64_t>> detours() const;

  /// Where one caller (one rank) is in the pattern: the next detour that can touch its work, in
  /// pattern time with the period included. An opaque handle: default-construct it (or take one
  /// from cursors_at()) and pass it to every finish() / loggopsim_noise() of that caller.
  ///
  /// It also holds the next few detours, read from the list together with the current one (one
  /// access, usually one cache line): a rank crosses one detour at a time, far apart in the
  /// simulation, and each separate read of a long list would miss the cache again.
  class Cursor {
   public:
    /// A cursor that is not set yet: its first query searches the detour list.
    Cursor() = default;

   private:
    friend class DetourPattern;
    // Detours after `index` a cursor can hold.
    static constexpr std::uint32_t kHeldMax = 3;
    std::uint64_t start = 0;  // pattern time at which detour `index` starts
    std::uint64_t end = 0;    // pattern time at which detour `index` ends
    // Detour `index` is the first to end after any pattern time >= this (max: not set yet).
    std::uint64_t valid_from = ~std::uint64_t{0};
    std::uint32_t index = 0;  // detour within the period
    // How many detours after `index` are held: they are at positions [kHeldMax - held, kHeldMax)
    // of the arrays below, the next one first.
    std::uint32_t held = 0;
    // A held detour starts this long after the end of the one before it...
    std::array<std::uint32_t, kHeldMax> gap_ps{};
    // ...and lasts this long.
    std::array<std::uint32_t, kHeldMax> length_ps{};
  };

  /// Cursors for many callers at once: cursor i is valid from pattern time `positions[i]`, as if
  /// that caller's first finish() were at `positions[i]`. With many callers the positions are
  /// sorted and the detour list is swept once, instead of one binary search each (a long list
  /// read at thousands of random places misses the cache at nearly every step).
  [[nodiscard]] std::vector<Cursor> cursors_at(std::span<const std::uint64_t> positions) const;

  /// End time of CPU work of length `d` ready at `t` for a rank at phase `offset` (< period).
  [[nodiscard]] std::uint64_t finish(std::uint64_t t, std::uint64_t d, std::uint64_t offset) const noexcept {
    Cursor cursor;
    return finish(t, d, offset, cursor);
  }

  /// The same with a per-caller cursor. One rank's queries are nearly monotone in time, so most
  /// are answered from the cursor alone, without touching the (possibly long) detour list;
  /// a query earlier than the cursor's position starts over with a binary search.
  [[nodiscard]] std::uint64_t finish(std::uint64_t t, std::uint64_t d, std::uint64_t offset,
                                     Cursor& cursor) const noexcept {
    const std::uint64_t a = t + offset;
    if (a < cursor.valid_from || cursor.valid_from == ~std::uint64_t{0}) {
      if (spans_.empty()) {
        return t + d;
      }
      seek(a, cursor);
    }
    if (cursor.end <= a || cursor.start < a + d || cursor.start <= a) {
      return finish_slow(a, d, cursor) - offset;
    }
    return t + d;  // The next detour starts at or after the end of the work.
  }

  /// Noise LogGOPSim adds to CPU work of length `d` that starts at `t` (its rule; see
  /// docs/sim-model.md, "Differences"): the rest of a detour in progress at t plus the whole
  /// length of every detour that starts in (t, t + d). The work is not delayed by it and the
  /// detours the added time reaches are not counted. Same cursor as finish().
  [[nodiscard]] std::uint64_t loggopsim_noise(std::uint64_t t, std::uint64_t d, std::uint64_t offset,
                                              Cursor& cursor) const noexcept {
    const std::uint64_t a = t + offset;
    if (a < cursor.valid_from || cursor.valid_from == ~std::uint64_t{0}) {
      if (spans_.empty()) {
        return 0;
      }
      seek(a, cursor);
    }
    if (cursor.end <= a || cursor.start < a + d || cursor.start <= a) {
      return loggopsim_noise_slow(a, d, cursor);
    }
    return 0;
  }

 private:
  struct Span {
    std::uint64_t start;
    std::uint64_t end;
  };
  // Points `cursor` at the first detour ending after pattern time `a`.
  void seek(std::uint64_t a, Cursor& cursor) const noexcept;
  // Moves `cursor` to the next detour (wrapping into the next period).
  void advance(Cursor& cursor) const noexcept;
  // Moves `cursor` to the first detour ending after `a`: a few steps, then a binary search (after
  // a long idle stretch the search is cheaper).
  void catch_up(std::uint64_t a, Cursor& cursor) const noexcept;
  // Points `cursor` at detour `i` of the period starting at pattern time `base`, and fills the
  // detours it holds after it (every move that reads the list goes through here).
  void point_at(Cursor& cursor, std::size_t i, std::uint64_t base) const noexcept;
  // finish() when a detour is in progress at `a` or starts before a + d (pattern time result).
  [[nodiscard]] std::uint64_t finish_slow(std::uint64_t a, std::uint64_t d, Cursor& cursor) const noexcept;
  // loggopsim_noise() when a detour is in progress at `a` or starts before a + d.
  [[nodiscard]] std::uint64_t loggopsim_noise_slow(std::uint64_t a, std::uint64_t d,
                                                   Cursor& cursor) const noexcept;
  // Index of the first detour that ends after pattern position `pos` (< period), or size().
  [[nodiscard]] std::size_t first_ending_after(std::uint64_t pos) const noexcept;

  std::vector<Span> spans_;  // start and end side by side: one cache line per lookup
  std::uint64_t period_ps_ = 1;
  std::string trace_origin_;
};

/// A noise model given on the command line.
struct NoiseSpec {
  enum class Kind { kNone, kTrace, kPeriodic, kRandom };
  Kind kind = Kind::kNone;                  ///< Which model.
  std::string trace_path;                   ///< kTrace: the file.
  TraceFormat format = TraceFormat::kAuto;  ///< kTrace: its format.
  double rate_hz = 0;                       ///< kPeriodic, kRandom: detours per second.
  std::uint64_t length_ps = 0;              ///< kPeriodic, kRandom: (mean) detour length.
  bool exponential = false;                 ///< kRandom: exponential lengths (else fixed).
  /// Human-readable description (for output).
  [[nodiscard]] std::string describe() const;
};

/// Parses `FREQ:LENGTH` for --noise-periodic (e.g. `1000Hz:100us`, `1kHz:100us`).
[[nodiscard]] NoiseSpec parse_periodic_spec(std::string_view text);

/// Parses `RATE:LENGTH[:exp|fixed]` for --noise-random (e.g. `1000Hz:100us:exp`).
[[nodiscard]] NoiseSpec parse_random_spec(std::string_view text);

/// What to add when a run needs noise and none was given (both tools say the same).
inline constexpr std::string_view kHowToGiveNoise =
    "add --noise FILE, --noise-periodic FREQ:LENGTH or --noise-random RATE:LENGTH (e.g. --noise-periodic "
    "1000Hz:100us)";

/// The noise model of the noise options as text: `trace` (--noise FILE, read as `format`, the
/// --noise-format text), `periodic` (--noise-periodic) or `random` (--noise-random); an empty text
/// is an option not given, and kind none means none was. Throws InputError naming the options when
/// more than one is given, or as the parsers do.
[[nodiscard]] NoiseSpec noise_spec_of_options(std::string_view trace, std::string_view format,
                                              std::string_view periodic, std::string_view random);

/// What a run injects, for output: the spec, with a trace's format as it was read.
[[nodiscard]] std::string describe(const NoiseSpec& spec, const DetourPattern& pattern);

/// Builds the pattern of a spec (reads the trace; random patterns are drawn from `seed`).
[[nodiscard]] DetourPattern make_pattern(const NoiseSpec& spec, std::uint64_t seed);

}  // namespace gridlock::noise
