#!/usr/bin/env bash
# Split launches of `gridlock-bench load` end to end (issue 41 §3): a canary job and a congestor
# job, two launchers on one host, that meet in a rendezvous directory. A whole run; a canary job
# whose congestor job never comes; a congestor job killed (SIGKILL to its whole process group, as
# a scheduler ends an allocation) while the canaries measure loaded; a canary job killed likewise.
# Every failure must end the other job within its heartbeat's limit with a clear message and exit 1.
# Usage: split_launch_check.sh OUTDIR BENCH MPIEXEC [MPIEXEC_FLAGS...]   (2 + 2 ranks)
set -euo pipefail
# fail() and the other helpers of the CLI tests.
. "$(dirname "$(realpath "$0")")/../cli/lib.sh"
out="$1"
bench="$2"
shift 2
mpiexec=("$@")
rm -rf "$out"
mkdir -p "$out"
canaries=("${mpiexec[@]}" -n 2 "$bench" load --virtual-nodes 2 --role canaries --quick --seed 3)
congestors=("${mpiexec[@]}" -n 2 "$bench" load --virtual-nodes 2 --role congestors --congestors a2a --seed 3)

# wait_for FILE PID WHAT: until FILE exists (the job PID still running).
wait_for() {
  for _ in $(seq 1 600); do
    [ -e "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || fail "$3: the job ended first"
    sleep 0.1
  done
  fail "$3: $1 never appeared"
}

# 1. A whole run: the congestor job first, the canary job after it; both end cleanly.
dir="$out/whole"
mkdir -p "$dir"
"${congestors[@]}" --rendezvous "$dir" --json "$out/whole_congestors.json" >"$out/whole_congestors.txt" \
  2>"$out/whole_congestors.err" &
cpid=$!
"${canaries[@]}" --rendezvous "$dir" --json "$out/whole_canaries.json" >"$out/whole_canaries.txt" \
  2>"$out/whole_canaries.err" || fail "the canary job failed: $(cat "$out/whole_canaries.err")"
wait "$cpid" || fail "the congestor job failed: $(cat "$out/whole_congestors.err")"
c="$out/whole_canaries.json"
g="$out/whole_congestors.json"
jq -e '.context.parameters.role == "canaries" and .status == "complete" and (.phases | has("isolated"))
  and .phases.loaded.congestors == ["a2a"] and (.roles | keys) == ["canary"]' "$c" >/dev/null ||
  fail "$c: not a split canary run: $(jq -c '{status, roles, p: (.phases | keys)}' "$c")"
jq -e --slurpfile g "$g" '.split_launch.run_id == $g[0].context.run_id
  and .split_launch.congestor_job.results.stop == "canaries"
  and .split_launch.congestor_job.context.ranks == 2
  and .split_launch.congestor_job.results.congestors[0].bytes > 0' "$c" >/dev/null ||
  fail "$c: the congestor job's results are not in the canary job's JSON: $(jq -c .split_launch "$c")"
jq -e '.stop == "canaries" and .context.parameters.role == "congestors"' "$g" >/dev/null ||
  fail "$g: $(jq -c '{stop, role: .context.parameters.role}' "$g")"
grep -q '^Congestor job (run ' "$out/whole_canaries.txt" || fail "no congestor table: $(cat "$out/whole_canaries.txt")"
grep -q 'Congestion Impact\|Key Results' "$out/whole_canaries.txt" || fail "no impact table: $(cat "$out/whole_canaries.txt")"

# 2. No congestor job: the canary job gives up after --rendezvous-timeout, having measured nothing.
dir="$out/alone"
mkdir -p "$dir"
set +e
msg=$("${canaries[@]}" --rendezvous "$dir" --rendezvous-timeout 2s -q 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] || fail "a canary job without congestors exited $rc: $msg"
grep -q "the congestor job's ready did not come within 2 s" <<<"$msg" || fail "no clear message: $msg"

# Long canary tests (each to its 1 s --test-timeout), so that a kill falls inside the loaded phase.
long=(--test-timeout 1s --latency-measurements 100000000 --bandwidth-measurements 100000000
  --allreduce-measurements 100000000)

# 3. The congestor job killed once its congestors run: the canary job finishes its loaded phase,
# writes what it measured, and fails with the reason.
dir="$out/congestors_killed"
mkdir -p "$dir"
setsid "${congestors[@]}" --rendezvous "$dir" >"$out/ck_congestors.txt" 2>&1 &
cpid=$!
"${canaries[@]}" "${long[@]}" --rendezvous "$dir" --json "$out/ck_canaries.json" >"$out/ck_canaries.txt" \
  2>"$out/ck_canaries.err" &
kpid=$!
wait_for "$dir/congestors.running" "$kpid" "congestor kill"
kill -9 -- "-$cpid"
set +e
wait "$kpid"
rc=$?
wait "$cpid" 2>/dev/null
set -e
[ "$rc" = 1 ] || fail "the canary job exited $rc after its congestor job was killed: $(cat "$out/ck_canaries.err")"
grep -q "the congestor job of run .* stopped: its heartbeat" "$out/ck_canaries.err" ||
  fail "no clear message: $(cat "$out/ck_canaries.err")"
jq -e '.status == "split_launch_failed" and (.phases | has("isolated"))' "$out/ck_canaries.json" >/dev/null ||
  fail "the canary job's JSON: $(jq -c '{status}' "$out/ck_canaries.json")"

# 4. The canary job killed while it measures loaded: the congestor job stops, writes its results
# and fails with the reason.
dir="$out/canaries_killed"
mkdir -p "$dir"
"${congestors[@]}" --rendezvous "$dir" --json "$out/kk_congestors.json" >"$out/kk_congestors.txt" \
  2>"$out/kk_congestors.err" &
cpid=$!
setsid "${canaries[@]}" "${long[@]}" --rendezvous "$dir" >"$out/kk_canaries.txt" 2>&1 &
kpid=$!
wait_for "$dir/congestors.running" "$cpid" "canary kill"
kill -9 -- "-$kpid"
set +e
wait "$cpid"
rc=$?
wait "$kpid" 2>/dev/null
set -e
[ "$rc" = 1 ] || fail "the congestor job exited $rc after its canary job was killed: $(cat "$out/kk_congestors.err")"
grep -q "the canary job of run .* stopped: its heartbeat" "$out/kk_congestors.err" ||
  fail "no clear message: $(cat "$out/kk_congestors.err")"
jq -e '.stop == "canaries-lost" and (.error | length) > 0' "$out/kk_congestors.json" >/dev/null ||
  fail "the congestor job's JSON: $(jq -c '{stop, error}' "$out/kk_congestors.json")"

# 5. Refusals, before anything runs.
set +e
msg=$("${canaries[@]}" -q 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "--role without --rendezvous exited $rc: $msg"
grep -q 'needs --rendezvous DIR' <<<"$msg" || fail "no clear message: $msg"
set +e
msg=$("${canaries[@]}" --rendezvous "$out/nosuch" -q 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "a missing rendezvous directory exited $rc: $msg"
grep -q 'not an existing directory' <<<"$msg" || fail "no clear message: $msg"
echo "split_launch_check: all passed"
