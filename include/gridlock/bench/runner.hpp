#pragma once
/// @file
/// The gridlock-bench execution sequence (paper §3.3): node layout, roles, isolated baselines,
/// loaded phases with congestors, timeouts, and reduction of every statistic to rank 0.

#include <mpi.h>

#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/results.hpp"

namespace gridlock::bench {

/// Runs the configured suite collectively over `world` (every rank must call it).
///
/// Returns the complete Report on rank 0 of `world`; other ranks get an empty Report. Errors
/// that every rank detects identically (too few nodes, uneven ranks per node, an unwritable
/// output path) are thrown as CollectiveError on every rank; a failing MPI call throws MpiError
/// on the rank that saw it (the caller should then abort the job).
[[nodiscard]] gpcnet::Report run_benchmark(const gpcnet::Options& options, MPI_Comm world);

/// Rank 0 prints the tables to stdout and writes the --json and --csv-dir outputs. Collective over
/// `world`: if rank 0 fails (an IoError, e.g. a full disk), every rank throws the same
/// CollectiveError, so the job ends with one message and exit code 3 instead of an abort.
void write_outputs(const gpcnet::Options& options, const gpcnet::Report& report, MPI_Comm world);

/// `gridlock-bench network|load` whole: run_benchmark() and write_outputs(), or, for a split
/// launch's congestor job (`load --role congestors`), the congest run the canary job starts and
/// stops (congest.hpp). `thread_level` is what MPI_Init_thread provided: a split launch needs
/// MPI_THREAD_FUNNELED for its heartbeat thread (Error otherwise). Collective over `world`.
void run_and_write(const gpcnet::Options& options, MPI_Comm world, int thread_level);

}  // namespace gridlock::bench
