#!/usr/bin/env bash
# Traces tests/mpi/trace_app with libgridlock-trace.so preloaded and reads the OTF2 archive back
# with otf2-print: every rank's messages (count, peer, bytes), request completions, collectives
# (count, communicator, root, bytes) and the sub-communicator's members are what the program did.
# With 2 ranks it also checks GRIDLOCK_TRACE_FILTER, GRIDLOCK_TRACE_MAX_BYTES and an existing
# archive directory.
# With MODE fortran the program is trace_app_f.f90 (fewer calls; no filter/cap/bad-input runs).
# Usage: trace_check.sh MPIEXEC RANKS LIBGRIDLOCK_TRACE TRACE_APP WORKDIR [MODE=c|fortran]
set -euo pipefail
mpiexec="$1"
n="$2"
lib="$3"
app="$4"
work="$5"
mode="${6:-c}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v otf2-print >/dev/null || fail "otf2-print not found (Debian package otf2-tools)"
rm -rf "$work"
mkdir -p "$work"

# `env` sets the variables in the ranks only, not in the launcher: works with any mpiexec or srun.
run() { # run DIR [VAR=VALUE...] [-- APP_ARGS...]
  local dir="$1"
  shift
  local vars=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  "$mpiexec" -n "$n" env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$dir" "${vars[@]}" "$app" "$@"
}

run "$work/trace" >"$work/out" 2>&1 || { cat "$work/out"; fail "traced run failed"; }
cat "$work/out"
grep -q "gridlock-trace: wrote $work/trace/traces.otf2: $n ranks" "$work/out" || fail "no summary line"
otf2-print "$work/trace/traces.otf2" >"$work/events" 2>"$work/print.err" || fail "otf2-print: $(cat "$work/print.err")"
otf2-print -G "$work/trace/traces.otf2" >"$work/defs" 2>>"$work/print.err"
[ ! -s "$work/print.err" ] || fail "otf2-print warned: $(cat "$work/print.err")"

