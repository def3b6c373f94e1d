#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: installs dependencies, then
#   1. format check (clang-format) of every C++ file,
#   2. the "ci" build (optimised, a unity build, warnings are errors) and every CTest test but the
#      bad-input cases (they run in step 5, under ASan and UBSan, where a crash on bad input shows),
#      then the install check (scripts/install-check.sh) and the Debian package check
#      (scripts/deb-check.sh),
#   3. the "mpich" build (gridlock-bench against MPICH) and the mpi-labelled tests,
#   4. clang-tidy on the sources changed in the last 20 commits (warnings are errors),
#   5. the "asan" build (AddressSanitizer + UBSan, warnings are errors) and every CTest test,
#      then the "tsan" build (ThreadSanitizer: the libraries and the threaded unit tests only);
#      both unity builds like the ci, mpich and smpi trees (CMAKE_UNITY_BUILD: eight sources a
#      compile, half the compile time of a source at a time),
#   6. the "smpi" build (SimGrid SMPI) and the smpi-labelled tests on simulated clusters,
#   7. bounded fuzzing of the input parsers.
# Builds go through ccache when it is installed (scripts/setup.sh installs it).
# Usage: scripts/test.sh [--fast]   (--fast: only step 2, for quick local iterations)
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
[ "${1:-}" = "--fast" ] && fast=1

jobs="$(nproc)"

# Each step prints the wall time of the one before, and the script its total at exit, so that a
# CI log shows where the 90 minutes go.
started=$SECONDS
step_name=""
step_started=$SECONDS
step_times=()
step_done() {
  if [ -n "$step_name" ]; then
    printf '=== %s: %d s ===\n' "$step_name" $((SECONDS - step_started)) >&2
    step_times+=("$(printf '%6d s  %s' $((SECONDS - step_started)) "$step_name")")
    step_name=""
  fi
}
step() {
  step_done
  step_name="$*"
  step_started=$SECONDS
  printf '\n=== %s ===\n' "$*" >&2
}
# At exit every step's time again, together: a CI log's tail is often all that is kept.
summary() {
  local rc=$?
  step_done
  printf '=== step times ===\n' >&2
  printf '%s\n' "${step_times[@]}" >&2
  printf '=== total: %d s (exit %d) ===\n' $((SECONDS - started)) "$rc" >&2
}
trap summary EXIT
# A run stopped by a signal ends with 128 + its number: the summary's exit code said 0 for a CI run
# killed during clang-tidy.
trap 'exit 143' TERM
trap 'exit 130' INT

step "dependencies (scripts/setup.sh)"
scripts/setup.sh --deps-only

# ccache (installed by scripts/setup.sh), its cache in build/ccache unless the caller has one: the
# mpich tree compiles every library that does not include <mpi.h> from the same sources with the
# same flags as the ci tree, and with the cache's base directory at the checkout it takes them from
# the ci tree's compile (that second compile was 460 s of the CI run of 2026-11-29). A caller's own
# compiler launcher wins.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
  export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-ccache}"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  export CCACHE_DIR="${CCACHE_DIR:-$PWD/build/ccache}"
fi

if ((!fast)); then
  step "clang-format check"
  git ls-files -z '*.cpp' '*.hpp' | xargs -0 -r clang-format --dry-run -Werror
fi

step "ci build"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"
step "ci tests"
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

# gridlock-bench and the MPI tests against Debian's MPICH as well as Open MPI (docs/install.md,
# docs/gridlock-bench.md "MPICH"): the MPI test label only, the targets it needs only. The preset
# leaves out the second and third runs of load_rma_slices (they repeat the first for Open MPI's
# osc/rdma, CMakePresets.json). Right after the ci tree, whose objects it reuses
# through ccache.
step "mpich build"
cmake --preset mpich >/dev/null
cmake --build --preset mpich -j "$jobs"
step "mpich tests"
ctest --preset mpich -j "$jobs" --timeout 600

