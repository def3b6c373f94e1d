#include "detail/other_jobs.hpp"

#include <unistd.h>

#include <array>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>

#include "gridlock/core/text.hpp"

namespace gridlock::bench::detail {
namespace {

constexpr std::array<std::string_view, 4> kRankVariables{
    "OMPI_COMM_WORLD_RANK=", "PMI_RANK=", "PMIX_RANK=", "SLURM_PROCID="};
// /proc/PID/environ of a process with a huge environment: the rank variables come early.
constexpr std::size_t kMaxEnvironBytes = 1 << 20;

// The parent pid in /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold spaces and
// parentheses, so the fields start after the last ')'). -1 when unreadable.
long parent_of(const std::filesystem::path& dir) {
  std::ifstream in(dir / "stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) {
    return -1;
  }
  const auto fields = split_fields(std::string_view(stat).substr(close + 1));
  if (fields.size() < 2) {
    return -1;
  }
  const auto ppid = parse_int(fields[1]);
  return ppid ? static_cast<long>(*ppid) : -1;
}

bool names_a_rank(const std::filesystem::path& dir) {
  std::ifstream in(dir / "environ", std::ios::binary);
  std::string variable;
  std::size_t read = 0;
  while (read < kMaxEnvironBytes && std::getline(in, variable, '\0')) {
    read += variable.size() + 1;
    for (const std::string_view name : kRankVariables) {
      if (variable.starts_with(name)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::uint64_t other_job_ranks_here(const std::filesystem::path& proc) {
  const long self = ::getpid();
  const long parent = ::getppid();
  std::uint64_t others = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto pid = parse_int(name);
    if (!pid || *pid == self || *pid == parent) {
      continue;
    }
    const long ppid = parent_of(it->path());
    // Our own job's ranks share our launcher; the launcher itself carries no rank.
    if (ppid < 0 || ppid == parent || ppid == self) {
      continue;
    }
    if (names_a_rank(it->path())) {
      ++others;
    }
  }
  return others;
}

}  // namespace gridlock::bench::detail
