#!/bin/sh
# CLI checks of `gridlock sim`, `gridlock schedgen` and `gridlock schedule convert`.
# Usage: sim_cli.sh <gridlock executable> <source dir> <case>
set -u
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$1"
SRC="$2"
CASE="$3"
TMP="$(mktemp -d)"
work="$TMP" # expect (lib.sh) leaves its output in $TMP/out
trap 'rm -rf "$TMP"' EXIT


case "$CASE" in
  pingpong)
    expect 0 "max finish: 11.084 us \(11084000 ps\) at rank 0" -- "$G" sim "$SRC/examples/sim/pingpong.goal" ;;
  per_rank)
    expect 0 "^rank 1: 7042000 ps$" -- "$G" sim "$SRC/examples/sim/pingpong.goal" --per-rank ;;
  params)
    # o=1us L=1us G=0.5ns: ping arrives after 2o + L + 7G = 3.0035 us, rank 1 then sends (o)
    expect 0 "^rank 1: 4003500 ps$" -- "$G" sim "$SRC/examples/sim/pingpong.goal" --per-rank -o 1us -L 1us -G 0.5ns ;;
  handshake)
    # -S 4 makes both 8-byte messages rendezvous; the handshake adds a round trip of one-byte
    # control messages (4o + 2L) to each: 2 x (6o + 3L + 7G) = 33.084 us.
    expect 0 "max finish: 33.084 us \(33084000 ps\) at rank 0" -- \
      "$G" sim "$SRC/examples/sim/pingpong.goal" -S 4 --rendezvous-handshake
    expect 0 "S=4 B \(rendezvous handshake\)" -- "$G" sim "$SRC/examples/sim/pingpong.goal" -S 4 --rendezvous-handshake
    # Without the handshake the same schedule takes 2 x (2o + L + 7G) = 11.084 us.
    expect 0 "max finish: 11.084 us" -- "$G" sim "$SRC/examples/sim/pingpong.goal" -S 4 ;;
  event_order)
    # Unsynchronised noise runs host by host by default; every order gives the same finish times.
    expect 0 "global order$" -- "$G" sim --program "dissemination(size=8B)" --ranks 2048 --per-rank \
      --noise-random 100kHz:1us:exp --event-order global
    grep '^rank ' "$TMP/out" >"$TMP/global"
    expect 0 "windowed order$" -- "$G" sim --program "dissemination(size=8B)" --ranks 2048 --per-rank \
      --noise-random 100kHz:1us:exp
    grep '^rank ' "$TMP/out" >"$TMP/auto"
    [ "$(wc -l <"$TMP/global")" -eq 2048 ] || fail "expected 2048 per-rank lines"
    cmp "$TMP/global" "$TMP/auto" || fail "windowed and global order differ"
    expect 0 "global order$" -- "$G" sim --program "dissemination(size=8B)" --ranks 2048
    expect 0 "global order$" -- "$G" sim --program "dissemination(size=8B)" --ranks 512 \
      --noise-random 100kHz:1us:exp
    expect 0 "windowed order$" -- "$G" sim --program "dissemination(size=8B)" --ranks 512 \
      --noise-random 100kHz:1us:exp --event-order windowed ;;
  bad_event_order)
    expect 2 "--event-order: serial not in" -- "$G" sim --program "dissemination(size=8B)" --ranks 8 \
      --event-order serial ;;
  generated)
    # 100 ranks: 7 dissemination rounds of 2o + L + 7G = 5.542 us
    expect 0 "max finish: 38.794 us" -- "$G" sim --program "dissemination(size=8B)" --ranks 100 ;;
  deadlock)
    expect 2 "rank 0 op 0: recv 8b from 1 tag 0 \(label a\) at line 4: posted, but no matching" -- \
      "$G" sim "$SRC/examples/sim/deadlock.goal" ;;
  parse_error)
    printf 'num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n' >"$TMP/bad.goal"
    expect 2 "bad.goal:3:8: expected 'b' after the message size, found 'to'" -- "$G" sim "$TMP/bad.goal" ;;
  missing_file)
    expect 3 "cannot open schedule" -- "$G" sim "$TMP/nonexistent.goal" ;;
  both_inputs)
    expect 2 "either a schedule file or --program" -- "$G" sim "$SRC/examples/sim/pingpong.goal" --program barrier --ranks 4 ;;
  bad_param)
    expect 2 "a unit is required" -- "$G" sim "$SRC/examples/sim/pingpong.goal" -L 2500 ;;
  bad_spec)
    expect 2 "program spec, column 1: expected a step name" -- "$G" schedgen --program "nosuch" --ranks 4 -o "$TMP/x.goal" ;;
  roundtrip)
    expect 0 "wrote .*: 24 ranks" -- "$G" schedgen --program "2x[allreduce(algo=ring, size=1KiB); halo3d(size=64B)]" \
      --ranks 24 --seed 5 -o "$TMP/a.goal"
    expect 0 "wrote" -- "$G" schedule convert "$TMP/a.goal" "$TMP/a.gsched"
    expect 0 "wrote" -- "$G" schedule convert "$TMP/a.gsched" "$TMP/b.goal"
    cmp "$TMP/a.goal" "$TMP/b.goal" || fail "text -> binary -> text changed the schedule"
    [ "$(wc -c <"$TMP/a.gsched")" -lt "$(wc -c <"$TMP/a.goal")" ] || fail "binary is not smaller than text"
    "$G" sim "$TMP/a.goal" --per-rank | grep '^rank' >"$TMP/t.txt" || fail "sim text"
    "$G" sim "$TMP/a.gsched" --per-rank | grep '^rank' >"$TMP/b.txt" || fail "sim binary"
    "$G" sim --program "2x[allreduce(algo=ring, size=1KiB); halo3d(size=64B)]" --ranks 24 --seed 5 --per-rank |
      grep '^rank' >"$TMP/m.txt" || fail "sim in memory"
    cmp "$TMP/t.txt" "$TMP/b.txt" || fail "text and binary simulate differently"
    cmp "$TMP/t.txt" "$TMP/m.txt" || fail "file and in-memory generation simulate differently"
    # A random ring's ranks differ only in their peers: one program kept, one per rank in the file.
    expect 0 "wrote .*: 40 ranks, 160 operations, 80 messages, 40 distinct programs, 1 without their peers" -- \
      "$G" schedgen --program "randomring(size=8B)" --ranks 40 --seed 2 -o "$TMP/rr.gsched" ;;
  deterministic)
    "$G" schedgen --program "3x[randomring(size=1KiB); bcast(algo=binary)]" --ranks 33 --seed 11 -o "$TMP/1.gsched" >/dev/null || fail schedgen
    "$G" schedgen --program "3x[randomring(size=1KiB); bcast(algo=binary)]" --ranks 33 --seed 11 -o "$TMP/2.gsched" >/dev/null || fail schedgen
    cmp "$TMP/1.gsched" "$TMP/2.gsched" || fail "same seed, different bytes"
    "$G" sim "$TMP/1.gsched" --per-rank | grep '^rank' >"$TMP/r1" || fail sim
    "$G" sim "$TMP/1.gsched" --per-rank | grep '^rank' >"$TMP/r2" || fail sim
    cmp "$TMP/r1" "$TMP/r2" || fail "same schedule, different finish times" ;;
  json_timeline)
    expect 0 "max finish" -- "$G" sim "$SRC/examples/sim/pingpong.goal" --per-rank --json "$TMP/r.json" --timeline "$TMP/t.json"
    grep -q '"schema": "gridlock.sim.result"' "$TMP/r.json" || fail "no context block"
    grep -q '"max_finish_ps": 11084000' "$TMP/r.json" || fail "no max_finish_ps"
    grep -q '"traceEvents"' "$TMP/t.json" || fail "no traceEvents"
    grep -q '"ph": "X"' "$TMP/t.json" || fail "no slices" ;;
  same_outputs)
    # One file for two outputs would keep only the one written last (the result JSON was lost).
    expect 2 "--json and --timeline both write" -- "$G" sim "$SRC/examples/sim/pingpong.goal" \
      --json "$TMP/r.json" --timeline "$TMP/./r.json"
    [ ! -e "$TMP/r.json" ] || fail "an output was written"
    expect 2 "--json and --csv both write" -- "$G" sim --program barrier --ranks 4,8 --replicas 2 \
      --noise-periodic 1000Hz:100us --json "$TMP/s.out" --csv "$TMP/s.out" ;;
  timeline_too_long)
    # 458,752 operations, but with the handshake about 2.5 million slices: the engine kept the first
    # 2,000,000 and the file looked complete. Now refused, and no file is written.
    expect 2 "--timeline: this run has more than 2000000 slices" -- "$G" sim \
      --program "dissemination(size=100KiB)" --ranks 16384 --rendezvous-handshake -q --timeline "$TMP/t.json"
    [ ! -e "$TMP/t.json" ] || fail "a truncated timeline was written" ;;
  threads_limit)
    # --threads 4294967295 was taken as given (and printed); a million replicas would have started a
    # million threads. More than 1024 are refused; the count printed is the count used.
    expect 2 "--threads 4294967295: give 1 to 1024 threads" -- "$G" sim --program barrier --ranks 4 \
      --replicas 3 --threads 4294967295 --noise-periodic 1000Hz:100us
    if grep -q "replicas per scale" "$TMP/out"; then fail "the study was announced before the error"; fi
    expect 0 "3 replicas per scale, 3 threads \(--threads 8: one per replica\)$" -- "$G" sim --program barrier \
      --ranks 4 --replicas 3 --threads 8 --noise-periodic 1000Hz:100us -q
    expect 0 "3 replicas per scale, 2 threads$" -- "$G" sim --program barrier --ranks 4 --replicas 3 \
      --threads 2 --noise-periodic 1000Hz:100us -q ;;
  extension_case)
    # Only a lower-case .gsched wrote binary: out.GSCHED was GOAL text.
    for ext in GSCHED Gsched gsched; do
      expect 0 "wrote .*out.$ext: 4 ranks" -- "$G" schedgen --program barrier --ranks 4 -o "$TMP/out.$ext"
      [ "$(head -c 7 "$TMP/out.$ext")" = GLSCHED ] || fail "schedgen -o out.$ext did not write binary"
      expect 0 "wrote" -- "$G" schedule convert "$SRC/examples/sim/pingpong.goal" "$TMP/p.$ext"
      [ "$(head -c 7 "$TMP/p.$ext")" = GLSCHED ] || fail "convert to p.$ext did not write binary"
      expect 0 "max finish: 11.084 us" -- "$G" sim "$TMP/p.$ext"
    done
    expect 0 "wrote" -- "$G" schedule convert "$TMP/p.GSCHED" "$TMP/p.GOAL"
    [ "$(head -c 7 "$TMP/p.GOAL")" != GLSCHED ] || fail "p.GOAL is not text" ;;
  replicas_svg)
    # The paper's box plots from one command: one box per scale, the context first, nothing written
    # when the study is refused.
    expect 0 "noise bottleneck" -- "$G" sim --program barrier --ranks 4,8 --replicas 5 \
      --noise-periodic 1000Hz:100us -q --svg "$TMP/b.svg"
    [ "$(head -c 5 "$TMP/b.svg")" = "<?xml" ] || fail "b.svg does not start with an XML declaration"
    [ "$(grep -c 'class="box"' "$TMP/b.svg")" -eq 2 ] || fail "b.svg does not have one box per scale"
    grep -q '"tool": "gridlock sim"' "$TMP/b.svg" || fail "b.svg has no context block"
    [ "$(tail -n 1 "$TMP/b.svg")" = "</svg>" ] || fail "b.svg is not complete"
    expect 2 "--svg requires --replicas" -- "$G" sim --program barrier --ranks 4 --svg "$TMP/c.svg"
    expect 3 "cannot write '/nonexistent-dir/c.svg'" -- "$G" sim --program barrier --ranks 4 --replicas 2 \
      --noise-periodic 1000Hz:100us --svg /nonexistent-dir/c.svg
    if grep -q "replicas per scale" "$TMP/out"; then fail "the study started"; fi
    expect 2 "--svg and --json both write" -- "$G" sim --program barrier --ranks 4 --replicas 2 \
      --noise-periodic 1000Hz:100us --svg "$TMP/d.out" --json "$TMP/d.out"
    [ ! -e "$TMP/c.svg" ] && [ ! -e "$TMP/d.out" ] || fail "an output was written" ;;
  noise_needed)
    # The message named both options whichever one was given.
    expect 2 "^gridlock: error: --replicas needs noise: add --noise FILE" -- "$G" sim --program barrier \
      --ranks 4 --replicas 3
    expect 2 "^gridlock: error: --noise-cosched needs noise" -- "$G" sim --program barrier --ranks 4 \
      --noise-cosched
    expect 2 "^gridlock: error: --noise-cosched and --replicas need noise" -- "$G" sim --program barrier \
      --ranks 4 --noise-cosched --replicas 3 ;;
  noise_rule)
    expect 2 "^gridlock: error: --noise-rule needs noise" -- "$G" sim --program barrier --ranks 4 \
      --noise-rule loggopsim
    expect 2 "noise-rule" -- "$G" sim --program barrier --ranks 4 --noise-periodic 1000Hz:100us --noise-rule paper
    expect 0 "unsynchronised, gridlock rule, seed 1$" -- "$G" sim --program barrier --ranks 4 \
      --noise-periodic 1000Hz:100us
    expect 0 "unsynchronised, loggopsim rule, seed 1$" -- "$G" sim --program barrier --ranks 4 \
      --noise-periodic 1000Hz:100us --noise-rule loggopsim --json "$TMP/r.json"
    grep -Eq '"rule": ?"loggopsim"' "$TMP/r.json" || fail "noise.rule missing from --json" ;;
  replicas_cut_short)
    # A later scale that fails keeps the finished ones (issue 29): --json says cut_short with the
    # reason, --csv and --svg hold the scales that finished, and the exit code is not 0.
    export GRIDLOCK_REPLICAS_FAIL=16
    expect 2 "16 ranks: failure injected by GRIDLOCK_REPLICAS_FAIL=16" -- "$G" sim --program barrier \
      --ranks 4,8,16 --replicas 3 --noise-periodic 1000Hz:100us -q --json "$TMP/s.json" --csv "$TMP/s.csv" \
      --svg "$TMP/s.svg"
    unset GRIDLOCK_REPLICAS_FAIL
    grep -Eq '"status": ?"cut_short"' "$TMP/s.json" || fail "s.json is not cut_short"
    grep -Eq '"reason": ?"16 ranks: failure injected' "$TMP/s.json" || fail "s.json has no reason"
    [ "$(grep -c '"completion_ps"' "$TMP/s.json")" -eq 2 ] || fail "s.json does not hold the 2 finished scales"
    [ "$(grep -vc '^#' "$TMP/s.csv")" -eq 3 ] || fail "s.csv does not hold a header and 2 scales"
    [ "$(grep -c 'class="box"' "$TMP/s.svg")" -eq 2 ] || fail "s.svg does not hold 2 boxes"
    expect 0 "noise bottleneck" -- "$G" sim --program barrier --ranks 4,8,16 --replicas 3 \
      --noise-periodic 1000Hz:100us -q --json "$TMP/s.json"
    grep -Eq '"status": ?"complete"' "$TMP/s.json" || fail "s.json is not complete"
    grep -Eq '"reason": ?null' "$TMP/s.json" || fail "a complete s.json has a reason" ;;
  duplicate_scales)
    expect 2 "--ranks '4,8,4': 4 ranks is given twice; give each scale once" -- "$G" sim --program barrier \
      --ranks 4,8,4 --replicas 3 --noise-periodic 1000Hz:100us
    if grep -q "replicas per scale" "$TMP/out"; then fail "the study started"; fi ;;
  truncated_binary)
    expect 0 "wrote" -- "$G" schedgen --program barrier --ranks 4 -o "$TMP/a.gsched"
    head -c 4 "$TMP/a.gsched" >"$TMP/t.gsched"
    expect 2 "t.gsched: truncated binary schedule: 4 of the 8 bytes of the magic 'GLSCHED\\\\x1a', then nothing" -- \
      "$G" sim "$TMP/t.gsched"
    expect 2 "t.gsched: truncated binary schedule" -- "$G" schedule convert "$TMP/t.gsched" "$TMP/t.goal" ;;
  windowed_timeline)
    # The timeline is recorded in global order only: an explicit windowed order ran global silently.
    expect 2 "--event-order windowed and --timeline: a timeline is recorded in the global order only" -- \
      "$G" sim --program barrier --ranks 4 --event-order windowed --timeline "$TMP/t.json"
    [ ! -e "$TMP/t.json" ] || fail "a timeline was written"
    expect 0 "global order$" -- "$G" sim --program barrier --ranks 4 --timeline "$TMP/t.json"
    expect 0 "global order$" -- "$G" sim --program barrier --ranks 4 --event-order global --timeline "$TMP/t.json" ;;
  deadlock_json)
    expect 2 "deadlocked" -- "$G" sim "$SRC/examples/sim/deadlock.goal" --json "$TMP/d.json"
    grep -q '"complete": false' "$TMP/d.json" || fail "JSON does not say incomplete"
    grep -q '"stuck_ranks": 2' "$TMP/d.json" || fail "JSON does not list stuck ranks" ;;
  *)
    fail "unknown case $CASE" ;;
esac
