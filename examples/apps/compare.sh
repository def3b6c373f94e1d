#!/usr/bin/env bash
# Simulated against measured, for the example programs (issue 25, part 3). For each program:
#  1. run it untraced: its own main-loop time on rank 0 (MPI_Wtime, printed by the program);
#  2. run it traced with libgridlock-trace.so and convert the archive with
#     `gridlock schedule from-trace` (collectives as gridlock's algorithms, compute kept);
#  3. simulate that schedule with `gridlock sim --loggops-from fit.json`, the LogGOPS parameters
#     fitted on this machine (`gridlock-bench sweep --quick --ops pingpong,bw_uni` on 2 ranks,
#     then `gridlock model fit`; docs/model.md "--loggops-from");
# and prints `| app | ranks | traced wall (max over ranks) | simulated | ratio | measured main loop
# (untraced) | traced compute (max over ranks) |`.
#
# What is compared: the traced run's wall time against the simulated finish time of the same
# run's schedule. The traced wall time of a rank is the span the schedule covers, from the end of
# its MPI_Init to the start of its MPI_Finalize (first to last event but for the time inside
# MPI_Init, which can be most of a short run and is no part of the schedule); the column is the
# maximum over ranks. ratio = simulated / traced wall. The untraced main loop (rank 0's loop only,
# without setup) is shown for the tracer's effect on the run; it is not the same span. The traced
# compute is the largest rank's time between MPI calls: what the schedule keeps of the run but
# the messages, so simulated >= it, and traced wall - simulated is mostly time spent waiting
# inside MPI calls that the simulator does not reproduce.
# Why they differ: the machine is small and oversubscribed (NP ranks on 2 shared cores: a rank
# that waits for a core is compute in the trace, and its partners wait in MPI calls, which the
# simulator replaces by the modelled message times); messages go through shared memory, not a
# network, fitted as one LogGOPS point-to-point model (collectives are simulated as gridlock's
# algorithms, not the MPI library's); MPI calls without messages (communicator creation) take
# no time in the schedule; and the tracer adds its overhead to every call it records.
# Reported, not asserted: no test holds these times to a bound.
#
# Usage: examples/apps/compare.sh [BUILD_DIR (build/ci)] [NP (4)]
# Environment: MPIEXEC (mpiexec), WORK (BUILD_DIR/compare-npNP: traces, schedules, fit),
# REPEAT (3): runs of each kind per program, of which the least disturbed is shown. More ranks
# than cores with Open MPI: export OMPI_MCA_rmaps_base_oversubscribe=1.
set -euo pipefail
build="$(cd "${1:-build/ci}" && pwd)"
np="${2:-4}"
mpiexec="${MPIEXEC:-mpiexec}"
work="${WORK:-$build/compare-np$np}"
repeat="${REPEAT:-3}"
gridlock="$build/apps/gridlock/gridlock"
bench="$build/apps/gridlock-bench/gridlock-bench"
lib="$build/src/trace/libgridlock-trace.so"
apps="$build/examples/apps"
fail() { echo "compare.sh: $*" >&2; exit 1; }
for f in "$gridlock" "$bench" "$lib" "$apps/halo3d" "$apps/cg" "$apps/master_worker"; do
  [ -e "$f" ] || fail "$f not found: build the targets gridlock gridlock-bench gridlock-trace example_halo3d example_cg example_master_worker in $build"
done
command -v otf2-print >/dev/null || fail "otf2-print not found (Debian package otf2-tools)"
command -v jq >/dev/null || fail "jq not found (Debian package jq)"
rm -rf "$work"
mkdir -p "$work"

echo "fitting LogGOPS on this machine (2 ranks: pingpong, bw_uni)..." >&2
"$mpiexec" -n 2 "$bench" sweep --quick --ops pingpong,bw_uni --json "$work/sweep.json" -q >"$work/sweep.out" 2>&1 ||
  fail "sweep: $(cat "$work/sweep.out")"
"$gridlock" model fit "$work/sweep.json" --json "$work/fit.json" -q >"$work/fit.out" 2>&1 || fail "model fit: $(cat "$work/fit.out")"

# ms NS: nanoseconds as milliseconds with 3 decimals.
ms() { awk -v ns="$1" 'BEGIN { printf "%.3f ms", ns / 1e6 }'; }

