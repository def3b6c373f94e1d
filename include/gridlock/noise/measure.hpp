#pragma once
/// @file
/// The selfish-detour measurement (Hoefler et al., SC10, §II): read a timer back to back and
/// record every gap longer than threshold × t_min as a detour.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gridlock/core/histogram.hpp"
#include "gridlock/core/stats.hpp"
#include "gridlock/noise/timer.hpp"
#include "gridlock/noise/trace.hpp"

namespace gridlock::noise {

/// Measurement parameters.
struct MeasureOptions {
  double duration_s = 10.0;                       ///< Measured span (the calibration comes on top).
  double threshold = 9.0;                         ///< A gap > threshold × t_min is a detour.
  int cpu = -1;                                   ///< Pin to this CPU first (-1: do not pin; below: error).
  TimerChoice timer = TimerChoice::kAuto;         ///< Which clock to read.
  std::uint64_t max_detours = 1'000'000;          ///< Detours kept in the list; later ones are summarised.
  std::uint32_t calibration_block = 1000;         ///< Back-to-back reads per calibration block.
  std::uint32_t calibration_stable_blocks = 200;  ///< Stop after this many blocks without a new minimum.
};

/// t_min calibration result.
struct Calibration {
  std::uint64_t t_min_ticks = 0;  ///< Smallest block_t_min over the blocks run.
  std::uint64_t blocks = 0;       ///< Blocks run until the minimum stopped improving.
};

/// Everything one measurement produced.
struct Measurement {
  Timer timer;                           ///< The clock read, with its calibration.
  Calibration calibration;               ///< t_min in ticks.
  double t_min_ns = 0;                   ///< t_min in ns.
  double threshold = 9.0;                ///< Threshold factor used.
  int cpu = -1;                          ///< CPU pinned to (-1: none).
  std::uint64_t iterations = 0;          ///< Timer reads in the measured span.
  std::uint64_t measured_ns = 0;         ///< Measured span in ns.
  std::uint64_t detour_count = 0;        ///< All detours, also those beyond max_detours.
  std::uint64_t detour_total_ns = 0;     ///< Sum of all detour lengths in ns.
  std::uint64_t detours_not_listed = 0;  ///< Detours beyond max_detours (counted, not in `trace`).
  LogHistogram lengths_ns;               ///< Lengths of all detours in ns.
  NoiseTrace trace;                      ///< The first max_detours detours, duration = measured_ns.
};

/// t_min of one calibration block from the gaps between its back-to-back reads (reordered): the
/// median of the positive gaps, the loop's time per read. Not their minimum: the TSC is read out of
/// order, and on an AMD EPYC VM one gap in ten was 1 tick (the next one 25, the usual gap 26), so
/// t_min was 1 tick and every iteration of the loop a detour. 0 if no gap is positive.
[[nodiscard]] std::uint64_t block_t_min(std::span<std::uint64_t> gaps);

/// Calibrates t_min: blocks of back-to-back reads until `stable_blocks` blocks in a row bring no
/// new minimum of block_t_min (or 2 s pass).
[[nodiscard]] Calibration calibrate(const Timer& timer, std::uint32_t block, std::uint32_t stable_blocks);

/// Pins the calling thread to `cpu` (sched_setaffinity). Throws InputError if that fails.
void pin_to_cpu(int cpu);

/// Throws InputError naming the option (--duration, --threshold, --cpu) unless `options` can be
/// measured with; callers check before announcing a measurement.
void check_measure_options(const MeasureOptions& options);

/// Throws InputError naming --outlier-cutoff unless `cutoff_s` is 0 (off) or a length a detour
/// can have: at most a day, the longest measurement (1e30s was shown as "9223372.04 s").
void check_outlier_cutoff(double cutoff_s);

/// Runs the selfish-detour loop (after pinning and calibrating). Throws InputError for bad options
/// (check_measure_options) and if pinning fails.
[[nodiscard]] Measurement measure(const MeasureOptions& options);

/// Summary of a measurement, as printed and written to JSON.
struct NoiseSummary {
  double t_min_ns = 0;                    ///< Loop overhead.
  double sampling_rate_hz = 0;            ///< iterations / measured time.
  std::uint64_t iterations = 0;           ///< Timer reads.
  double measured_s = 0;                  ///< Measured span.
  std::uint64_t detours = 0;              ///< Detour count.
  double detours_per_s = 0;               ///< Detour rate.
  double noise_fraction = 0;              ///< Total detour time / measured time.
  Summary lengths_ns;                     ///< Detour length percentiles (ns).
  double outlier_cutoff_ns = 0;           ///< Detours longer than this are outliers (0: none).
  std::uint64_t outliers = 0;             ///< Detours above the cut-off.
  double noise_fraction_no_outliers = 0;  ///< Noise fraction without the outliers.
  Summary lengths_no_outliers_ns;         ///< Percentiles without the outliers.
};

/// Summarises a measurement; outliers (detours longer than `outlier_cutoff_ns`, if > 0) are
/// taken from the listed detours plus, for unlisted ones, the histogram.
[[nodiscard]] NoiseSummary summarize(const Measurement& m, double outlier_cutoff_ns);

/// The console report of `gridlock noise measure`: the timer, t_min and threshold, the rates, the
/// detour-length table (and, with a cut-off, the one without outliers) and a note on detours left
/// out of the trace; one line each, every line ending in a newline.
[[nodiscard]] std::string measurement_text(const Measurement& m, const NoiseSummary& s);

/// CSV rows `lower_ns,upper_ns,count` of the non-empty histogram buckets.
[[nodiscard]] std::vector<std::vector<std::string>> histogram_rows(const LogHistogram& h);

}  // namespace gridlock::noise
