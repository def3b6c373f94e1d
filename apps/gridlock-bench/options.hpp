#pragma once
// gridlock-bench's options, declared once per subcommand: main() adds the subcommands, parses,
// and hands the text options with the names of those given (given_options) to the libraries'
// conversions (gpcnet::finish_options, bench/options_text.hpp).

#include <cstdint>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "gridlock/bench/options_text.hpp"
#include "gridlock/bench/sim_replicas.hpp"
#include "gridlock/gpcnet/congest.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "sim_options.hpp"

namespace gridlock::bench_cli {

/// --virtual-nodes and --ranks-per-node (1 to gpcnet::kMaxNodes, at most one of them), written once
/// so that every subcommand that groups the ranks of a host into nodes takes and checks them alike.
void add_node_options(CLI::App& cmd, std::uint64_t& virtual_nodes, std::uint64_t& ranks_per_node);

/// --virtual-nodes, --ranks-per-node, --nics-per-node, --virtual-nics and --allow-uneven: how the
/// ranks group into nodes and NICs.
void add_layout_options(CLI::App& cmd, gpcnet::Options& o);

/// --congestors (split evenly over `where`), their sizes, --congestor-warmup and --congestor-check.
void add_congestor_options(CLI::App& cmd, gpcnet::Options& o, gpcnet::OptionsText& t,
                           const std::string& where);

/// Adds the `congest` subcommand with its options to `app`.
CLI::App* add_congest_command(CLI::App& app, gpcnet::CongestOptions& o, gpcnet::OptionsText& base_text,
                              gpcnet::CongestText& t);

/// The options of `network` (`load` false) or `load` (true).
void add_common_options(CLI::App& cmd, gpcnet::Options& o, gpcnet::OptionsText& t, bool load);

/// The options of `noise`.
void add_noise_options(CLI::App& cmd, bench::NoiseRunOptions& o, bench::NoiseRunText& t);

/// `sim-replicas` options, as in `gridlock sim --replicas` (the model and noise options are shared).
struct SimReplicasText {
  std::string ranks;                     ///< --ranks: the scales.
  std::uint64_t replicas = 0;            ///< --replicas.
  cli::SimModelText model;               ///< The LogGOPS options and --loggops-from.
  cli::NoiseText noise;                  ///< The noise options.
  double bottleneck_slowdown_pct = 100;  ///< --bottleneck-slowdown.
};

/// The options of `sim-replicas`.
void add_sim_replicas_options(CLI::App& cmd, bench::SimReplicasOptions& o, SimReplicasText& t);

/// Converts the `sim-replicas` options on every rank; rank 0 alone notes a --loggops-from fit.
void finish_sim_replicas_options(bench::SimReplicasOptions& o, const SimReplicasText& t, int rank);

/// The options of `spmv`.
void add_spmv_options(CLI::App& cmd, bench::SpmvOptions& o, bench::SpmvText& t);

/// The options of `sweep`.
void add_sweep_options(CLI::App& cmd, bench::SweepOptions& o, bench::SweepText& t);

/// The long names (`--quick`) of the options given on `cmd`'s command line.
[[nodiscard]] std::set<std::string> given_options(const CLI::App& cmd);

}  // namespace gridlock::bench_cli
