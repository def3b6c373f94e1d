#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: installs dependencies, then
#   1. format check (clang-format) of every C++ file,
#   2. the "ci" build (optimised, warnings are errors) and every CTest test, then the install
#      check (scripts/install-check.sh) and the Debian package check (scripts/deb-check.sh),
#   3. clang-tidy on the libraries, apps and tests (warnings are errors),
#   4. the "asan" build (AddressSanitizer + UBSan, warnings are errors) and every CTest test,
#      then the "tsan" build (ThreadSanitizer: the libraries and the threaded unit tests only),
#   5. the "smpi" build (SimGrid SMPI) and the smpi-labelled tests on simulated clusters,
#   6. the "mpich" build (gridlock-bench against MPICH) and the mpi-labelled tests,
#   7. bounded fuzzing of the input parsers.
# Usage: scripts/test.sh [--fast]   (--fast: only step 2, for quick local iterations)
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
[ "${1:-}" = "--fast" ] && fast=1

scripts/setup.sh --deps-only
jobs="$(nproc)"

step() { printf '\n=== %s ===\n' "$*" >&2; }

if ((!fast)); then
  step "clang-format check"
  git ls-files -z '*.cpp' '*.hpp' | xargs -0 -r clang-format --dry-run -Werror
fi

step "ci build and tests"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"
ctest --preset ci -j "$jobs" --timeout 600

if ((fast)); then
  exit 0
fi

# The ci tree installed into a temporary prefix and used with the build tree moved away (tools,
# an MPI job, a consumer project with find_package and with pkg-config): docs/install.md.
step "install check"
scripts/install-check.sh build/ci
# The Debian package of the same tree: cpack, apt-get install, smoke run, apt-get remove.
step "deb package check"
scripts/deb-check.sh build/ci

step "clang-tidy"
mapfile -t tidy_files < <(git ls-files 'src/*.cpp' 'apps/*.cpp' 'tests/*.cpp')
run-clang-tidy-14 -quiet -p build/ci -j "$jobs" "${tidy_files[@]}" >build/ci/clang-tidy.log 2>&1 || {
  grep -E "warning:|error:" build/ci/clang-tidy.log | sort -u | head -50 >&2
  echo "clang-tidy found problems (full log: build/ci/clang-tidy.log)" >&2
  exit 1
}

step "asan build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs" --timeout 900

# The libraries and the tsan-marked unit tests only (tests/unit/CMakeLists.txt): oracle service and
# server, replicas, thread pools.
step "tsan build and tests"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan -j "$jobs" --timeout 900

# Simulated clusters of 64-512 ranks (docs/smpi.md); build about 2 minutes, tests 130 s on two cores.
step "smpi build and tests"
cmake --preset smpi >/dev/null
cmake --build --preset smpi -j "$jobs"
ctest --preset smpi --timeout 600

# gridlock-bench and the MPI tests against Debian's MPICH as well as Open MPI (docs/install.md,
# docs/gridlock-bench.md "MPICH"): the MPI test label only, the targets it needs only.
step "mpich build and MPI tests"
cmake --preset mpich >/dev/null
cmake --build --preset mpich -j "$jobs"
ctest --preset mpich -j "$jobs" --timeout 600

if [ -x scripts/fuzz.sh ]; then
  step "fuzzing (bounded time)"
  scripts/fuzz.sh
fi
