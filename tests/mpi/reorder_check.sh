#!/usr/bin/env bash
# libgridlock-reorder.so preloaded into unmodified MPI programs (docs/mapping.md, "Reordering
# inside any MPI program"):
#  1. reorder_app (MPI_Graph_create, MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create with
#     reorder = 1, partners on different virtual nodes): the program's own checks pass, every call
#     renumbers ranks, and the report (GRIDLOCK_REORDER_REPORT) has one entry per call with a lower
#     hop-weighted cost after than before;
#  2. with 8 ranks, halo3d (MPI_Cart_create, reorder = 1) on a scrambled allocation of an 8x8x8
#     torus, one rank per virtual node: the same residual as without the library, hop-bytes lower after;
#  3. a configuration the library cannot use (GRIDLOCK_VIRTUAL_NODES not dividing the ranks, a
#     bad GRIDLOCK_METRIC): one warning per call on rank 0 only, no renumbering, exit 0; with
#     GRIDLOCK_REORDER_STRICT=1 the job stops with the error;
#  4. the Fortran bindings (when APP_F is given): reorder_app_f's checks pass with renumbering.
# Usage: reorder_check.sh MPIEXEC RANKS LIBGRIDLOCK_REORDER REORDER_APP HALO3D WORKDIR [APP_F]
set -euo pipefail
mpiexec="$1"
n="$2"
lib="$3"
app="$4"
halo="$5"
work="$6"
app_f="${7:-}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq not found (Debian package jq)"
rm -rf "$work"
mkdir -p "$work"
half=$((n / 2))

# run NAME PROGRAM ENV... [-- ARGS...]: the program under the library with the given variables
# (`env` sets them in the ranks only); output in $work/NAME.out, exit code in $rc.
run() {
  local name="$1" program="$2"
  shift 2
  local vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -eq 0 ] || shift
  rc=0
  "$mpiexec" -n "$n" env LD_PRELOAD="$lib" "${vars[@]}" "$program" "$@" >"$work/$name.out" 2>&1 || rc=$?
  cat "$work/$name.out"
}

# 1. The graph calls.
run graphs "$app" GRIDLOCK_VIRTUAL_NODES=2 GRIDLOCK_REORDER_REPORT="$work/graphs.json"
[ "$rc" = 0 ] || fail "reorder_app exited $rc"
grep -q "reorder_app: all checks passed" "$work/graphs.out" || fail "reorder_app's checks"
for call in MPI_Graph_create MPI_Dist_graph_create_adjacent MPI_Dist_graph_create; do
  grep -Eq "reorder_app: $call: [1-9][0-9]* of $n ranks renumbered" "$work/graphs.out" || fail "$call: no rank renumbered"
done
! grep -q "gridlock-reorder:" "$work/graphs.out" || fail "the library warned on a run it should reorder"
report="$work/graphs.json"
[ "$(jq -r '.context.schema + " " + (.context.ranks | tostring)' "$report")" = "gridlock.reorder $n" ] ||
  fail "report context: $(jq -c .context "$report")"
[ "$(jq '[.calls[].call]' -c "$report")" = '["MPI_Graph_create","MPI_Dist_graph_create_adjacent","MPI_Dist_graph_create"]' ] ||
  fail "report calls: $(jq -c '[.calls[].call]' "$report")"
[ "$(jq '[.calls[] | .reordered and .comm_size == '"$n"' and .messages == '"$n"' and (.after.costs.hops.total < .before.costs.hops.total) and .seconds >= 0] | all' "$report")" = true ] ||
  fail "report: every call reordered with a lower cost: $(jq -c .calls "$report")"

