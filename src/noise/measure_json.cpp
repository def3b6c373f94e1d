#include "gridlock/noise/measure_json.hpp"

#include <cmath>

namespace gridlock::noise {
namespace {

Json summary_to_json(const Summary& s) {
  const auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  return Json{{"count", s.count},  {"min", num(s.min)},     {"median", num(s.median)}, {"mean", num(s.mean)},
              {"p99", num(s.p99)}, {"p99_9", num(s.p99_9)}, {"max", num(s.max)}};
}

}  // namespace

Json summary_json(const NoiseSummary& s) {
  return Json{{"t_min_ns", s.t_min_ns},
              {"sampling_rate_hz", s.sampling_rate_hz},
              {"iterations", s.iterations},
              {"measured_s", s.measured_s},
              {"detours", s.detours},
              {"detours_per_s", s.detours_per_s},
              {"noise_fraction", s.noise_fraction},
              {"detour_length_ns", summary_to_json(s.lengths_ns)},
              {"outlier_cutoff_ns", s.outlier_cutoff_ns},
              {"outliers", s.outliers},
              {"noise_fraction_without_outliers", s.noise_fraction_no_outliers},
              {"detour_length_without_outliers_ns", summary_to_json(s.lengths_no_outliers_ns)}};
}

Json measurement_context(const Measurement& m, const MeasureOptions& options) {
  Json context = base_context("gridlock noise measure", schemas::kNoiseMeasure);
  context["timer"] = m.timer.name();
  context["timer_ticks_per_ns"] = m.timer.ticks_per_ns;
  context["cpu"] = m.cpu;
  context["threshold"] = m.threshold;
  context["t_min_ns"] = m.t_min_ns;
  context["calibration_blocks"] = m.calibration.blocks;
  context["duration_s"] = options.duration_s;
  context["max_detours"] = options.max_detours;
  context["detours_not_listed"] = m.detours_not_listed;
  return context;
}

std::string histogram_csv(const Json& context, const Measurement& m) {
  CsvWriter csv(context, {"lower_ns", "upper_ns", "count"});
  for (const auto& row : histogram_rows(m.lengths_ns)) {
    csv.add_row(row);
  }
  return csv.content();
}

}  // namespace gridlock::noise
