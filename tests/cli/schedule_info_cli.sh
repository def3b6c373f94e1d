#!/bin/sh
# CLI checks of `gridlock schedule info` (docs/formats/goal.md, docs/formats/schedule-info-json.md).
# Usage: schedule_info_cli.sh <gridlock executable> <case>   (needs jq)
set -u
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$1"
CASE="$2"
TMP="$(mktemp -d)"
work="$TMP" # expect (lib.sh) leaves its output in $TMP/out
trap 'rm -rf "$TMP"' EXIT

require jq jq

# Ring allreduce on 6 ranks: every rank sends 2(P-1) = 10 messages of 1 KiB / 6 to its successor.
RING="allreduce(algo=ring, size=1KiB)"

case "$CASE" in
  text)
    "$G" schedgen --program "$RING" --ranks 6 -o "$TMP/ring.gsched" >/dev/null || fail "schedgen"
    expect 0 "^schedule: .*ring.gsched \(binary schedule\): 6 ranks, 120 operations, 1 distinct programs$" -- \
      "$G" schedule info "$TMP/ring.gsched"
    grep -q "^| sends | 60 | 10 | 10 | 10 |$" "$TMP/out" || fail "sends row"
    grep -q "^| 128 B - 255 B | 60 | 10260 B |$" "$TMP/out" || fail "size table"
    grep -q "^communication: 6 (source, destination) pairs, 1.00 partners per rank .*, not symmetric$" "$TMP/out" ||
      fail "communication line"
    grep -q "^matching: every send has a receive" "$TMP/out" || fail "matching line"
    # Text and binary give the same summary (but for the kind in the first line).
    "$G" schedule convert "$TMP/ring.gsched" "$TMP/ring.goal" >/dev/null || fail "convert"
    expect 0 "ring.goal \(GOAL text\)" -- "$G" schedule info "$TMP/ring.goal"
    "$G" schedule info "$TMP/ring.goal" | tail -n +2 >"$TMP/t.txt"
    "$G" schedule info "$TMP/ring.gsched" | tail -n +2 >"$TMP/b.txt"
    cmp "$TMP/t.txt" "$TMP/b.txt" || fail "text and binary schedules summarise differently"
    expect 0 "^top 2 pairs by bytes:$" -- "$G" schedule info "$TMP/ring.goal" --top 2 ;;
  json)
    "$G" schedgen --program "$RING" --ranks 6 -o "$TMP/ring.goal" >/dev/null || fail "schedgen"
    expect 0 "^schedule: " -- "$G" schedule info "$TMP/ring.goal" --json "$TMP/info.json" --top 3
    [ "$(jq -r .context.schema "$TMP/info.json")" = gridlock.schedule.info ] || fail "context.schema"
    [ "$(jq -r .context.schema_version "$TMP/info.json")" = 2 ] || fail "context.schema_version"
    [ "$(jq -r .context.source_kind "$TMP/info.json")" = goal ] || fail "context.source_kind"
    [ "$(jq -r .schedule.sends.max "$TMP/info.json")" = 10 ] || fail "sends.max"
    [ "$(jq -r .schedule.communication.pairs "$TMP/info.json")" = 6 ] || fail "pairs"
    [ "$(jq -r '.schedule.communication.top_pairs | length' "$TMP/info.json")" = 3 ] || fail "top_pairs"
    [ "$(jq -r .schedule.compute_share "$TMP/info.json")" = null ] || fail "compute_share"
    [ "$(jq -r .schedule.unmatched.sends "$TMP/info.json")" = 0 ] || fail "unmatched" ;;
  unmatched)
    # Rank 0 sends tag 4 twice, rank 1 receives it once and waits for rank 3, which sends elsewhere.
    cat >"$TMP/bad.goal" <<'GOAL'
num_ranks 4
rank 0 {
  send 8b to 1 tag 4
  send 8b to 1 tag 4
  send 100b to 2 tag 1
}
rank 1 {
  recv 8b from 0 tag 4
  recv 8b from 3 tag 9
}
rank 2 {
  recv 100b from -1 tag -1
  recv 100b from -1 tag 7
}
rank 3 {
  send 0b to 0 tag 2
}
GOAL
    expect 0 "^warning: 2 sends without a receive and 2 receives without a send .*: 3 -> 0 tag 2: 1 send; 0 -> 1 tag 4: 1 send; 3 -> 1 tag 9: 1 receive; any -> 2 tag 7: 1 receive$" -- \
      "$G" schedule info "$TMP/bad.goal" --json "$TMP/bad.json"
    grep -q "^wildcard receives: 2 from any source, 1 of any tag$" "$TMP/out" || fail "wildcards"
    [ "$(jq -c '.schedule.unmatched.first[3]' "$TMP/bad.json")" = '{"src":null,"dst":2,"tag":7,"sends":0,"recvs":1}' ] ||
      fail "unmatched.first[3]: $(jq -c '.schedule.unmatched.first[3]' "$TMP/bad.json")" ;;
  bad_input)
    expect 3 "cannot open schedule '.*nosuch.goal': no such file" -- "$G" schedule info "$TMP/nosuch.goal"
    "$G" schedgen --program barrier --ranks 8 -o "$TMP/a.gsched" >/dev/null || fail "schedgen"
    head -c 30 "$TMP/a.gsched" >"$TMP/t.gsched"
    expect 2 "t.gsched: byte [0-9]+: invalid binary schedule" -- "$G" schedule info "$TMP/t.gsched"
    head -c 4 "$TMP/a.gsched" >"$TMP/m.gsched"
    expect 2 "m.gsched: truncated binary schedule" -- "$G" schedule info "$TMP/m.gsched"
    printf 'num_ranks 2\nrank 0 { send 8b to 5 }\n' >"$TMP/p.goal"
    expect 2 "p.goal:2:" -- "$G" schedule info "$TMP/p.goal"
    cp "$TMP/a.gsched" "$TMP/keep.gsched"
    expect 2 "--json '.*a.gsched' is the input file" -- "$G" schedule info "$TMP/a.gsched" --json "$TMP/a.gsched"
    cmp "$TMP/a.gsched" "$TMP/keep.gsched" || fail "the input was overwritten"
    expect 3 "cannot write '/nonexistent-dir/i.json'" -- "$G" schedule info "$TMP/a.gsched" --json /nonexistent-dir/i.json
    expect 2 "--top" -- "$G" schedule info "$TMP/a.gsched" --top -1 ;;
  *) fail "unknown case $CASE" ;;
esac
