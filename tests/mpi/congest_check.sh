#!/usr/bin/env bash
# `gridlock-bench congest` end to end (issue 41 §2): a run of a set duration, one ended by its stop
# file, one ended by SIGUSR1 sent to the launcher (Open MPI's mpirun and MPICH's hydra forward it
# to every rank), and the refusals. Each run's JSON and CSV are checked against
# docs/formats/bench-json.md ("congest"): every rank accounted for, the intervals' bytes adding up
# to the totals, the stop reason.
# Usage: congest_check.sh OUTDIR BENCH MPIEXEC [MPIEXEC_FLAGS...]   (4 ranks)
set -euo pipefail
fail() {
  echo "FAIL: $*"
  exit 1
}
out="$1"
bench="$2"
shift 2
launch=("$@" -n 4 "$bench" congest --virtual-nodes 4)
mkdir -p "$out"
rm -f "$out"/congest_*

# check JSON CSV STOP: the file's context, the congestors, the intervals.
check() {
  local json="$1" csv="$2" stop="$3"
  [ -f "$json" ] || fail "$json was not written"
  jq -e '.context.tool == "gridlock-bench congest" and .context.schema == "gridlock.bench.congest"
    and .context.schema_version == 1 and .context.mode == "congest" and .context.ranks == 4
    and .context.nodes == 4 and (.context.seed | type) == "number"' "$json" >/dev/null ||
    fail "$json: context block wrong: $(jq -c .context "$json")"
  jq -e --arg stop "$stop" '.stop == $stop' "$json" >/dev/null || fail "$json: stopped by $(jq .stop "$json"), not $stop"
  jq -e '([.congestors[].ranks] | add) == 4 and ([.congestors[].nodes] | add) == 4' "$json" >/dev/null ||
    fail "$json: the congestors' ranks or nodes do not add up to the job's"
  jq -e '[.congestors[] | select(.bytes <= 0 or .iterations <= 0 or .mib_per_s_total <= 0)] | length == 0' \
    "$json" >/dev/null || fail "$json: a congestor moved no data"
  # Every batch's bytes land in one interval: the intervals add up to the total exactly.
  jq -e '[.congestors[] | select(([.intervals[].bytes] | add) != .bytes)] | length == 0' "$json" >/dev/null ||
    fail "$json: the intervals' bytes do not add up to the totals"
  jq -e '(.seconds / .interval_s | ceil) as $n | [.congestors[] | select((.intervals | length) != $n)] | length == 0' \
    "$json" >/dev/null || fail "$json: not one interval per interval_s of the run"
  if [ -n "$csv" ]; then
    [ -f "$csv" ] || fail "$csv was not written"
    grep -q '^# schema: gridlock.bench.congest' "$csv" || fail "$csv: no context block"
    grep -q '^congestor,interval,start_s,end_s,ranks,mib_per_s_total,mib_per_s_per_rank$' "$csv" ||
      fail "$csv: header missing"
    local rows expected
    rows=$(grep -vc '^#\|^congestor,' "$csv")
    expected=$(jq '[.congestors[].intervals | length] | add' "$json")
    [ "$rows" = "$expected" ] || fail "$csv: $rows rows, expected $expected"
  fi
}

# 1. A set duration, two congestor types on two nodes each.
"${launch[@]}" --congestors a2a,p2p-incast --duration 1s --interval 250ms --seed 4 \
  --json "$out/congest_duration.json" --csv "$out/congest_duration.csv" -q >"$out/congest_duration.txt" ||
  fail "the duration run failed: $(cat "$out/congest_duration.txt")"
check "$out/congest_duration.json" "$out/congest_duration.csv" duration
grep -q 'stopped by duration' "$out/congest_duration.txt" || fail "no summary line: $(cat "$out/congest_duration.txt")"
grep -q '| *All-to-all (2 nodes) |' "$out/congest_duration.txt" || fail "no table row: $(cat "$out/congest_duration.txt")"

# wait_started LOG PID: until the run says it started (its stop signals are handled from then on).
wait_started() {
  for _ in $(seq 1 300); do
    grep -q '^gridlock-bench congest: ' "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || fail "the run ended before it started: $(cat "$1")"
    sleep 0.1
  done
  fail "the run never started: $(cat "$1")"
}

# 2. A stop file (no duration): the run ends soon after it appears.
stop="$out/congest_stop.flag"
"${launch[@]}" --congestors a2a,rma-bcast --stop-file "$stop" --interval 200ms --seed 5 \
  --json "$out/congest_file.json" >"$out/congest_file.txt" 2>"$out/congest_file.err" &
pid=$!
wait_started "$out/congest_file.err" "$pid"
sleep 0.5
touch "$stop"
wait "$pid" || fail "the stop-file run failed: $(cat "$out/congest_file.err")"
check "$out/congest_file.json" "" stop-file

# 3. SIGUSR1 to the launcher: rank 0 stops the run, every rank leaves cleanly, the files are written.
"${launch[@]}" --congestors a2a,rma-incast --duration 10min --interval 200ms --seed 6 \
  --json "$out/congest_signal.json" >"$out/congest_signal.txt" 2>"$out/congest_signal.err" &
pid=$!
wait_started "$out/congest_signal.err" "$pid"
sleep 0.5
kill -USR1 "$pid"
wait "$pid" || fail "the signalled run failed: $(cat "$out/congest_signal.err")"
check "$out/congest_signal.json" "" signal

# 4. Refusals: no end given; more congestor types than pairs of nodes.
set +e
msg=$("${launch[@]}" --congestors a2a -q 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "congest without --duration or --stop-file exited $rc: $msg"
grep -q 'needs --duration T, --stop-file F or both' <<<"$msg" || fail "no clear message: $msg"
set +e
msg=$("${launch[@]}" --congestors a2a,p2p-incast,rma-incast --duration 1s -q 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "three congestor types on four nodes exited $rc: $msg"
grep -q 'too few nodes for the chosen congestors' <<<"$msg" || fail "no clear message: $msg"
echo "congest_check: all passed"
