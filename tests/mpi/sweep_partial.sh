#!/usr/bin/env bash
# A sweep stopped before its end (a wall-time limit, a hang in a broken MPI call) leaves what it
# measured: the sweep rewrites its JSON after every op, atomically, with status cut_short and
# "in progress: N of M ops done" (docs/gridlock-bench.md). This starts a sweep, waits for the first
# partial file, stops the job with SIGTERM as a batch system would at its limit, and checks the
# file and that `gridlock model fit` reads it with a warning.
# Usage: sweep_partial.sh MPIEXEC NUMPROC_FLAG BENCH GRIDLOCK OUT.json
set -uo pipefail
fail() {
  echo "FAIL: $*"
  exit 1
}
mpiexec="$1"
np_flag="$2"
bench="$3"
gridlock="$4"
file="$5"
rm -f "$file"
# Every op, each size bounded by time only (about 0.1 s), so that the job runs for many seconds
# after the first op is done and the file is written.
"$mpiexec" "$np_flag" 2 "$bench" sweep --quick --reps 1000000 --max-time 100ms --json "$file" -q >/dev/null 2>&1 &
job=$!
for _ in $(seq 600); do
  [ -f "$file" ] && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
kill -TERM "$job" 2>/dev/null
for _ in $(seq 100); do
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
kill -KILL "$job" 2>/dev/null
wait "$job" 2>/dev/null
[ -f "$file" ] || fail "no partial file $file after the first op"
jq -e '.status == "cut_short" and (.reason | test("^in progress: [0-9]+ of [0-9]+ ops done$"))' "$file" >/dev/null ||
  fail "$file is not a partial file: $(jq -c '{status, reason}' "$file")"
jq -e '.context.schema_version == 2 and (.records | length > 0) and all(.records[]; .status == "ok" and .time_us.median > 0)' \
  "$file" >/dev/null || fail "$file: the measured records are missing or wrong"
out="$("$gridlock" model fit "$file" 2>&1)" || fail "gridlock model fit on the partial file failed: $out"
grep -q "warning: .*the sweep was cut short (\"in progress" <<<"$out" || fail "model fit did not warn: $out"
echo "ok: $(jq -r '.reason' "$file"), $(jq '.records | length' "$file") records kept"
