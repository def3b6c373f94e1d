#include "gridlock/bench/options_text.hpp"

#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/noise/measure.hpp"
#include "gridlock/noise/timer.hpp"

namespace gridlock::bench {
namespace {

bool has(const std::set<std::string>& given, const std::string& name) { return given.count(name) > 0; }

}  // namespace

void finish_noise_run_options(NoiseRunOptions& o, const NoiseRunText& t) {
  o.measure.duration_s = parse_duration_seconds(t.duration, "--duration");
  o.measure.timer = noise::parse_timer_choice(t.timer);
  const double outlier_cutoff_s = parse_duration_seconds(t.outlier_cutoff, "--outlier-cutoff");
  o.outlier_cutoff_ns = outlier_cutoff_s * 1e9;
  o.pin = !t.no_pin;
  if (!(o.measure.duration_s > 0)) {
    throw InputError("--duration must be positive");
  }
  if (!(o.measure.threshold > 1)) {
    throw InputError("--threshold must be > 1");
  }
  if (!(o.mad_factor >= 0) || o.mad_factor > kMaxNoiseFactor) {
    throw InputError(fmt::format("--mad-factor {}: give 0 to {:g}", o.mad_factor, kMaxNoiseFactor));
  }
  if (o.measure.threshold > kMaxNoiseFactor) {
    throw InputError(
        fmt::format("--threshold {}: give above 1 and at most {:g}", o.measure.threshold, kMaxNoiseFactor));
  }
  gpcnet::check_at_most(o.measure.max_detours, kMaxDetours, "--max-detours");
  // The rest (e.g. --duration beyond a day) before any rank starts, as in `gridlock noise measure`.
  noise::check_measure_options(o.measure);
  noise::check_outlier_cutoff(outlier_cutoff_s);
}

void finish_spmv_options(SpmvOptions& o, const SpmvText& t, const std::set<std::string>& given) {
  o.local = parse_dims3(t.local, "--local", kMaxSpmvLocal);
  if (!t.grid.empty()) {
    o.grid = parse_dims3(t.grid, "--grid", static_cast<std::uint32_t>(gpcnet::kMaxNodes));
  }
  o.mapping = parse_spmv_mapping(t.mapping);
  if (!t.congestors.empty()) {
    o.congestors = gpcnet::parse_congestor_list(t.congestors);
  }
  o.congestor_bytes = parse_byte_size(t.congestor_size, "--congestor-size");
  o.allreduce_congestor_bytes = parse_byte_size(t.allreduce_congestor_size, "--allreduce-congestor-size");
  if (o.mapping != SpmvMapping::kOracle) {
    for (const char* name : {"--source", "--metric", "--seed"}) {
      if (has(given, name)) {
        throw InputError(fmt::format("{} is used with --mapping oracle only", name));
      }
    }
  }
  validate(o);
}

void finish_sweep_options(SweepOptions& o, const SweepText& t, const std::set<std::string>& given) {
  const SweepOptions user = o;
  o.ops_text = t.ops;
  o.ops = parse_sweep_ops(t.ops);
  o.max_size = parse_byte_size(t.max_size, "--max-size");
  o.max_coll_size = parse_byte_size(t.max_coll_size, "--max-coll-size");
  o.max_time_s = parse_duration_seconds(t.max_time, "--max-time");
  o.sync = parse_sweep_sync(t.sync);
  gpcnet::check_at_most(o.ranks_per_step, kMaxRanksPerStep, "--ranks-per-step");
  const std::vector<std::uint64_t> extra =
      t.sizes.empty() ? std::vector<std::uint64_t>{} : parse_size_list(t.sizes, "--sizes");
  o.sizes = sweep_sizes(o.max_size, extra, t.only_sizes);
  if (o.quick) {
    apply_sweep_quick_profile(o);
    // Options the user gave explicitly override the profile.
    if (has(given, "--max-size")) {
      o.max_size = parse_byte_size(t.max_size, "--max-size");
      o.sizes = sweep_sizes(o.max_size, {}, false);
    }
    if (has(given, "--sizes")) {
      std::vector<std::uint64_t> quick_sizes = t.only_sizes ? std::vector<std::uint64_t>{} : o.sizes;
      std::erase_if(quick_sizes, [&](std::uint64_t s) { return s > o.max_size; });
      quick_sizes.insert(quick_sizes.end(), extra.begin(), extra.end());
      o.sizes = sweep_sizes(o.max_size, quick_sizes, true);
    }
    if (has(given, "--max-coll-size")) o.max_coll_size = parse_byte_size(t.max_coll_size, "--max-coll-size");
    if (has(given, "--max-time")) o.max_time_s = parse_duration_seconds(t.max_time, "--max-time");
    if (has(given, "--reps")) o.reps = user.reps;
    if (has(given, "--min-reps")) o.min_reps = user.min_reps;
    if (has(given, "--window")) o.window = user.window;
  }
  if (o.guidelines) {
    o.samples = true;
    // The guideline ops, and with --ops the ops given as well.
    std::string ops = has(given, "--ops") ? o.ops_text : std::string("allreduce");
    for (const std::string& op : sweep_guideline_ops()) {
      ops += "," + op;
    }
    o.ops = parse_sweep_ops(ops);
  }
  // Fault injection for the tests (docs/gridlock-bench.md); every rank reads the same environment.
  if (const char* fault =
          std::getenv("GRIDLOCK_SWEEP_FAIL")) {  // NOLINT(concurrency-mt-unsafe): no threads yet
    o.fault = parse_sweep_fault(fault);
  }
  validate(o);
}

}  // namespace gridlock::bench