step "clang-tidy"
# Every check of .clang-tidy on the sources that the last 20 commits of main added or changed, where
# new code lands; `scripts/tidy.sh` runs everything on everything (before a release, or after a
# change to a widely included header). Every file gets checked when it changes. All 221 files made
# this step 21 minutes of CI's 90 on two cores (2026-11-29): a file costs 6-13 s of CPU to parse
# before any check runs, whether or not it changed.
#   - A header changed in those commits is checked through one file that includes it: the source of
#     the same name if there is one (engine.hpp: engine.cpp), else the first that includes it.
#   - The Clang static analyzer takes three to four times as long as all other checks together
#     (src/sim/engine.cpp: 21 s against 6 s of CPU); it runs on the 10 most recently changed library
#     and tool sources only. tests/.clang-tidy leaves it out for the tests, which run under ASan,
#     UBSan and TSan.
# The files of the pathspecs that the last 20 commits of main added or changed, most recent first,
# those that still exist.
changed_recently() {
  git log --first-parent --max-count=20 --diff-filter=AM --name-only --format= HEAD -- "$@" |
    awk 'NF && !seen[$0]++' | while read -r f; do [ -f "$f" ] && echo "$f"; done
}
# The source that checks header $1: the .cpp of the same name beside it or in its library's src/
# folder, else the first source that includes it.
header_includer() {
  local name dir lib
  name=$(basename "$1" .hpp)
  dir=$(dirname "$1")
  lib=$(echo "$dir" | sed -n 's|^include/gridlock/\([^/]*\).*|\1|p')
  git ls-files "$dir/$name.cpp" ${lib:+"src/$lib/$name.cpp" "src/$lib/*/$name.cpp"} | head -1 | grep . ||
    git grep -l -E "#include [<\"](([^<>\"]*/)?$(basename "$dir")/)?$name\.hpp[>\"]" -- 'src/*.cpp' 'apps/*.cpp' 'tests/*.cpp' | head -1
}
mapfile -t tidy_recent < <(changed_recently 'src/*.cpp' 'apps/*.cpp' | head -10)
mapfile -t tidy_files < <(
  {
    changed_recently 'src/*.cpp' 'apps/*.cpp' 'tests/*.cpp'
    changed_recently 'include/*.hpp' 'src/*.hpp' 'apps/*.hpp' | while read -r h; do header_includer "$h" || true; done
  } | awk 'NF && !seen[$0]++')
base=$(git rev-list --first-parent --max-count=21 HEAD | tail -1)
mapfile -t tidy_rest < <(printf '%s\n' "${tidy_files[@]}" | grep -vxF -f <(printf '%s\n' "${tidy_recent[@]}" ""))
echo "clang-tidy: ${#tidy_files[@]} files changed (or including a header changed) in the commits since $(git rev-parse --short "$base"), the static analyzer on ${#tidy_recent[@]} of them" >&2
# The compile commands of the ci tree's flags source by source (the ci tree is a unity build, whose
# commands name its unity sources): configured only, nothing is built in build/tidy.
cmake --preset tidy >/dev/null
: >build/tidy/clang-tidy.log
tidy_failed=0
if ((${#tidy_rest[@]} > 0)); then
  run-clang-tidy-14 -quiet -p build/tidy -j "$jobs" -checks=-clang-analyzer-* "${tidy_rest[@]}" \
    >build/tidy/clang-tidy.log 2>&1 || tidy_failed=1
fi
if ((${#tidy_recent[@]} > 0)); then
  run-clang-tidy-14 -quiet -p build/tidy -j "$jobs" "${tidy_recent[@]}" >>build/tidy/clang-tidy.log 2>&1 || tidy_failed=1
fi
if ((tidy_failed)); then
  grep -E "warning:|error:" build/tidy/clang-tidy.log | sort -u | head -50 >&2
  echo "clang-tidy found problems (full log: build/tidy/clang-tidy.log)" >&2
  exit 1
fi

step "asan build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
step "asan tests"
ctest --preset asan -j "$jobs" --timeout 900

# The libraries and the tsan-marked unit tests only (tests/unit/CMakeLists.txt): oracle service and
# server, replicas, thread pools.
step "tsan build"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
step "tsan tests"
ctest --preset tsan -j "$jobs" --timeout 900

# Simulated clusters of 64-512 ranks (docs/smpi.md); build about 2 minutes, tests 130 s on two cores.
step "smpi build"
cmake --preset smpi >/dev/null
cmake --build --preset smpi -j "$jobs"
step "smpi tests"
ctest --preset smpi --timeout 600

if [ -x scripts/fuzz.sh ]; then
  step "fuzzing (bounded time)"
  # Six targets at 20 s each: two minutes, of CI's 90 (the CI run of 2026-11-29 took 5,400 s);
  # the corpora in tests/fuzz hold what longer runs found.
  scripts/fuzz.sh 20
fi
