#!/usr/bin/env bash
# A histogram CSV that cannot be written at the end (its path is /dev/full: the check before
# measuring passes, the write fails with "no space") ends the run with exit code 3 and says why,
# but the main JSON record is already written.
# Usage: csv_failure.sh MPIEXEC GRIDLOCK_BENCH WORKDIR
set -euo pipefail
mpiexec="$1"
bench="$2"
work="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/csv"
ln -s /dev/full "$work/csv/isolated_rr_two_sided_lat.csv"
rc=0
"$mpiexec" -n 4 "$bench" network --virtual-nodes 4 --quick --json "$work/result.json" --csv-dir "$work/csv" \
  >"$work/out" 2>&1 || rc=$?
cat "$work/out"
[ "$rc" -eq 3 ] || fail "exit code $rc, wanted 3"
grep -q "isolated_rr_two_sided_lat.csv" "$work/out" || fail "the error does not name the CSV"
jq -e '.context.schema == "gridlock.bench" and (.phases.isolated.canaries | length == 8)' "$work/result.json" \
  >/dev/null || fail "the JSON record was lost"
echo "ok"
