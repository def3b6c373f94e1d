#!/bin/sh
# CLI checks of `gridlock sim --network SPEC --net-model flow|packet` (docs/network-models.md,
# "Using the models"): the network report in text and JSON, and the errors before a run.
# Usage: sim_network_cli.sh <gridlock executable> <case>
set -u
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$1"
CASE="$2"
TMP="$(mktemp -d)"
work="$TMP" # expect (lib.sh) leaves its output in $TMP/out
trap 'rm -rf "$TMP"' EXIT
DF="dragonfly:g=9,a=4,p=2,h=2"

# The max finish time in ps of the last run's output.
makespan() { sed -n 's/^max finish: .* (\([0-9]*\) ps) at rank .*/\1/p' "$TMP/out"; }

"$G" schedgen --program 'alltoall(size=64KiB)' --ranks 16 -o "$TMP/a2a.goal" >/dev/null || fail schedgen

case "$CASE" in
  flow)
    # A NIC (1/G = 10 GB/s) faster than the dragonfly's links: the 16 ranks of the identity
    # placement fill two groups, whose single global link all their traffic shares.
    expect 0 "max finish" -- "$G" sim "$TMP/a2a.goal" -q -G 0.1ns
    alone="$(makespan)"
    expect 0 "network: flow model on dragonfly:g=9,a=4,p=2,h=2.* \(identity, 1 rank per node\), hop latency 100 ns" -- \
      "$G" sim "$TMP/a2a.goal" -q -G 0.1ns --network "$DF" --net-model flow --hop-latency 100ns \
      --json "$TMP/r.json"
    shared="$(makespan)"
    [ -n "$alone" ] && [ -n "$shared" ] || fail "no max finish time"
    [ "$shared" -gt "$alone" ] || fail "the network run ($shared ps) is not slower than LogGOPS alone ($alone ps)"
    grep -Eq '^\| +Message slowdown \| +[0-9.]+ \| +[0-9.]+ \| +x alone \|$' "$TMP/out" || fail "no slowdown row"
    grep -Eq '^\| +g0r0 g0 -> g1r3 \| +[0-9.]+ \| +9[0-9.]+% \| +network \|$' "$TMP/out" || fail "no busy global link"
    python3 - "$TMP/r.json" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["context"]["schema"] == "gridlock.sim.result", d["context"]
n = d["network"]
assert n["model"] == "flow" and n["spec"].startswith("dragonfly:g=9,a=4,p=2,h=2"), n
assert n["placement"]["kind"] == "identity" and n["parameters"]["hop_latency_ps"] == 100000, n
r = n["report"]
assert r["makespan_ps"] == d["result"]["max_finish_ps"], r
assert r["messages"] == 240 and r["slowdown"]["count"] == 240 and r["slowdown"]["max"] > 1, r
top = r["top_links"]
assert len(top) == 10 and top[0]["bytes"] >= top[-1]["bytes"] and 0.9 < top[0]["utilisation"] <= 1, top
assert sum(r["utilisation"]["histogram"]) == r["links"]["busy"] == r["links"]["total"] - r["links"]["idle"], r
PY
    ;;
  random)
    # The random placement's seed is --seed, printed; the same seed places the same way.
    expect 0 "random nodes \(seed 7\), 2 ranks per node" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "$DF" --placement random --ranks-per-node 2 --seed 7
    cp "$TMP/out" "$TMP/first"
    expect 0 "random nodes \(seed 7\)" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "$DF" --placement random --ranks-per-node 2 --seed 7
    grep -v '^events:' "$TMP/first" >"$TMP/a"
    grep -v '^events:' "$TMP/out" >"$TMP/b"
    cmp "$TMP/a" "$TMP/b" || fail "same seed, different report" ;;
  spread)
    # --spread: each message takes one of the fat tree's up ports, drawn with --seed (printed); the
    # same seed gives the same run; D-mod-k without it.
    FT="fattree:4x4"
    expect 0 "network: flow model on fattree:4x4.* \(identity, 1 rank per node\), hop latency" -- \
      "$G" sim "$TMP/a2a.goal" -q -G 0.01ns --network "$FT"
    fixed="$(makespan)"
    expect 0 "\(identity, 1 rank per node\), routes spread per message \(seed 3\), hop latency" -- \
      "$G" sim "$TMP/a2a.goal" -q -G 0.01ns --network "$FT" --spread --seed 3 --json "$TMP/s.json"
    grep -v '^events:' "$TMP/out" >"$TMP/a"
    spread="$(makespan)"
    [ -n "$fixed" ] && [ -n "$spread" ] || fail "no max finish time"
    [ "$fixed" != "$spread" ] || fail "the spread run ($spread ps) equals the deterministic one"
    expect 0 "routes spread per message \(seed 3\)" -- \
      "$G" sim "$TMP/a2a.goal" -q -G 0.01ns --network "$FT" --spread --seed 3
    grep -v '^events:' "$TMP/out" >"$TMP/b"
    cmp "$TMP/a" "$TMP/b" || fail "same seed, different report"
    python3 - "$TMP/s.json" <<'PY' || fail "JSON"
