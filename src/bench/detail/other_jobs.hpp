#pragma once
// Where `gridlock-bench congest` can tell that another job's MPI ranks share its node: processes
// of this node that carry an MPI launcher's rank variable but another parent than this rank's
// (the ranks of one job on one node share their launcher: mpirun, orted, hydra_pmi_proxy,
// slurmstepd). Best effort: /proc of other users' processes is not readable, and a launcher that
// sets none of the variables goes unseen. No MPI here.

#include <cstdint>
#include <filesystem>

namespace gridlock::bench::detail {

/// Processes under `proc` (normally /proc) other than this one and its job's whose environment
/// names an MPI rank (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or SLURM_PROCID) and whose parent
/// differs from this process's. 0 when /proc cannot be read.
[[nodiscard]] std::uint64_t other_job_ranks_here(const std::filesystem::path& proc = "/proc");

}  // namespace gridlock::bench::detail
