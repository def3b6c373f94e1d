#!/usr/bin/env bash
# The round trip of issue 25: an unmodified MPI program traced with libgridlock-trace.so, its
# OTF2 archive converted by `gridlock schedule from-trace`, the schedule simulated by
# `gridlock sim`. For each example program of examples/apps, held against its own --counts:
#  - point-to-point only (--no-collectives --no-compute): every rank's sends and their bytes in
#    the GOAL file are what the rank sent, and the simulation completes with as many messages as
#    the ranks sent in all (the round trip keeps every message);
#  - the full conversion (collectives, compute) simulates to completion, and the converter's
#    collective calls by MPI name are the program's calls summed over ranks and communicators
#    (halo3d's MPI_Allreduce on its Cart_sub sub-communicator is converted, not dropped);
#  - `gridlock schedule info TRACE --json` describes the trace as that schedule (sends, receives,
#    bytes per rank, nothing unmatched), and the point-to-point schedule's per-rank send
#    statistics are those of the counts.
# Then, at 4 ranks, incomplete traces: a program that exits without MPI_Finalize leaves no archive that
# from-trace can read (non-zero exit, no output, also with --drop-unmatched); a trace cut by
# GRIDLOCK_TRACE_MAX_BYTES is refused with a message naming --drop-unmatched and converts (and
# simulates) with it.
# Usage: trace_roundtrip.sh MPIEXEC RANKS LIBGRIDLOCK_TRACE APPS_DIR GRIDLOCK TRACE_APP WORKDIR
set -euo pipefail
mpiexec="$1"
n="$2"
lib="$3"
apps="$4"
gridlock="$5"
trace_app="$6"
work="$7"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq not found (Debian package jq)"
rm -rf "$work"
mkdir -p "$work"

# traced DIR APP ARGS...: one traced run of an example program with --counts DIR/counts.json.
traced() {
  local dir="$1" app="$2"
  shift 2
  mkdir -p "$dir"
  # `env` sets the variables in the ranks only, not in the launcher.
  "$mpiexec" -n "$n" env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$dir/trace" "$apps/$app" "$@" \
    --counts "$dir/counts.json" >"$dir/run.out" 2>&1 || { cat "$dir/run.out"; fail "$app: traced run failed"; }
  [ "$(jq -s 'map(.rank) | sort == [range('"$n"')]' "$dir/counts.json")" = true ] ||
    fail "$app: --counts does not hold one line per rank: $(cat "$dir/counts.json")"
}

# stats FIELD: {total, min, median (the lower one), max} over ranks of a per-rank number, as
# docs/formats/schedule-info-json.md defines them.
stats() {
  jq -s -c "sort_by(.rank) | map($1) | sort | {total: add, min: .[0], median: .[(length - 1) / 2 | floor], max: .[-1]}"
}

check() {
  local app="$1"
  shift
  local dir="$work/$app"
  traced "$dir" "$app" "$@"

  # Point-to-point only: per rank "R sends BYTES" from the GOAL file against the counts.
  "$gridlock" schedule from-trace "$dir/trace" --no-collectives --no-compute -q -o "$dir/p2p.goal" \
    >"$dir/p2p.out" 2>&1 || fail "$app: from-trace --no-collectives --no-compute: $(cat "$dir/p2p.out")"
  awk '$1 == "rank" { r = $2 } $2 == "send" { m[r]++; b[r] += $3 + 0 }
    END { for (r = 0; r < n; r++) printf "%d %d %d\n", r, m[r], b[r] }' n="$n" "$dir/p2p.goal" >"$dir/p2p.txt"
  jq -s -r 'sort_by(.rank)[] | "\(.rank) \(.sent.messages) \(.sent.bytes)"' "$dir/counts.json" >"$dir/program.txt"
  diff "$dir/program.txt" "$dir/p2p.txt" >"$dir/p2p.diff" ||
    fail "$app: the point-to-point schedule's sends (>) differ from the program's (<) (rank, messages, bytes):
$(cat "$dir/p2p.diff")"
  "$gridlock" sim "$dir/p2p.goal" --json "$dir/p2p.json" -q >"$dir/p2p_sim.out" 2>&1 ||
    fail "$app: gridlock sim of the point-to-point schedule: $(cat "$dir/p2p_sim.out")"
  local sent messages
  sent=$(jq -s 'map(.sent.messages) | add' "$dir/counts.json")
  messages=$(jq '.result | select(.complete) | .messages' "$dir/p2p.json")
  [ "$messages" = "$sent" ] || fail "$app: simulated $messages messages (empty: incomplete), the ranks sent $sent"

  # The full conversion: collectives on their communicators, compute.
  "$gridlock" schedule from-trace "$dir/trace" -q -o "$dir/full.goal" >"$dir/full.out" 2>&1 ||
    fail "$app: from-trace: $(cat "$dir/full.out")"
  ! grep -q "left out" "$dir/full.out" || fail "$app: from-trace left something out: $(cat "$dir/full.out")"
  # "MPI_Allreduce 16" per collective: the converter's calls against the counts' over all communicators.
  sed -n 's/^  \(MPI_[A-Za-z_]*\): \([0-9]*\) calls$/\1 \2/p' "$dir/full.out" | sort >"$dir/coll.txt"
  jq -s -r '[.[].collectives[].ops | to_entries[]] | group_by(.key)[] |
    "MPI_\(.[0].key | (.[:1] | ascii_upcase) + .[1:]) \(map(.value) | add)"' "$dir/counts.json" | sort >"$dir/coll_program.txt"
  [ -s "$dir/coll_program.txt" ] || fail "$app: the program counted no collectives"
  diff "$dir/coll_program.txt" "$dir/coll.txt" >"$dir/coll.diff" ||
    fail "$app: the converted collective calls (>) differ from the program's (<):
$(cat "$dir/coll.diff")"
  "$gridlock" sim "$dir/full.goal" --json "$dir/full.json" -q >"$dir/full_sim.out" 2>&1 ||
    fail "$app: gridlock sim of the full schedule: $(cat "$dir/full_sim.out")"
  [ "$(jq '.result.complete and .result.ops_completed == .result.ops_total' "$dir/full.json")" = true ] ||
    fail "$app: the full schedule's simulation is not complete"

  # schedule info on the trace: the full schedule's per-rank figures, nothing unmatched; and the
  # point-to-point schedule's per-rank sends are the counts'.
  "$gridlock" schedule info "$dir/trace" --json "$dir/info.json" >"$dir/info.out" 2>&1 ||
    fail "$app: schedule info on the trace: $(cat "$dir/info.out")"
  "$gridlock" schedule info "$dir/full.goal" --json "$dir/info_full.json" >/dev/null
  "$gridlock" schedule info "$dir/p2p.goal" --json "$dir/info_p2p.json" >/dev/null
  local pick='.schedule | {ranks, sends, recvs, bytes_sent, unmatched}'
  [ "$(jq -c "$pick" "$dir/info.json")" = "$(jq -c "$pick" "$dir/info_full.json")" ] ||
    fail "$app: schedule info on the trace: $(jq -c "$pick" "$dir/info.json"); on its schedule: $(jq -c "$pick" "$dir/info_full.json")"
  [ "$(jq '.schedule.unmatched.sends + .schedule.unmatched.recvs' "$dir/info.json")" = 0 ] ||
    fail "$app: schedule info on the trace reports unmatched messages"
  local want got
  want="$(stats .sent.messages <"$dir/counts.json") $(stats .sent.bytes <"$dir/counts.json")"
  got="$(jq -c .schedule.sends "$dir/info_p2p.json") $(jq -c .schedule.bytes_sent "$dir/info_p2p.json")"
  [ "$want" = "$got" ] || fail "$app: schedule info of the point-to-point schedule: sends, bytes $got; the program: $want"
  echo "$app: $sent messages, $(paste -sd, "$dir/coll.txt") round trip ok"
}

