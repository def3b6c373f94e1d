// Uses the installed gridlock::bench from a C++-only project: compiles against <mpi.h> through the
// package's MPI and links the library. Prints one line the install check compares; needs no
// mpiexec (MPI_Get_library_version may be called before MPI_Init).
#include <mpi.h>

#include <cstdio>
#include <string>

#include "gridlock/bench/launcher.hpp"

int main() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  // Two ranks, and a launcher that says it started two: no mismatch.
  const std::string mismatch = gridlock::bench::launcher_mismatch(
      2, library, [](const char* name) { return std::string(name) == "PMI_SIZE" ? "2" : nullptr; });
  std::printf("gridlock::bench links (%.40s): launcher check %s\n", library,
              mismatch.empty() ? "ok" : "MISMATCH");
  return mismatch.empty() ? 0 : 1;
}
