#pragma once
/// @file
/// `gridlock-bench congest` over MPI (docs/gridlock-bench.md, "Congestors for another job"): every
/// rank runs a congestor (the nodes split among --congestors as in load mode, PPort slices by NIC)
/// until rank 0 says stop: --duration elapsed, the --stop-file appeared, or rank 0 received
/// SIGTERM, SIGINT or SIGUSR1. The stop reaches every rank through the congestors' pipelined vote
/// (detail::drive_congestor), so no rank is left in a collective; then the throughput of every
/// interval is reduced to rank 0.

#include <mpi.h>

#include "gridlock/gpcnet/congest.hpp"

namespace gridlock::bench {

/// Runs the congestors collectively over `world` (every rank must call it). Returns the report on
/// rank 0, an empty one elsewhere. Throws CollectiveError (on every rank) for a layout the
/// congestors cannot use or an unwritable output, MpiError for a failed MPI call.
[[nodiscard]] gpcnet::CongestReport run_congest(const gpcnet::CongestOptions& options, MPI_Comm world);

/// Rank 0 writes --json and --csv, then prints the table. Collective over `world`: an output that
/// fails on rank 0 ends every rank with the same CollectiveError.
void write_congest_outputs(const gpcnet::CongestOptions& options, const gpcnet::CongestReport& report,
                           MPI_Comm world);

}  // namespace gridlock::bench