# field NAME LINE: the value after "NAME: " (up to the next comma).
summary() { # summary RANK: one line of counts and sums for that location
  awk -v r="$1" '
    function field(name,   s) { s = $0; if (!sub(".*" name ": ", "", s)) return ""; sub(/[ ,(].*/, "", s); return s }
    $2 != r { next }
    $1 == "ENTER" { enter++ } $1 == "LEAVE" { leave++ }
    $1 == "MPI_SEND" || $1 == "MPI_ISEND" { sends++; sbytes += field("Length"); speers[field("Receiver")] = 1 }
    $1 == "MPI_RECV" || $1 == "MPI_IRECV" { recvs++; rbytes += field("Length"); rpeers[field("Sender")] = 1 }
    $1 == "MPI_ISEND" { isend++ } $1 == "MPI_ISEND_COMPLETE" { isend_done++ }
    $1 == "MPI_IRECV_REQUEST" { irecv_req++ } $1 == "MPI_IRECV" { irecv++ }
    $1 == "MPI_COLLECTIVE_BEGIN" { cbegin++ } $1 == "MPI_COLLECTIVE_END" { cend++ }
    $1 == "NON_BLOCKING_COLLECTIVE_REQUEST" { nbreq++ } $1 == "NON_BLOCKING_COLLECTIVE_COMPLETE" { nbdone++ }
    END {
      for (p in speers) sp = sp p " "; for (p in rpeers) rp = rp p " "
      printf "enter=%d leave=%d sends=%d sbytes=%d speers=%s recvs=%d rbytes=%d rpeers=%s isend=%d/%d irecv=%d/%d coll=%d/%d nbcoll=%d/%d\n",
        enter, leave, sends, sbytes, sp, recvs, rbytes, rp, isend, isend_done, irecv_req, irecv, cbegin, cend, nbreq, nbdone
    }' "$work/events"
}
coll() { # coll RANK OP [COMM]: "sent received root" of that rank's collective(s)
  grep -E "^MPI_COLLECTIVE_END +$1 " "$work/events" | grep "Operation: $2," | grep "${3:-}" |
    sed -E 's/.*Root: ([A-Z0-9]+).*Sent: ([0-9]+), Received: ([0-9]+).*/\2 \3 \1/' | tr '\n' ';'
}
for ((r = 0; r < n; r++)); do
  right=$(((r + 1) % n))
  left=$(((r + n - 1) % n))
  got=$(summary "$r")
  calls=$(grep -c "^ENTER  *$r " "$work/events")
  if [ "$mode" = fortran ]; then
    want="enter=$calls leave=$calls sends=3 sbytes=800 speers=$right  recvs=3 rbytes=800 rpeers=$left  isend=2/2 irecv=2/2 coll=6/6 nbcoll=0/0"
  else
    want="enter=$calls leave=$calls sends=7 sbytes=1170 speers=$right  recvs=7 rbytes=1170 rpeers=$left  isend=5/5 irecv=4/4 coll=15/15 nbcoll=2/2"
  fi
  [ "$got" = "$want" ] || fail "rank $r: got  $got
                  want $want"
  root_bytes=$([ "$r" -eq 0 ] && echo "1024 0" || echo "0 1024")
  [ "$(coll "$r" BCAST)" = "$root_bytes 0;" ] || fail "rank $r: bcast $(coll "$r" BCAST)"
  [ "$(coll "$r" ALLREDUCE MPI_COMM_WORLD)" = "64 64 NONE;" ] || fail "rank $r: allreduce $(coll "$r" ALLREDUCE)"
  if [ "$mode" = c ]; then
    ibcast=$(grep -E "^NON_BLOCKING_COLLECTIVE_COMPLETE +$r " "$work/events" | grep "Operation: BCAST," |
      sed -E 's/.*Root: ([A-Z0-9]+).*Sent: ([0-9]+), Received: ([0-9]+).*/\2 \3 \1/')
    [ "$ibcast" = "$([ "$r" -eq 0 ] && echo "512 0" || echo "0 512") 0" ] || fail "rank $r: ibcast '$ibcast'"
    [ "$(coll "$r" ALLTOALL)" = "$((8 * n)) $((8 * n)) NONE;" ] || fail "rank $r: alltoall $(coll "$r" ALLTOALL)"
  fi
  reduce_in=$([ "$r" -eq $((n - 1)) ] && echo 64 || echo 0)
  [ "$(coll "$r" REDUCE MPI_COMM_WORLD)" = "64 $reduce_in $((n - 1));" ] || fail "rank $r: reduce $(coll "$r" REDUCE)"
  # The Allreduce on MPI_Comm_split(rank % 2): its communicator's group holds the same-parity ranks.
  line=$(grep -E "^MPI_COLLECTIVE_END +$r " "$work/events" | grep "Operation: ALLREDUCE," | grep -v MPI_COMM_WORLD)
  [ -n "$line" ] || fail "rank $r: no allreduce on a sub-communicator"
  [ "$(sed -E 's/.*Sent: ([0-9]+), Received: ([0-9]+).*/\1 \2/' <<<"$line")" = "32 32" ] || fail "rank $r: $line"
  comm=$(sed -E 's/.*Communicator: "[^"]*" <([0-9]+)>.*/\1/' <<<"$line")
  group=$(grep -E "^COMM +$comm " "$work/defs" | sed -E 's/.*Group: "[^"]*" <([0-9]+)>.*/\1/')
  members=$(grep -E "^GROUP +$group " "$work/defs" | sed -E 's/.*Members?: //; s/ \([^)]*\)//g; s/,//g')
  want_members=$(seq $((r % 2)) 2 $((n - 1)) | tr '\n' ' ' | sed 's/ $//')
  [ "$members" = "$want_members" ] || fail "rank $r: sub-communicator $comm members '$members', want '$want_members'"
  grep -E "^COMM +$comm " "$work/defs" | grep -q 'Parent: "MPI_COMM_WORLD"' || fail "rank $r: comm $comm has no parent"
done
grep -qE "^LOCATION +$((n - 1)) " "$work/defs" || fail "no location for rank $((n - 1))"
# Regions are named by the calls: each rank entered these as often as the program called them.
if [ "$mode" = c ]; then
  regions="MPI_Init:1 MPI_Send:1 MPI_Recv:2 MPI_Sendrecv:1 MPI_Isend:3 MPI_Irecv:2 MPI_Waitall:4 MPI_Probe:1
    MPI_Send_init:1 MPI_Recv_init:1 MPI_Startall:1 MPI_Start:2 MPI_Ibcast:1 MPI_Iallreduce:1 MPI_Comm_split:1
    MPI_Comm_dup:1 MPI_Comm_free:2 MPI_Alltoallv:1 MPI_Reduce_scatter:1 MPI_Finalize:1"
else
  regions="MPI_Init:1 MPI_Send:1 MPI_Recv:1 MPI_Isend:2 MPI_Irecv:2 MPI_Waitall:1 MPI_Wait:2 MPI_Barrier:2
    MPI_Comm_split:1 MPI_Comm_dup:1 MPI_Comm_free:2 MPI_Finalize:1"
fi
for item in $regions; do
  got=$(grep -cE "^ENTER +0 .*Region: \"${item%%:*}\" " "$work/events" || true)
  [ "$got" -eq "${item##*:}" ] || fail "rank 0 entered ${item%%:*} $got times, want ${item##*:}"
done
! grep -q 'Region: "" ' "$work/events" || fail "a region without a name"
grep -q "^CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000" "$work/defs" || fail "no clock properties"

if [ "$n" -eq 2 ] && [ "$mode" = c ]; then
  # Filtered calls leave no events, but a request MPI_Test completes is still completed.
  run "$work/filtered" GRIDLOCK_TRACE_FILTER=MPI_Test,MPI_Barrier >"$work/out_f" 2>&1 || { cat "$work/out_f"; fail "filtered run failed"; }
  otf2-print "$work/filtered/traces.otf2" >"$work/events_f" 2>/dev/null || fail "filtered archive unreadable"
  ! grep -qE '"MPI_(Test|Barrier)"' "$work/events_f" || fail "filtered calls were recorded"
  [ "$(grep -c '^MPI_ISEND_COMPLETE' "$work/events_f")" -eq 10 ] || fail "completions lost with MPI_Test filtered"
  # A size cap: one warning per rank, later calls dropped and counted, the archive still readable.
  run "$work/capped" GRIDLOCK_TRACE_MAX_BYTES=1KiB >"$work/out_c" 2>&1 || { cat "$work/out_c"; fail "capped run failed"; }
  [ "$(grep -c "reached GRIDLOCK_TRACE_MAX_BYTES" "$work/out_c")" -eq 2 ] || fail "no cap warning: $(cat "$work/out_c")"
  grep -qE "warning: [0-9]+ MPI calls not recorded" "$work/out_c" || fail "dropped calls not reported"
  otf2-print "$work/capped/traces.otf2" >"$work/events_c" 2>/dev/null || fail "capped archive unreadable"
  [ "$(grep -c '^ENTER' "$work/events_c")" -eq "$(grep -c '^LEAVE' "$work/events_c")" ] || fail "capped: unbalanced"
  # A program that exits without MPI_Finalize: a rank that completes its exit flushes its events
  # and says so. Only the rank that terminates first is sure to complete it: a launcher may kill
  # the others as soon as one rank has exited with a non-zero code (MPICH's hydra did, killing
  # rank 1 during its flush: CI, 2026-11-29), so each rank that reported is checked, and at least
  # one must have.
  rc=0; run "$work/early" -- exit >"$work/out_x" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || fail "early exit: exit code 0"
  reported=$(grep -oE "rank [0-9]+: the program exited without MPI_Finalize; flushed its" "$work/out_x" |
    awk '{print $2}' | tr -d : | sort -u)
  [ -n "$reported" ] || fail "early exit not reported: $(cat "$work/out_x")"
  for r in $reported; do
    [ -s "$work/early/traces/$r.evt" ] || fail "early exit: rank $r reported but its events were not flushed"
  done
  # Bad input (an existing archive, an unknown filter name): one message, exit 3 or 2; the
  # byte counts' errors are unit tests (trace_tests).
  rc=0; run "$work/trace" >"$work/out_e" 2>&1 || rc=$?
  [ "$rc" -eq 3 ] && grep -q "already holds a trace" "$work/out_e" || fail "existing archive: rc $rc: $(cat "$work/out_e")"
  rc=0; run "$work/bad" GRIDLOCK_TRACE_FILTER=MPI_Nosuch >"$work/out_b" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -q "'MPI_Nosuch' is not an MPI function" "$work/out_b" || fail "bad filter: rc $rc: $(cat "$work/out_b")"
fi
echo "ok"