import json, sys
p = json.load(open(sys.argv[1]))["network"]["parameters"]
assert p["spread"] is True and p["spread_seed"] == 3, p
PY
    expect 2 "--spread is for the flow model" -- "$G" sim "$TMP/a2a.goal" -q --network "$FT" --net-model packet --spread
    expect 2 "--spread requires --network" -- "$G" sim "$TMP/a2a.goal" -q --spread ;;
  rankfile)
    i=0
    : >"$TMP/rf"
    while [ $i -lt 16 ]; do
      printf 'rank %d=n%05d slot=0\n' $i $((71 - i)) >>"$TMP/rf"
      i=$((i + 1))
    done
    expect 0 "\(rankfile .*/rf\)" -- "$G" sim "$TMP/a2a.goal" -q --network "$DF" --placement "rankfile:$TMP/rf" ;;
  too_many_ranks)
    expect 2 "100 ranks at 1 per node need 100 nodes, but dragonfly:g=9,a=4,p=2,h=2.* has 72" -- \
      "$G" sim -q --program 'alltoall(size=8B)' --ranks 100 --network "$DF" ;;
  bad_rankfile)
    printf 'rank 0=n00000 slot=0\nrank 1=nid00001 slot=0\n' >"$TMP/bad"
    expect 2 "bad:2: host 'nid00001' is not in the allocation.* are n00000 \.\. n00071" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "$DF" --placement "rankfile:$TMP/bad"
    printf 'rank 0=n00000 slot=0\nrank 1=n00001 slot=0\n' >"$TMP/short"
    printf 'rank 0=n00000 slot=0\nrank 1=n00000 slot=0\n' >"$TMP/twice"
    expect 2 "twice: tasks 0 and 1 are both placed on core 0" -- \
      "$G" sim -q --program 'alltoall(size=8B)' --ranks 2 --network "$DF" --placement "rankfile:$TMP/twice"
    expect 2 "short places 2 ranks \(0\.\.1\), the schedule has 16" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "$DF" --placement "rankfile:$TMP/short" ;;
  bad_model)
    expect 2 "--net-model 'fluid': give flow .* or packet" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "$DF" --net-model fluid
    expect 2 "configure the packet model: add --net-model packet" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "$DF" --routing valiant
    expect 2 "valiant routing needs a dragonfly" -- \
      "$G" sim "$TMP/a2a.goal" -q --network "torus:4x4x1" --net-model packet --routing valiant
    expect 2 "give --vcs 3 or more" -- "$G" sim "$TMP/a2a.goal" -q --network "$DF" --net-model packet --routing ugal --vcs 2
    expect 2 "dragonfly needs g >= 2" -- "$G" sim "$TMP/a2a.goal" -q --network "dragonfly:g=1"
    expect 2 "--placement 'hops': give identity" -- "$G" sim "$TMP/a2a.goal" -q --network "$DF" --placement hops
    expect 2 "--hop-latency '100': a unit is required" -- "$G" sim "$TMP/a2a.goal" -q --network "$DF" --hop-latency 100
    expect 2 "--hop-latency 2s: at most 1 s per hop" -- "$G" sim "$TMP/a2a.goal" -q --network "$DF" --hop-latency 2s
    # Refused by the generic check of empty option values (apps/common/cli_text.hpp).
    expect 2 "--network: an empty value is not allowed" -- "$G" sim "$TMP/a2a.goal" -q --network ""
    expect 2 "--placement requires --network" -- "$G" sim "$TMP/a2a.goal" -q --placement random
    expect 2 "--network is for single runs, not --replicas" -- \
      "$G" sim -q --program barrier --ranks 4 --replicas 2 --noise-periodic 1000Hz:100us --network "$DF" ;;
  *)
    fail "unknown case $CASE" ;;
esac
