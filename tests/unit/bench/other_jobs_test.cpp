#include "detail/other_jobs.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gridlock::bench::detail {
namespace {

namespace fs = std::filesystem;

// A fake /proc entry: its stat line (parent `ppid`) and its environment.
void process(const fs::path& proc, const std::string& pid, long ppid, const std::string& environ) {
  fs::create_directories(proc / pid);
  std::ofstream(proc / pid / "stat") << pid << " (a (b) c) S " << ppid << " 1 1 0\n";
  std::ofstream(proc / pid / "environ", std::ios::binary) << environ;
}

TEST(OtherJobRanks, CountsRanksOfAnotherLauncherOnly) {
  const fs::path proc = fs::temp_directory_path() / ("gridlock-proc-" + std::to_string(::getpid()));
  fs::remove_all(proc);
  const std::string env_rank{"HOME=/root\0OMPI_COMM_WORLD_RANK=3\0", 33};
  const std::string env_pmi{"PMI_RANK=0\0PATH=/bin\0", 21};
  const std::string env_plain{"HOME=/root\0PATH=/bin\0", 21};
  process(proc, "100", ::getppid(), env_rank);  // a rank of our own job: same launcher
  process(proc, "200", 999999, env_rank);       // another job's rank
  process(proc, "201", 999998, env_pmi);        // another job's rank (MPICH, Slurm PMI)
  process(proc, "300", 999999, env_plain);      // not an MPI rank
  process(proc, "self", 999999, env_rank);      // not a process directory
  fs::create_directories(proc / "400");         // a process that vanished: no stat
  EXPECT_EQ(other_job_ranks_here(proc), 2U);
  fs::remove_all(proc);
  EXPECT_EQ(other_job_ranks_here(proc), 0U) << "a missing /proc counts nothing";
}

}  // namespace
}  // namespace gridlock::bench::detail
