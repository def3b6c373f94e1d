#!/usr/bin/env bash
# Traces the example programs of examples/apps (halo3d, cg, master_worker) with
# libgridlock-trace.so preloaded and checks each OTF2 archive, read back with otf2-print, against
# the program's own --counts (one JSON line per rank): per rank the number and bytes of
# MpiSend/MpiIsend events equal what it sent and of MpiRecv/MpiIrecv what it received, every
# Isend and Irecv request completes, and the collectives (MpiCollectiveEnd by operation and by
# the members of their communicator, as world ranks from `otf2-print -G`) are the ones it called.
# halo3d's slab Allreduce must be on a communicator other than MPI_COMM_WORLD with fewer members.
# Usage: trace_apps_check.sh MPIEXEC RANKS LIBGRIDLOCK_TRACE APPS_DIR WORKDIR
set -euo pipefail
mpiexec="$1"
n="$2"
lib="$3"
apps="$4"
work="$5"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v otf2-print >/dev/null || fail "otf2-print not found (Debian package otf2-tools)"
command -v jq >/dev/null || fail "jq not found (Debian package jq)"
rm -rf "$work"
mkdir -p "$work"

# check APP ARGS...: one traced run and its checks.
check() {
  local app="$1"
  shift
  local dir="$work/$app"
  mkdir -p "$dir"
  # `env` sets the variables in the ranks only, not in the launcher.
  "$mpiexec" -n "$n" env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$dir/trace" "$apps/$app" "$@" \
    --counts "$dir/counts.json" >"$dir/out" 2>&1 || { cat "$dir/out"; fail "$app: traced run failed"; }
  cat "$dir/out"
  grep -q "gridlock-trace: wrote $dir/trace/traces.otf2: $n ranks" "$dir/out" || fail "$app: no summary line"
  otf2-print "$dir/trace/traces.otf2" >"$dir/events" 2>"$dir/print.err" || fail "$app: otf2-print: $(cat "$dir/print.err")"
  otf2-print -G "$dir/trace/traces.otf2" >"$dir/defs" 2>>"$dir/print.err"
  [ ! -s "$dir/print.err" ] || fail "$app: otf2-print warned: $(cat "$dir/print.err")"
  [ "$(jq -s 'map(.rank) | sort == [range('"$n"')]' "$dir/counts.json")" = true ] ||
    fail "$app: --counts does not hold one line per rank: $(cat "$dir/counts.json")"

  # What the trace shows, one line per fact, compared with what the program counted:
  # "R sent N BYTES", "R received N BYTES" per rank, "R OP MEMBERS" per collective (MEMBERS: the
  # world ranks of its communicator joined by '.'), and "R unfinished ..." for a rank whose
  # Isend or Irecv requests did not all complete (the converter pairs them by request id).
  awk '
    function field(name,   s) { s = $0; if (!sub(".*" name ": ", "", s)) return ""; sub(/[ ,(].*/, "", s); return s }
    FNR == NR {  # the definitions
      if ($1 == "COMM") { s = $0; sub(/.*Group: "[^"]*" </, "", s); sub(/>.*/, "", s); group[$2] = s }
      if ($1 == "GROUP") {
        s = $0; m = ""
        if (sub(/.*Members?: /, "", s)) { gsub(/ \([^)]*\)/, "", s); gsub(/, /, ".", s); m = s }
        members[$2] = m
      }
      next
    }
    $1 == "MPI_SEND" || $1 == "MPI_ISEND" { sends[$2]++; sbytes[$2] += field("Length") }
    $1 == "MPI_RECV" || $1 == "MPI_IRECV" { recvs[$2]++; rbytes[$2] += field("Length") }
    $1 == "MPI_ISEND" { isend[$2]++ } $1 == "MPI_ISEND_COMPLETE" { isend_done[$2]++ }
    $1 == "MPI_IRECV_REQUEST" { irecv_req[$2]++ } $1 == "MPI_IRECV" { irecv[$2]++ }
    $1 == "MPI_COLLECTIVE_END" {
      c = $0; sub(/.*Communicator: "[^"]*" </, "", c); sub(/>.*/, "", c)
      printf "%d %s %s\n", $2, tolower(field("Operation")), members[group[c]]
    }
    END {
      for (r = 0; r < n; r++) {
        printf "%d sent %d %.0f\n%d received %d %.0f\n", r, sends[r], sbytes[r], r, recvs[r], rbytes[r]
        if (isend[r] != isend_done[r] || irecv_req[r] != irecv[r])
          printf "%d unfinished: Isend %d, completed %d; Irecv %d, completed %d\n", r, isend[r], isend_done[r],
            irecv_req[r], irecv[r]
      }
    }' n="$n" "$dir/defs" "$dir/events" | sort | uniq -c >"$dir/trace.txt"
  jq -r '"\(.rank) sent \(.sent.messages) \(.sent.bytes)", "\(.rank) received \(.received.messages) \(.received.bytes)",
    (.rank as $r | .collectives[] | (.members | map(tostring) | join(".")) as $m | .ops | to_entries[] |
     range(.value) as $i | "\($r) \(.key) \($m)")' "$dir/counts.json" | sort | uniq -c >"$dir/program.txt"
  diff "$dir/program.txt" "$dir/trace.txt" >"$dir/diff" ||
    fail "$app: the trace (>) differs from the program's counts (<); lines: count, rank, what:
$(cat "$dir/diff")"
}

# Faces of 4x4 doubles: Open MPI completes such small Isends at once, with a shared request handle.
check halo3d --iters 6 --n 4 --check 2
# The slab Allreduce: on a communicator other than MPI_COMM_WORLD, with the x-slab's members.
for ((r = 0; r < n; r++)); do
  slab=$(jq -r "select(.rank == $r) | .collectives[] | select(.comm == \"slab\") | .members | length" \
    "$work/halo3d/counts.json")
  [ "$slab" -lt "$n" ] || fail "halo3d: rank $r: the slab has all $n ranks: not a sub-communicator"
  grep -E "^MPI_COLLECTIVE_END +$r .*Operation: ALLREDUCE," "$work/halo3d/events" | grep -vq '"MPI_COMM_WORLD"' ||
    fail "halo3d: rank $r: no Allreduce on a sub-communicator"
done
check cg --n 16 --iters 10
check master_worker --tasks 20 --max-size 300 --seed 7
echo "ok"
