#!/usr/bin/env bash
# Installs a built tree into a temporary prefix and checks the installed gridlock the way a user
# would (issue 28; docs/install.md): with the build tree moved away, the installed tools run, an
# MPI job of the installed gridlock-bench runs, nothing resolves into the build or source tree,
# and a project outside gridlock (tests/install, C++ only) builds against the install with
# find_package (gridlock::bench included) and with pkg-config and runs a simulation.
#   scripts/install-check.sh [BUILD_DIR=build/ci]
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(realpath -- "${1:-build/ci}")
[ -f "$build/CMakeCache.txt" ] || { echo "install-check: '$build' is not a configured build tree" >&2; exit 2; }
work=$(mktemp -d)
prefix="$work/prefix with space"
away="$build.install-check-away"
restore() {
  if [ -d "$away" ]; then mv "$away" "$build"; fi
  rm -rf "$work"
}
trap restore EXIT
fail() { echo "install-check: FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install"; }
# The installed tools must not need the build tree: it is moved away until the checks are done.
mv "$build" "$away"
# shellcheck source=/dev/null
source scripts/mpi-env.sh
cd "$work"

bin="$prefix/bin"
for tool in gridlock gridlock-bench; do
  [ -x "$bin/$tool" ] || fail "$tool is not installed in $bin"
  if ldd "$bin/$tool" | grep -F -e "$src" -e "$away"; then
    fail "$tool resolves a library inside the source or build tree"
  fi
done
"$bin/gridlock" version | grep -q "^gridlock " || fail "gridlock version"
"$bin/gridlock" sim "$prefix/share/doc/gridlock/examples/sim/pingpong.goal" -q --json "$work/sim.json" >/dev/null ||
  fail "installed gridlock sim"
grep -q '"gridlock.sim.result"' "$work/sim.json" || fail "gridlock sim wrote no result"
"$bin/gridlock" topo info torus:2x2x2 >/dev/null || fail "installed gridlock topo info"
[ -f "$prefix/share/gridlock/platforms/crossbar-4.xml" ] || fail "SimGrid platforms not installed"
# --system finds the installed presets next to the executable, before the source tree's.
"$bin/gridlock" predict gpcnet --system crystal --nodes 64 --iterations 2 --rings 1 -q --json "$work/crystal.json" \
  >/dev/null || fail "installed gridlock predict gpcnet --system crystal"
grep -q "\"file\": \"$prefix/share/gridlock/systems/crystal.json\"" "$work/crystal.json" ||
  fail "--system crystal was not read from $prefix/share/gridlock/systems"
for page in gridlock gridlock-sim gridlock-topo-route gridlock-bench gridlock-bench-sweep; do
  [ -f "$prefix/share/man/man1/$page.1" ] || fail "man page $page.1 not installed"
done
if command -v man >/dev/null; then
  MANPATH="$prefix/share/man" man -w gridlock-sim >/dev/null || fail "man does not find the installed gridlock-sim(1)"
fi
for tool in gridlock gridlock-bench; do
  bash -n "$prefix/share/bash-completion/completions/$tool" || fail "bash completion for $tool not installed or broken"
done
mpiexec -n 2 "$bin/gridlock-bench" sweep --ops pingpong --sizes 8 --only-sizes --reps 50 -q \
  --json "$work/sweep.json" >/dev/null || fail "installed gridlock-bench under mpiexec"
grep -q '"pingpong"' "$work/sweep.json" || fail "gridlock-bench sweep wrote no pingpong record"
# The preloaded libraries: installed, nothing resolved in the build tree, and the reorder library
# preloaded into an MPI job that makes no topology call changes nothing (it exports MPI symbols only).
for lib in libgridlock-trace.so libgridlock-reorder.so; do
  so="$(find "$prefix" -name "$lib" | head -1)"
  [ -n "$so" ] || fail "$lib is not installed under $prefix"
  if ldd "$so" | grep -F -e "$src" -e "$away" -e "not found"; then
    fail "$lib resolves a library inside the source or build tree, or not at all"
  fi
done
# LD_PRELOAD splits its list at spaces, and the prefix has one: the library through a link.
ln -s "$(find "$prefix" -name libgridlock-reorder.so | head -1)" "$work/libgridlock-reorder.so"
mpiexec -n 2 env LD_PRELOAD="$work/libgridlock-reorder.so" GRIDLOCK_REORDER_STRICT=1 \
  GRIDLOCK_REORDER_REPORT="$work/reorder.json" "$bin/gridlock-bench" sweep --ops pingpong --sizes 8 --only-sizes \
  --reps 50 -q --json "$work/sweep2.json" >/dev/null || fail "installed gridlock-bench with libgridlock-reorder.so preloaded"
# The report, written by the library's MPI_Finalize, shows it was loaded: no topology call, no entry.
grep -q '"calls": \[\]' "$work/reorder.json" || fail "the preloaded libgridlock-reorder.so wrote no report"

# A consumer project: CMake package, then pkg-config.
cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log" >&2; fail "find_package(gridlock)"; }
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log" >&2; fail "consumer build (CMake)"; }
"$work/consumer/consumer" | tee "$work/consumer.out"
grep -q "complete" "$work/consumer.out" || fail "consumer (CMake) did not simulate"
if [ -x "$work/consumer/consumer_bench" ]; then
  "$work/consumer/consumer_bench" | grep -q "launcher check ok" || fail "consumer of gridlock::bench (CMake)"
elif [ -f "$prefix/include/gridlock/bench/launcher.hpp" ]; then
  fail "gridlock::bench is installed but the consumer did not build against it"
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# Without -r: pkg-config escapes the spaces of a path with backslashes.
# shellcheck disable=SC2162
read -a pc_flags < <(pkg-config --cflags --libs gridlock)
"${CXX:-c++}" -O1 "$src/tests/install/consumer.cpp" "${pc_flags[@]}" -o "$work/consumer-pc" ||
  fail "consumer build (pkg-config)"
"$work/consumer-pc" | grep -q "complete" || fail "consumer (pkg-config) did not simulate"
echo "install-check: installed tree in a temporary prefix works without the build tree (tools, MPI job, CMake package, pkg-config)"
