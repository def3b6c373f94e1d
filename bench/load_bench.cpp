// One-shot loading of a schedule file, as `gridlock sim FILE` does it (issue 3, §5: "binary load
// at disk speed"): one load per process, so the program store is first-touched as in real use.
// Prints the wall time of load_schedule, the file's size and rate, the peak resident memory and
// the distinct programs kept. Compare with reading the same file (`--read-only`), and drop the
// page cache before each run for a cold disk (bench/load_bench.sh does both, alternating).
//
//   load_bench FILE [--read-only]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "gridlock/core/output.hpp"
#include "gridlock/sim/goal.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string_view(argv[2]) != "--read-only")) {
    fmt::print(stderr, "usage: load_bench FILE [--read-only]\n");
    return 2;
  }
  const std::filesystem::path path = argv[1];
  const bool read_only = argc == 3;
  try {
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t programs = 0;
    std::uint64_t ops = 0;
    if (read_only) {
      ops = gridlock::read_input_file(path, "schedule").size();
    } else {
      const gridlock::sim::Schedule schedule = gridlock::sim::load_schedule(path);
      programs = schedule.programs().size();
      ops = schedule.total_ops();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto bytes = static_cast<double>(std::filesystem::file_size(path));
    fmt::print("{} {}: {:.3f} s, {:.0f} MB/s, peak RSS {} KB, {} programs, {} {}\n",
               read_only ? "read" : "load", path.string(), seconds, bytes / seconds / 1e6, usage.ru_maxrss,
               programs, ops, read_only ? "bytes" : "ops");
  } catch (const std::exception& e) {
    fmt::print(stderr, "load_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
