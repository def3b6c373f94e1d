#pragma once
/// @file
/// Detects a gridlock-bench started by another MPI family's launcher (issue 28): an MPICH build
/// under Open MPI's mpirun, or the reverse, starts N one-rank jobs that would each measure alone.

#include <functional>
#include <string>

namespace gridlock::bench {

/// Reads an environment variable (null: not set); std::getenv in the tool, a map in tests.
using EnvReader = std::function<const char*(const char*)>;

/// The processes a launcher says it started, from the variables Open MPI's mpirun
/// (OMPI_COMM_WORLD_SIZE), MPICH's Hydra and other PMI launchers (PMI_SIZE) and Slurm's srun
/// (SLURM_STEP_NUM_TASKS, inside a job step only) set; 0 when none is set or readable. `launcher`,
/// when given, receives a description of the one that was read.
[[nodiscard]] int launcher_process_count(const EnvReader& env, std::string* launcher = nullptr);

/// An error message when this process's MPI_COMM_WORLD has `world_size` ranks but the launcher
/// started more processes (each then became a singleton of another MPI library); empty when they
/// agree or no launcher is known. `mpi_library` names the library gridlock-bench was built with.
[[nodiscard]] std::string launcher_mismatch(int world_size, const std::string& mpi_library,
                                            const EnvReader& env);

/// MPI_COMM_WORLD's size and the library's version checked against the environment; throws
/// CollectiveError (exit code 4) with launcher_mismatch()'s message.
void check_launcher();

}  // namespace gridlock::bench