# traced_wall_ns ANCHOR: the maximum over ranks (OTF2 locations) of MPI_Init's Leave to
# MPI_Finalize's Enter, in nanoseconds.
traced_wall_ns() {
  local tps ns
  tps=$(otf2-print -G "$1" | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p' | head -1)
  [ -n "$tps" ] || fail "$1: no clock resolution in the trace's definitions"
  ns=$(otf2-print "$1" | awk -v tps="$tps" '
    $1 == "LEAVE" && /Region: "MPI_Init(_thread)?"/ { start[$2] = $3 }
    $1 == "ENTER" && /Region: "MPI_Finalize"/ { stop[$2] = $3 }
    END { m = 0; for (r in stop) if ((r in start) && stop[r] - start[r] > m) m = stop[r] - start[r]; printf "%.0f", m * 1e9 / tps }')
  [ "$ns" -gt 0 ] || fail "$1: no MPI_Init/MPI_Finalize span in the trace"
  echo "$ns"
}

rows=()
loggops=""
# compare APP ARGS...: one row.
compare() {
  local app="$1"
  shift
  local dir="$work/$app"
  mkdir -p "$dir"
  echo "$app: untraced, traced, converted, simulated..." >&2
  # The least disturbed of REPEAT runs each (other jobs share the cores): the shortest untraced
  # main loop, and the traced run with the shortest traced wall time, whose trace is simulated.
  local k loop="" t wall_ns="" w best=""
  for ((k = 1; k <= repeat; k++)); do
    "$mpiexec" -n "$np" "$apps/$app" "$@" >"$dir/untraced$k.out" 2>&1 || fail "$app: untraced run: $(cat "$dir/untraced$k.out")"
    t=$(sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' "$dir/untraced$k.out" | head -1)
    [ -n "$t" ] || fail "$app: no main-loop time in: $(cat "$dir/untraced$k.out")"
    if [ -z "$loop" ] || awk -v a="$t" -v b="$loop" 'BEGIN { exit !(a < b) }'; then loop="$t"; fi
    "$mpiexec" -n "$np" env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$dir/trace$k" "$apps/$app" "$@" >"$dir/traced$k.out" 2>&1 ||
      fail "$app: traced run: $(cat "$dir/traced$k.out")"
    w=$(traced_wall_ns "$dir/trace$k/traces.otf2")
    if [ -z "$wall_ns" ] || [ "$w" -lt "$wall_ns" ]; then wall_ns="$w" best="$k"; fi
  done
  "$gridlock" schedule from-trace "$dir/trace$best" -q -o "$dir/$app.goal" >"$dir/convert.out" 2>&1 ||
    fail "$app: from-trace: $(cat "$dir/convert.out")"
  "$gridlock" sim "$dir/$app.goal" --loggops-from "$work/fit.json" --json "$dir/sim.json" -q >"$dir/sim.out" 2>&1 ||
    fail "$app: sim: $(cat "$dir/sim.out")"
  loggops=$(grep '^LogGOPS:' "$dir/sim.out" || true)
  "$gridlock" schedule info "$dir/$app.goal" --json "$dir/info.json" >/dev/null || fail "$app: schedule info failed"
  local sim_ps calc_ps
  sim_ps=$(jq '.result.max_finish_ps' "$dir/sim.json")
  calc_ps=$(jq '.schedule.calc_ps.max' "$dir/info.json")
  rows+=("| $app | $np | $(ms "$wall_ns") | $(ms "$((sim_ps / 1000))") | $(awk -v s="$sim_ps" -v w="$wall_ns" 'BEGIN { printf "%.2f", s / 1000 / w }') | $loop ms | $(ms "$((calc_ps / 1000))") |")
}

compare halo3d --iters 100 --n 32
compare cg --n 128 --iters 300
compare master_worker --tasks 1000 --max-size 16384

echo "simulated with $loggops (--loggops-from $work/fit.json); $(date -u +%Y-%m-%dT%H:%MZ), $(uname -n), $(nproc) cores"
echo "| app | ranks | traced wall (max over ranks) | simulated | ratio | measured main loop (untraced) | traced compute (max over ranks) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
