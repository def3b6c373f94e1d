// Another MPI family's launcher is told apart from a matching one by the environment alone.
#include "gridlock/bench/launcher.hpp"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace gridlock::bench {
namespace {

EnvReader env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Launcher, OpenMpiLauncherWithAnotherLibraryIsAMismatch) {
  const std::string message =
      launcher_mismatch(1, "MPICH Version: 4.0.2", env_of({{"OMPI_COMM_WORLD_SIZE", "4"}}));
  EXPECT_NE(message.find("Open MPI's mpirun"), std::string::npos) << message;
  EXPECT_NE(message.find("started 4 processes"), std::string::npos) << message;
  EXPECT_NE(message.find("MPICH Version: 4.0.2"), std::string::npos) << message;
}

TEST(Launcher, HydraLauncherWithAnotherLibraryIsAMismatch) {
  const std::string message =
      launcher_mismatch(1, "Open MPI v4.1.4", env_of({{"PMI_SIZE", "12"}, {"PMI_RANK", "3"}}));
  EXPECT_NE(message.find("PMI_SIZE=12"), std::string::npos) << message;
}

TEST(Launcher, MatchingLaunchesAndNoLauncherAreFine) {
  EXPECT_EQ(launcher_mismatch(4, "Open MPI", env_of({{"OMPI_COMM_WORLD_SIZE", "4"}})), "");
  EXPECT_EQ(launcher_mismatch(12, "MPICH", env_of({{"PMI_SIZE", "12"}})), "");
  EXPECT_EQ(launcher_mismatch(1, "Open MPI", env_of({})), "");
  // A singleton run (./gridlock-bench) inside a batch allocation: not a job step, not our tasks.
  EXPECT_EQ(launcher_mismatch(1, "Open MPI", env_of({{"SLURM_NTASKS", "64"}})), "");
}

TEST(Launcher, SrunStepWithoutMatchingPmiIsAMismatch) {
  const std::string message =
      launcher_mismatch(1, "Open MPI", env_of({{"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "16"}}));
  EXPECT_NE(message.find("srun"), std::string::npos) << message;
  EXPECT_EQ(launcher_process_count(env_of({{"SLURM_STEP_NUM_TASKS", "16"}})), 0);
}

TEST(Launcher, UnreadableCountsAreIgnored) {
  EXPECT_EQ(launcher_process_count(env_of({{"OMPI_COMM_WORLD_SIZE", "four"}})), 0);
  EXPECT_EQ(launcher_process_count(env_of({{"PMI_SIZE", "-3"}})), 0);
  EXPECT_EQ(launcher_process_count(env_of({{"PMI_SIZE", ""}})), 0);
}

}  // namespace
}  // namespace gridlock::bench
