#pragma once
/// @file
/// The options gridlock-bench's subcommands take as text (units, lists: `noise`, `spmv`,
/// `sweep`), and their conversion and checks after parsing, with the `--quick` profile merged
/// with the options given; the GPCNeT subcommands' are gridlock::gpcnet's (finish_options). The
/// tool only declares the options and names the ones given on the command line.

#include <cstdint>
#include <set>
#include <string>

#include "gridlock/bench/noise_run.hpp"
#include "gridlock/bench/spmv.hpp"
#include "gridlock/bench/sweep.hpp"

namespace gridlock::bench {

/// Most detours kept per rank by `noise --max-detours` (1.6 GB of detours).
inline constexpr std::uint64_t kMaxDetours = 100'000'000;
/// Most `noise --threshold` and `--mad-factor`.
inline constexpr double kMaxNoiseFactor = 1e6;
/// Most `sweep --ranks-per-step`.
inline constexpr std::uint64_t kMaxRanksPerStep = 1U << 31U;

/// `noise` options given as text.
struct NoiseRunText {
  std::string duration = "10s";       ///< --duration.
  std::string timer = "auto";         ///< --timer.
  std::string outlier_cutoff = "1s";  ///< --outlier-cutoff.
  bool no_pin = false;                ///< --no-pin.
};

/// Converts and checks the `noise` options (InputError naming the option).
void finish_noise_run_options(NoiseRunOptions& o, const NoiseRunText& t);

/// `spmv` options given as text.
struct SpmvText {
  std::string local = "5x5x5";                    ///< --local.
  std::string grid;                               ///< --grid (empty: near-cubic).
  std::string mapping = "identity";               ///< --mapping.
  std::string congestors;                         ///< --congestors (empty: none).
  std::string congestor_size = "4KiB";            ///< --congestor-size.
  std::string allreduce_congestor_size = "8MiB";  ///< --allreduce-congestor-size.
};

/// Converts and checks the `spmv` options; `given` names the options given on the command line
/// (--source, --metric and --seed go with --mapping oracle only).
void finish_spmv_options(SpmvOptions& o, const SpmvText& t, const std::set<std::string>& given);

/// `sweep` options given as text.
struct SweepText {
  std::string ops = "all";             ///< --ops.
  std::string sizes;                   ///< --sizes (added to the powers of two).
  bool only_sizes = false;             ///< --only-sizes.
  std::string max_size = "64MiB";      ///< --max-size.
  std::string max_coll_size = "1MiB";  ///< --max-coll-size.
  std::string max_time = "1s";         ///< --max-time.
  std::string sync = "barrier";        ///< --sync.
};

/// Converts and checks the `sweep` options: with `o.quick` the quick profile, then the options
/// named in `given` back to the values given; --guidelines adds its ops; $GRIDLOCK_SWEEP_FAIL
/// injects a fault (the tests').
void finish_sweep_options(SweepOptions& o, const SweepText& t, const std::set<std::string>& given);

}  // namespace gridlock::bench
