#!/usr/bin/env bash
# halo3d (examples/apps, MPI_Cart_create with reorder = 1) under SimGrid SMPI on the task-mapping
# paper's machine (gemini-2x2x8) and allocation (its 16 nodes x 4 ranks = 64 ranks, a 4x4x4 grid),
# without and with libgridlock-reorder's wrappers linked in (GRIDLOCK_TOPOLOGY=torus:2x2x8; SMPI's
# processor names are the torus's node names): launched in the allocation's order and in a
# scrambled order of the same nodes. Simulated time is deterministic (computation not simulated),
# so the checks are exact: the residual is the same in every run, and the halo loop (20 iterations
# of 32^3 cubes, no slab residual inside the loop: --check 1000) with the library takes no longer
# than without; the share of the scrambling's cost the reorder recovers is printed.
# Usage: [METHOD=auto|geometric|scotch] reorder_halo_check.sh SMPI_RUN HALO3D HALO3D_REORDER WORKDIR
#   METHOD: GRIDLOCK_REORDER_METHOD (auto by default; geometric alone fails the check, see
#   src/mapping/reorder.cpp)
set -euo pipefail
smpi_run="$1"
plain="$2"
reordered="$3"
work="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
sorted=nid00017,nid00018,nid00019,nid00024,nid00032,nid00033,nid00034,nid00035,nid00039,nid00041,nid00043,nid00044,nid00045,nid00049,nid00050,nid00051
scrambled=nid00017,nid00045,nid00033,nid00051,nid00024,nid00041,nid00018,nid00049,nid00035,nid00019,nid00043,nid00032,nid00050,nid00039,nid00034,nid00044

# run NAME PROGRAM HOSTS: 64 ranks, 4 per host, in $work/NAME.out (and NAME.json, the report).
run() {
  local name="$1" program="$2" hosts="$3"
  (cd "$work" && GRIDLOCK_SMPI_BENCH="$program" GRIDLOCK_SMPI_RANKS_PER_HOST=4 GRIDLOCK_SMPI_HOSTS="$hosts" \
    GRIDLOCK_TOPOLOGY=torus:2x2x8 GRIDLOCK_REORDER_METHOD="${METHOD:-auto}" GRIDLOCK_REORDER_STRICT=1 \
    GRIDLOCK_REORDER_REPORT="$work/$name.json" \
    "$smpi_run" gemini-2x2x8 64 -- --iters 20 --n 32 --check 1000 >"$work/$name.out" 2>&1) ||
    { cat "$work/$name.out"; fail "$name: the run failed"; }
  grep -q "^halo3d: 64 ranks as 4x4x4" "$work/$name.out" || { cat "$work/$name.out"; fail "$name: no summary line"; }
}
ms() { sed -n 's/^halo3d: .* iterations in \([0-9.]*\) ms.*/\1/p' "$work/$1.out"; }
residual() { sed -n 's/^halo3d: .*: residual \([^ ]*\).*/\1/p' "$work/$1.out"; }

run sorted "$plain" "$sorted"
run sorted_reorder "$reordered" "$sorted"
run scrambled "$plain" "$scrambled"
run scrambled_reorder "$reordered" "$scrambled"
for r in sorted_reorder scrambled scrambled_reorder; do
  [ "$(residual $r)" = "$(residual sorted)" ] || fail "$r: residual $(residual $r) against $(residual sorted)"
done
[ "$(jq '.calls | length == 1 and .[0].call == "MPI_Cart_create"' "$work/scrambled_reorder.json")" = true ] ||
  fail "report: $(jq -c .calls "$work/scrambled_reorder.json" | head -c 2000)"
jq -e '.calls[0].reordered' "$work/scrambled_reorder.json" >/dev/null || fail "the scrambled launch was not reordered"
summary() { jq -r '.calls[0] | "\(.reordered) hops \(.before.costs.hops.total) -> \(.after.costs.hops.total), hop-bytes \(.before.hop_bytes) -> \(.after.hop_bytes)"' "$work/$1.json"; }
echo "as launched:  plain $(ms sorted) ms, with the library $(ms sorted_reorder) ms (reordered: $(summary sorted_reorder))"
echo "scrambled:    plain $(ms scrambled) ms, with the library $(ms scrambled_reorder) ms (reordered: $(summary scrambled_reorder))"
awk -v a="$(ms sorted)" -v b="$(ms scrambled)" -v c="$(ms scrambled_reorder)" 'BEGIN {
  if (b > a) printf "recovered: %.0f%% of the %.3f ms the scrambled launch costs\n", 100 * (b - c) / (b - a), b - a }'
awk -v p="$(ms sorted)" -v r="$(ms sorted_reorder)" 'BEGIN { exit !(r <= p) }' ||
  fail "as launched, the halo loop took longer with the library: $(ms sorted_reorder) against $(ms sorted) ms"
awk -v p="$(ms scrambled)" -v r="$(ms scrambled_reorder)" 'BEGIN { exit !(r <= p) }' ||
  fail "scrambled, the halo loop took longer with the library: $(ms scrambled_reorder) against $(ms scrambled) ms"
echo "reorder_halo_check: passed"
