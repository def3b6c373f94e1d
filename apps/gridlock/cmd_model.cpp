// `gridlock model fit|predict|check`: Hockney and collective models fitted to a sweep, predictions
// from a fit file, and the self-consistent performance guidelines (docs/model.md). Parses, calls
// gridlock::model, prints tables and writes the outputs.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/model/fit.hpp"
#include "gridlock/model/fit_json.hpp"
#include "gridlock/model/guidelines.hpp"
#include "gridlock/model/guidelines_json.hpp"
#include "gridlock/model/sweep.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct FitArgs {
  std::vector<std::string> sweeps;
  std::string json;
  bool quiet = false;
};

struct PredictArgs {
  std::string fit;
  std::string op;
  std::string size;
  std::uint32_t ranks = 2;
  std::string pair_class;
};

struct CheckArgs {
  std::string sweep;
  double level = 0.05;
  double tolerance = 0.05;
  std::uint64_t seed = 1;
  std::string json;
  bool fail_on_violation = false;
  bool quiet = false;
};

std::vector<std::filesystem::path> paths_of(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

void run_fit(const FitArgs& a) {
  const auto inputs = paths_of(a.sweeps);
  if (!a.json.empty()) {
    check_output_not_input(a.json, "--json", inputs);
    check_writable(a.json);
  }
  const model::Sweep sweep = model::load_sweeps(inputs);
  for (const std::string& w : sweep.warnings) {
    fmt::print(stderr, "gridlock model fit: warning: {}\n", w);
  }
  const model::FitResult fit = model::fit_sweep(sweep);
  // The fit file first: a closed standard output (`| head`) must not lose it.
  if (!a.json.empty()) {
    Json context = base_context("gridlock model fit", schemas::kModelFit);
    context["sweep_context"] = sweep.context;
    context["parameters"] = Json{{"weighting", "relative (1/T^2)"},
                                 {"robust", "huber k=1.345"},
                                 {"switch_detection", "segmented regression, at most 3 breaks, BIC"}};
    write_json_file(a.json, context, model::fit_to_json(fit));
  }
  if (!a.quiet) {
    fmt::print("{}", model::fit_text(fit));
    if (!a.json.empty()) {
      fmt::print("wrote {}\n", a.json);
    }
  }
}

// Bounds of model predict's extrapolation (docs/limits.md): as the fit file's ranks, and sizes
// far beyond any one message.
constexpr std::uint64_t kMaxPredictSize = std::uint64_t{1} << 40U;
constexpr std::uint32_t kMaxPredictRanks = 1U << 30U;

void run_predict(const PredictArgs& a) {
  const std::uint64_t size = parse_byte_size(a.size, "--size");
  if (size > kMaxPredictSize) {
    throw InputError(fmt::format("--size {}: give at most 1TiB", a.size));
  }
  if (a.ranks == 0 || a.ranks > kMaxPredictRanks) {
    throw InputError(fmt::format("--ranks {}: give 1 to {} (2^30)", a.ranks, kMaxPredictRanks));
  }
  const model::FitResult fit = model::load_fit(a.fit);
  const model::Prediction p = model::predict(fit, a.op, size, a.ranks, a.pair_class);
  fmt::print("| op | size | ranks | time us | model | basis |\n");
  fmt::print("| {} | {} | {} | {:.4g} | {} | {} |\n", a.op, format_bytes(size), a.ranks, p.time_us, p.model,
             p.basis);
}

void run_check(const CheckArgs& a) {
  if (!(a.level > 0 && a.level < 1)) {
    throw InputError(
        fmt::format("--level {}: give a significance level between 0 and 1 (e.g. 0.05)", a.level));
  }
  if (!(a.tolerance >= 0 && std::isfinite(a.tolerance))) {
    throw InputError(fmt::format("--tolerance {}: give a fraction >= 0 (e.g. 0.05 for 5%)", a.tolerance));
  }
  if (!a.json.empty()) {
    check_output_not_input(a.json, "--json", {a.sweep});
    check_writable(a.json);
  }
  const model::Sweep sweep = model::load_sweeps({a.sweep});
  for (const std::string& w : sweep.warnings) {
    fmt::print(stderr, "gridlock model check: warning: {}\n", w);
  }
  model::CheckOptions o;
  o.level = a.level;
  o.tolerance = a.tolerance;
  o.seed = a.seed;
  const model::CheckReport report = model::check_guidelines(sweep, o);
  // The result file first: a closed standard output (`| head`) must not lose it.
  if (!a.json.empty()) {
    Json context = base_context("gridlock model check", schemas::kModelCheck);
    context["sweep_context"] = sweep.context;
    context["seed"] = a.seed;
    write_json_file(a.json, context, model::check_to_json(report, o));
  }
  if (!a.quiet) {
    fmt::print("{}", model::check_table(report, o));
  }
  fmt::print("{}", model::check_summary(report));
  if (a.fail_on_violation && report.violations() > 0) {
    throw Error(fmt::format("{} guideline violation(s) (--fail-on-violation)", report.violations()));
  }
}

}  // namespace

void add_model_command(CLI::App& app) {
  auto* model_cmd =
      app.add_subcommand("model", "Fit performance models to a sweep, predict, check guidelines");
  model_cmd->require_subcommand(1);

  auto fa = std::make_shared<FitArgs>();
  auto* fit =
      model_cmd->add_subcommand("fit", "Hockney, protocol-switch and collective models of sweep results");
  fit->add_option("sweeps", fa->sweeps, "Sweep result files (gridlock-bench sweep --json)")->required();
  fit->add_option("--json", fa->json, "Write the fit (schema gridlock.model.fit, docs/formats/fit-json.md)");
  output_file(fit->get_option("--json"));
  fit->add_flag("-q,--quiet", fa->quiet, "Print no tables");
  fit->callback([fa] { run_fit(*fa); });

  auto pa = std::make_shared<PredictArgs>();
  auto* pred = model_cmd->add_subcommand("predict", "Predict an op's time from a fit file");
  pred->add_option("fit", pa->fit, "Fit file (gridlock model fit --json)")->required();
  pred->add_option("--op", pa->op, "Operation (pingpong, allreduce, ...)")->required();
  pred->add_option("--size", pa->size, "Message size (collectives: per rank), e.g. 1MiB; at most 1TiB")
      ->required();
  pred->add_option("--ranks", pa->ranks, "Communicator size (1..2^30)")->capture_default_str();
  pred->add_option("--pair-class", pa->pair_class, "Point-to-point pair class (default: far, router, node)");
  pred->callback([pa] { run_predict(*pa); });

  auto ca = std::make_shared<CheckArgs>();
  auto* check =
      model_cmd->add_subcommand("check", "Check the self-consistent performance guidelines on a sweep");
  check->add_option("sweep", ca->sweep, "Sweep result file (gridlock-bench sweep --json)")->required();
  check->add_option("--level", ca->level, "Significance level of the one-sided rank-sum test")
      ->capture_default_str();
  check->add_option("--tolerance", ca->tolerance, "Fraction lhs may exceed rhs")->capture_default_str();
  check->add_option("--seed", ca->seed, "Seed of the resampled sums (printed)")->capture_default_str();
  check->add_option("--json", ca->json, "Write the results as JSON");
  output_file(check->get_option("--json"));
  check->add_flag("--fail-on-violation", ca->fail_on_violation, "Exit 1 when a guideline is violated");
  check->add_flag("-q,--quiet", ca->quiet, "Print only the summary and violations");
  check->callback([ca] { run_check(*ca); });
}

}  // namespace gridlock::cli
