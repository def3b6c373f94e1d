#!/usr/bin/env bash
# One rank's trace cannot be written after the measurement (its path is /dev/full: the check
# before measuring passes, the write fails with "no space"): that trace is lost, nothing else. The
# run ends with exit 0, the JSON holds every rank's summary and names the rank whose trace failed.
# Usage: noise_trace_failure.sh MPIEXEC GRIDLOCK_BENCH WORKDIR
set -euo pipefail
mpiexec="$1"
bench="$2"
work="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/traces"
ln -s /dev/full "$work/traces/noise-rank1.trace"
rc=0
"$mpiexec" -n 2 "$bench" noise --virtual-nodes 2 --duration 0.1s --json "$work/noise.json" \
  --traces "$work/traces" -q >"$work/out" 2>&1 || rc=$?
cat "$work/out"
[ "$rc" -eq 0 ] || fail "exit code $rc, wanted 0"
grep -q "rank 1: warning: trace not written" "$work/out" || fail "rank 1 did not say its trace failed"
jq -e '.trace_failed_ranks == [1] and (.ranks | length == 2) and (.warnings | length == 1)' \
  "$work/noise.json" >/dev/null || fail "JSON: $(jq -c '{trace_failed_ranks, warnings}' "$work/noise.json")"
[ -s "$work/traces/noise-rank0.trace" ] || fail "rank 0's trace was not written"
echo "ok"