# 2. halo3d on a scrambled allocation (one rank per virtual node) against a run without the library.
# With 8 ranks (a 2x2x2 grid); at 4 ranks (2x2x1) every placement on two pairs of nodes costs the same.
if [ "$n" = 8 ]; then
  nodes=nid00000,nid00146,nid00018,nid00128,nid00002,nid00144,nid00016,nid00130
  "$mpiexec" -n "$n" "$halo" --iters 10 >"$work/halo_plain.out" 2>&1 || { cat "$work/halo_plain.out"; fail "halo3d without the library"; }
  run halo "$halo" GRIDLOCK_TOPOLOGY=torus:8x8x8 GRIDLOCK_NODES="$nodes" GRIDLOCK_VIRTUAL_NODES="$n" \
    GRIDLOCK_REORDER_REPORT="$work/halo.json" -- --iters 10
  [ "$rc" = 0 ] || fail "halo3d under the library exited $rc"
  residual() { sed -n 's/.*: residual \([^ ]*\).*/\1/p' "$1"; }
  [ -n "$(residual "$work/halo_plain.out")" ] || fail "halo3d printed no residual"
  [ "$(residual "$work/halo.out")" = "$(residual "$work/halo_plain.out")" ] ||
    fail "halo3d's residual changed: $(residual "$work/halo.out") against $(residual "$work/halo_plain.out")"
  [ "$(jq '.calls | length == 1 and .[0].call == "MPI_Cart_create" and .[0].reordered and .[0].after.hop_bytes < .[0].before.hop_bytes' "$work/halo.json")" = true ] ||
    fail "halo3d report: $(jq -c .calls "$work/halo.json")"
  echo "halo3d: hop-bytes $(jq -r '.calls[0] | "\(.before.hop_bytes) -> \(.after.hop_bytes) (\(.after.hop_bytes_change_pct | floor) %)"' "$work/halo.json")"
fi

# 3. Configurations the library cannot use: warnings, the order kept; STRICT stops the job.
run uneven "$app" GRIDLOCK_VIRTUAL_NODES=3 GRIDLOCK_REORDER_REPORT="$work/uneven.json"
[ "$rc" = 0 ] || fail "a failed plan stopped the program (exit $rc)"
grep -q "reorder_app: all checks passed" "$work/uneven.out" || fail "reorder_app's checks with the order kept"
[ "$(grep -c "^gridlock-reorder: warning: .*GRIDLOCK_VIRTUAL_NODES=3 does not divide .*keeps the launcher's order" "$work/uneven.out")" = 3 ] ||
  fail "not one warning per call on rank 0"
grep -Eq "reorder_app: MPI_Graph_create: 0 of $n ranks renumbered" "$work/uneven.out" || fail "renumbered despite the failure"
[ "$(jq '[.calls[] | (.reordered | not) and (.error | test("GRIDLOCK_VIRTUAL_NODES"))] | all and length == 3' "$work/uneven.json")" = true ] ||
  fail "report of the failed plans: $(jq -c .calls "$work/uneven.json")"
run metric "$app" GRIDLOCK_METRIC=bogus
[ "$rc" = 0 ] || fail "a bad GRIDLOCK_METRIC stopped the program (exit $rc)"
grep -q "^gridlock-reorder: warning: MPI_Graph_create: GRIDLOCK_METRIC: " "$work/metric.out" || fail "no warning naming GRIDLOCK_METRIC"
run strict "$app" GRIDLOCK_VIRTUAL_NODES=3 GRIDLOCK_REORDER_STRICT=1
[ "$rc" != 0 ] || fail "GRIDLOCK_REORDER_STRICT=1 did not stop the job"
grep -q "^gridlock-reorder: error: MPI_Graph_create: GRIDLOCK_VIRTUAL_NODES=3" "$work/strict.out" || fail "strict: no error line"
! grep -q "all checks passed" "$work/strict.out" || fail "strict: the program went on"
# A report that cannot be written is a warning at MPI_Finalize, not a failed job.
run report "$app" GRIDLOCK_VIRTUAL_NODES=2 GRIDLOCK_REORDER_REPORT="$work/no-such-dir/r.json"
[ "$rc" = 0 ] || fail "an unwritable report stopped the program (exit $rc)"
grep -q "^gridlock-reorder: warning: GRIDLOCK_REORDER_REPORT: " "$work/report.out" || fail "no warning for the unwritable report"

# 4. Fortran.
if [ -n "$app_f" ]; then
  run fortran "$app_f" GRIDLOCK_VIRTUAL_NODES=2 GRIDLOCK_REORDER_REPORT="$work/fortran.json"
  [ "$rc" = 0 ] || fail "reorder_app_f exited $rc"
  grep -q "reorder_app_f: all checks passed" "$work/fortran.out" || fail "reorder_app_f's checks"
  [ "$(jq '[.calls[] | select(.call == "MPI_Dist_graph_create_adjacent") | .reordered and .binding == "fortran"] | all and length == 2' "$work/fortran.json")" = true ] ||
    fail "Fortran report: $(jq -c .calls "$work/fortran.json")"
fi
echo "reorder_check: all passed ($n ranks)"
