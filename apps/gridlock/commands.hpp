#pragma once
// Subcommand registration for the `gridlock` executable. Each add_* function adds one
// subcommand to `app` with a callback that does the work; errors propagate as exceptions.

#include <CLI/CLI.hpp>

namespace gridlock::cli {

/// `gridlock version`: prints version and git commit.
void add_version_command(CLI::App& app);

/// `gridlock topo route|info`: topology routes and summaries.
void add_topo_command(CLI::App& app);

/// `gridlock oracle serve|query`: the resource oracle service and its client.
void add_oracle_command(CLI::App& app);

/// `gridlock sim`, `gridlock schedgen`, `gridlock schedule convert|info`: the LogGOPS simulator.
void add_sim_commands(CLI::App& app);

/// `gridlock schedgen`, `gridlock schedule convert|info`: schedule files; called by add_sim_commands.
void add_schedule_file_commands(CLI::App& app);

/// `gridlock schedule from-trace`: an MPI trace (OTF2) into a schedule; added to `schedule`.
void add_from_trace_command(CLI::App& schedule);

/// `gridlock noise measure|convert`: noise measurement and noise traces.
void add_noise_command(CLI::App& app);

/// `gridlock map`: congestion-aware task mapping with Scotch.
void add_map_command(CLI::App& app);

/// `gridlock model fit|predict|check`: performance models of sweep results.
void add_model_command(CLI::App& app);
/// `gridlock history add|list|show|metrics|trend|regress`: the run history in SQLite.
void add_history_command(CLI::App& app);

/// `gridlock report`: one self-contained HTML page of gridlock results.
void add_report_command(CLI::App& app);

/// `gridlock predict gpcnet`: GPCNeT's congestion benchmark on a simulated network.
void add_predict_command(CLI::App& app);

/// `gridlock predict mapping`: what task mappings recover under congestion; added to `predict`.
void add_predict_mapping_command(CLI::App& predict);

/// `gridlock predict traffic`: synthetic traffic on a network model; added to `predict`.
void add_predict_traffic_command(CLI::App& predict);

}  // namespace gridlock::cli