check halo3d --iters 6 --n 4 --check 2
# The slab Allreduce: a sub-communicator (fewer members than the world), and it is in the total above.
[ "$(jq -s '[.[].collectives[] | select(.comm == "slab" and (.members | length) < '"$n"') | .ops.allreduce] | add > 0' \
  "$work/halo3d/counts.json")" = true ] || fail "halo3d: no Allreduce on a sub-communicator in the counts"
check cg --n 16 --iters 10
check master_worker --tasks 20 --max-size 300 --seed 7

# The incomplete traces once, at 4 ranks (CI's time budget).
if [ "$n" -ne 4 ]; then
  echo "ok"
  exit 0
fi
# A program that exits without MPI_Finalize: no global definitions, no anchor file.
rc=0
"$mpiexec" -n 2 env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$work/exit/trace" "$trace_app" exit >"$work/exit.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "trace_app exit: exit code 0"
for flag in "" --drop-unmatched; do
  rc=0
  # shellcheck disable=SC2086
  "$gridlock" schedule from-trace "$work/exit/trace" $flag -o "$work/exit.goal" >"$work/exit_conv.out" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -q "^gridlock: error: .*without MPI_Finalize" "$work/exit_conv.out" ||
    fail "from-trace $flag of a run without MPI_Finalize: rc $rc: $(cat "$work/exit_conv.out")"
  [ ! -e "$work/exit.goal" ] || fail "from-trace $flag of a run without MPI_Finalize wrote $work/exit.goal"
done

# A trace cut by the size cap on rank 0 only (all ranks cut at the same call could leave a
# consistent trace): refused, then converted with --drop-unmatched.
dir="$work/capped"
mkdir -p "$dir"
mw=("$apps/master_worker" --tasks 20 --max-size 300 --seed 7)
"$mpiexec" -n 1 env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$dir/trace" GRIDLOCK_TRACE_MAX_BYTES=1KiB "${mw[@]}" \
  : -n $((n - 1)) env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$dir/trace" "${mw[@]}" >"$dir/run.out" 2>&1 ||
  { cat "$dir/run.out"; fail "capped run failed"; }
grep -q "warning: .* not recorded after GRIDLOCK_TRACE_MAX_BYTES" "$dir/run.out" || fail "the cap was not reached: $(cat "$dir/run.out")"
rc=0
"$gridlock" schedule from-trace "$dir/trace" -q -o "$dir/s.goal" >"$dir/conv.out" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "^gridlock: error: .*the trace is not complete: .*" "$dir/conv.out" &&
  grep -q -- "--drop-unmatched converts the rest" "$dir/conv.out" || fail "capped trace: rc $rc: $(cat "$dir/conv.out")"
[ ! -e "$dir/s.goal" ] || fail "capped trace: a refused conversion wrote $dir/s.goal"
"$gridlock" schedule from-trace "$dir/trace" --drop-unmatched -q -o "$dir/s.goal" >"$dir/conv.out" 2>&1 ||
  fail "capped trace with --drop-unmatched: $(cat "$dir/conv.out")"
grep -q "warning: [1-9][0-9]* left out: unmatched message (dropped)" "$dir/conv.out" ||
  fail "capped trace with --drop-unmatched: no dropped messages said: $(cat "$dir/conv.out")"
"$gridlock" sim "$dir/s.goal" -q >"$dir/sim.out" 2>&1 || fail "capped trace's schedule: $(cat "$dir/sim.out")"
echo "ok"
