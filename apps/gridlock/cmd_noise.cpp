// `gridlock noise measure|convert`: selfish-detour noise measurement and noise-trace conversion.
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/noise/measure.hpp"
#include "gridlock/noise/measure_json.hpp"
#include "gridlock/noise/trace.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct MeasureArgs {
  std::string duration = "10s";
  double threshold = 9.0;
  int cpu = -1;
  std::string timer = "auto";
  std::uint64_t max_detours = 1'000'000;
  std::string outlier_cutoff = "1s";
  std::string json;
  std::string trace;
  std::string trace_format = "gridlock";
  std::string histogram;
  bool quiet = false;
};

struct NoiseConvertArgs {
  std::string input;
  std::string output;
  std::string from = "auto";
  std::string to = "gridlock";
};

void run_measure(const MeasureArgs& a) {
  noise::MeasureOptions o;
  o.duration_s = parse_duration_seconds(a.duration, "--duration");
  o.threshold = a.threshold;
  o.cpu = a.cpu;
  o.timer = noise::parse_timer_choice(a.timer);
  o.max_detours = a.max_detours;
  const double cutoff_s = parse_duration_seconds(a.outlier_cutoff, "--outlier-cutoff");
  const double cutoff_ns = cutoff_s * 1e9;
  const noise::TraceFormat trace_format = noise::parse_trace_format(a.trace_format, "--trace-format");
  if (trace_format == noise::TraceFormat::kAuto) {
    throw InputError("--trace-format: choose gridlock, netgauge or loggopsim");
  }
  // Every option is checked before the run is announced.
  noise::check_measure_options(o);
  noise::check_outlier_cutoff(cutoff_s);
  for (const std::string& path : {a.json, a.trace, a.histogram}) {
    if (!path.empty()) {
      check_writable(path);
    }
  }
  if (!a.quiet) {
    fmt::print(stderr, "measuring noise for {} s{}...\n", o.duration_s,
               o.cpu >= 0 ? fmt::format(" on CPU {}", o.cpu) : std::string());
  }
  noise::Measurement m = noise::measure(o);
  const noise::NoiseSummary s = noise::summarize(m, cutoff_ns);
  const Json context = noise::measurement_context(m, o);
  // The result files first: a closed standard output (`| head`) must not lose them.
  if (!a.json.empty()) {
    write_json_file(a.json, context, Json{{"summary", noise::summary_json(s)}});
  }
  if (!a.histogram.empty()) {
    write_file_atomic(a.histogram, noise::histogram_csv(context, m));
  }
  if (!a.trace.empty()) {
    m.trace.context = context;
    noise::write_trace(a.trace, m.trace, trace_format);
  }
  fmt::print("{}", noise::measurement_text(m, s));
}

void run_noise_convert(const NoiseConvertArgs& a) {
  const noise::TraceFormat from = noise::parse_trace_format(a.from, "--from");
  const noise::TraceFormat to = noise::parse_trace_format(a.to, "--to");
  check_writable(a.output);
  noise::NoiseTrace trace = noise::read_trace(a.input, from);
  if (to == noise::TraceFormat::kGridlock && trace.context.empty()) {
    trace.context = base_context("gridlock noise convert", schemas::kNoiseTrace);
    trace.context["converted_from"] = a.input;
  }
  // Netgauge and LogGOPSim files store neither the measured span nor the context: their trace
  // repeats right after its last detour.
  const std::uint64_t written_ns = to == noise::TraceFormat::kGridlock || trace.detours.empty()
                                       ? trace.duration_ns
                                       : trace.last_detour_end_ns();
  noise::write_trace(a.output, trace, to);
  if (written_ns != trace.duration_ns) {
    fmt::print(stderr,
               "note: {} files do not store the measured duration ({}); the written trace repeats after "
               "its last detour ({}), so its noise fraction is {:.4f}% instead of {:.4f}%\n",
               a.to, format_duration_s(static_cast<double>(trace.duration_ns) * 1e-9),
               format_duration_s(static_cast<double>(written_ns) * 1e-9),
               100.0 * trace.noise_fraction(written_ns), 100.0 * trace.noise_fraction());
  }
  if (trace.detours_not_listed > 0 && to != noise::TraceFormat::kGridlock) {
    fmt::print(stderr,
               "note: the measurement left {} detours out of {} (--max-detours); the written trace holds "
               "the listed ones only\n",
               trace.detours_not_listed, a.input);
  }
  fmt::print("wrote {}: {} detours over {}, noise fraction {:.4f}%\n", a.output, trace.detours.size(),
             format_duration_s(static_cast<double>(written_ns) * 1e-9),
             100.0 * trace.noise_fraction(written_ns));
}

}  // namespace

void add_noise_command(CLI::App& app) {
  auto* noise_cmd = app.add_subcommand("noise", "System noise: selfish-detour measurement and noise traces");
  noise_cmd->require_subcommand(1);

  auto m = std::make_shared<MeasureArgs>();
  auto* measure =
      noise_cmd->add_subcommand("measure", "Measure noise on this core (selfish detour, SC10 §II)");
  measure->add_option("--duration", m->duration, "Measured time (e.g. 10s, 500ms)")->capture_default_str();
  measure->add_option("--threshold", m->threshold, "A gap longer than this x t_min is a detour")
      ->capture_default_str();
  measure->add_option("--cpu", m->cpu, "Pin to this CPU (default: not pinned)");
  measure->add_option("--timer", m->timer, "auto, tsc (invariant TSC) or monotonic")->capture_default_str();
  measure
      ->add_option("--max-detours", m->max_detours, "Detours kept in the trace; later ones are only counted")
      ->capture_default_str();
  measure
      ->add_option("--outlier-cutoff", m->outlier_cutoff,
                   "Also summarise without detours longer than this (0: off)")
      ->capture_default_str();
  measure->add_option("--json", m->json, "Write the summary as JSON with a context block");
  output_file(measure->get_option("--json"));
  measure->add_option("--trace", m->trace, "Write every detour to this trace file");
  output_file(measure->get_option("--trace"));
  measure->add_option("--trace-format", m->trace_format, "gridlock, netgauge or loggopsim")
      ->capture_default_str();
  measure->add_option("--histogram", m->histogram, "Write the detour-length histogram as CSV");
  output_file(measure->get_option("--histogram"));
  measure->add_flag("-q,--quiet", m->quiet, "No progress message on stderr");
  measure->callback([m] { run_measure(*m); });

  auto c = std::make_shared<NoiseConvertArgs>();
  auto* convert = noise_cmd->add_subcommand("convert", "Convert a noise trace between formats");
  convert->add_option("input", c->input, "Input trace")->required();
  convert->add_option("output", c->output, "Output trace")->required();
  output_file(convert->get_option("output"));
  convert->add_option("--from", c->from, "auto, gridlock, netgauge or loggopsim")->capture_default_str();
  convert->add_option("--to", c->to, "gridlock, netgauge or loggopsim")->capture_default_str();
  convert->callback([c] { run_noise_convert(*c); });
}

}  // namespace gridlock::cli
