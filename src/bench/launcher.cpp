#include "gridlock/bench/launcher.hpp"

#include <mpi.h>

#include <cstdlib>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::bench {
namespace {

int positive_int(const char* text) {
  if (text == nullptr) {
    return 0;
  }
  const std::optional<int> value = parse_int(text);
  return value && *value > 0 ? *value : 0;
}

}  // namespace

int launcher_process_count(const EnvReader& env, std::string* launcher) {
  struct Source {
    const char* variable;
    const char* launcher;
  };
  // Open MPI's own first: its mpirun also exports PMIX_* and, under Slurm, srun's variables.
  static constexpr Source kSources[] = {
      {"OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun/mpiexec"},
      {"PMI_SIZE", "a PMI launcher (MPICH's Hydra mpiexec, Intel MPI, or srun --mpi=pmi2)"},
  };
  for (const Source& s : kSources) {
    if (const int n = positive_int(env(s.variable)); n > 0) {
      if (launcher != nullptr) {
        *launcher = fmt::format("{} ({}={})", s.launcher, s.variable, n);
      }
      return n;
    }
  }
  // srun sets SLURM_NTASKS for the allocation too; only inside a job step are they our processes.
  if (env("SLURM_STEP_ID") != nullptr) {
    if (const int n = positive_int(env("SLURM_STEP_NUM_TASKS")); n > 0) {
      if (launcher != nullptr) {
        *launcher = fmt::format("Slurm's srun (SLURM_STEP_NUM_TASKS={})", n);
      }
      return n;
    }
  }
  return 0;
}

std::string launcher_mismatch(int world_size, const std::string& mpi_library, const EnvReader& env) {
  std::string launcher;
  const int started = launcher_process_count(env, &launcher);
  if (started <= world_size) {
    return {};
  }
  return fmt::format(
      "this process is rank 0 of an MPI_COMM_WORLD of {} rank(s), but {} started {} processes: each became "
      "an "
      "MPI job of its own. gridlock-bench was built with {}; start it with that library's mpiexec (or srun "
      "with "
      "the PMI support it was built with), or rebuild gridlock-bench against the launcher's MPI "
      "(docs/install.md)",
      world_size, launcher, started, mpi_library);
}

void check_launcher() {
  int size = 0;
  GRIDLOCK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  // Called once at start-up, before gridlock-bench starts any thread.
  const std::string message = launcher_mismatch(size, detail::mpi_library_version(), [](const char* name) {
    return std::getenv(name);  // NOLINT(concurrency-mt-unsafe): no other thread exists yet
  });
  if (!message.empty()) {
    // Every rank of this (one-rank) world sees the same: finalise and exit, no MPI_Abort.
    throw CollectiveError(message, ExitCode::kMpi);
  }
}

}  // namespace gridlock::bench
