#!/usr/bin/env bash
# CLI checks of `gridlock predict gpcnet` (GPCNeT on a simulated network; docs/predict.md).
# Usage: predict_gpcnet_cli.sh GRIDLOCK WORKDIR CASE GOLDEN_DIR   (needs jq)
# GRIDLOCK_UPDATE_GOLDEN=1 rewrites the golden file instead of comparing.
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
case_name="$3"
golden_dir="$(realpath "$4")"
work="$(realpath -m "$2")/$case_name"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
require jq jq


TINY=(predict gpcnet --network dragonfly:g=3,a=2,p=2,h=1 --seed 3 --iterations 4 --rings 2 -q)
# The numbers of a report, rounded to 3 decimals (the golden file is not about the last bits).
numbers() {
  jq -S 'def r: if type == "number" then (. * 1000 | round) / 1000 else . end;
    {roles, canary_ring0,
     phases: (.phases | map_values(.canaries | map({key, avg: (.avg | r), mean: (.mean | r),
              p1: (.p1 | r), p99: (.p99 | r), samples, ranks}))),
     congestion_impact: (.congestion_impact | map({phase, key, mean: (.mean | r), tail99: (.tail99 | r)})),
     context: (.context | {tool, schema, network, net_model, nodes, ranks, ranks_per_node, seed})}' "$1"
}

case "$case_name" in
  golden)
    expect 0 'Network Tests running with Congestion Tests - Key Results' -- "$G" "${TINY[@]}" --json tiny.json
    grep -Eq '^\| +RR Two-sided Lat \(8 B\) \| +[0-9.]+ \| +[0-9.]+ \| +usec \|$' out || fail "no latency row"
    numbers tiny.json >tiny.numbers.json
    if [ "${GRIDLOCK_UPDATE_GOLDEN:-0}" = 1 ]; then
      cp tiny.numbers.json "$golden_dir/predict/gpcnet_tiny.json"
    fi
    diff -u "$golden_dir/predict/gpcnet_tiny.json" tiny.numbers.json || fail "numbers differ from the golden file"
    # The LogGOPS parameters are spelled as gridlock sim spells them (sim::params_json), plus the hop latency.
    jq -e '.context.parameters | has("L_ps") and has("o_send_ps") and has("S_bytes") and has("hop_latency_ps")
           and (has("latency_ps") | not)' tiny.json >/dev/null || fail "parameters not in gridlock sim's spelling"
    # The same seed gives the same report; another seed other roles.
    "$G" "${TINY[@]}" --json again.json >/dev/null
    [ "$(numbers again.json)" = "$(cat tiny.numbers.json)" ] || fail "two runs with one seed differ"
    "$G" predict gpcnet --network dragonfly:g=3,a=2,p=2,h=1 --seed 4 --iterations 4 --rings 2 -q --json other.json >/dev/null
    [ "$(jq -c .roles other.json)" != "$(jq -c .roles tiny.json)" ] || fail "--seed 4 gave seed 3's roles"
    # The packet model runs the same method (its figures are not golden here: the model is young).
    "$G" "${TINY[@]}" --net-model packet --congestion-control --json packet.json >/dev/null
    [ "$(jq -r .context.net_model packet.json)" = packet ] || fail "packet run not labelled packet"
    [ "$(jq -r .context.packet.congestion_control packet.json)" = true ] || fail "congestion control not recorded"
    [ "$(jq '.congestion_impact | length' packet.json)" = 3 ] || fail "packet run without 3 impacts"
    ;;
  bad_input)
    # 3 x 1 x 3 = 9 nodes: too few for 2 canary nodes and 2 nodes per congestor.
    expect 2 'too few for GPCNeT.s roles.*10 nodes in all' -- "$G" predict gpcnet --network dragonfly:g=3,a=1,p=3,h=2 -q
    expect 2 'net-model.*fluid' -- "$G" predict gpcnet --network dragonfly:g=3,a=2,p=2,h=1 --net-model fluid -q
    expect 2 'dragonfly|spec' -- "$G" predict gpcnet --network dragonfly:g=1 -q
    expect 2 'ranks-per-node' -- "$G" predict gpcnet --network dragonfly:g=3,a=2,p=2,h=1 --ranks-per-node 0 -q
    expect 2 'hop-latency' -- "$G" predict gpcnet --network dragonfly:g=3,a=2,p=2,h=1 --hop-latency fast -q
    expect 2 'valiant routing needs a dragonfly' -- "$G" predict gpcnet --network fattree:4x4 --net-model packet --routing valiant -q --json nothing.json
    [ ! -e nothing.json ] || fail "a refused run wrote JSON"
    ;;
  precision)
    # --precision (docs/predict.md, "Stopping rules"): every canary records how it stopped; a
    # steady network meets 5% before the cap, a cap of 20 iterations cannot and the notes say so.
    STEADY=(predict gpcnet --network dragonfly:g=3,a=2,p=2,h=1,local=1e15,global=1e15,terminal=1e15 --seed 3
            --iterations 4 --rings 2 -q)
    expect 0 'Congestion Impact' -- "$G" "${STEADY[@]}" --precision 5% --max-iterations 2000 --json met.json
    [ "$(jq '[.phases[].canaries[] | select(.stopping.met and .stopping.iterations < 2000
              and .stopping.samples == .samples and .stopping.target == 0.05)] | length' met.json)" = 6 ] ||
      fail "not every canary met 5% before the cap: $(jq -c '[.phases[].canaries[].stopping]' met.json)"
    [ "$(jq '.notes | length' met.json)" = 0 ] || fail "notes without a cap hit"
    [ "$(jq '.context.parameters.precision_percent' met.json)" = 5 ] || fail "precision not in the context"
    expect 0 'not reached within the cap of 20 timed iterations' -- "$G" "${STEADY[@]}" --precision 1 --max-iterations 20 --json cap.json
    [ "$(jq '[.phases[].canaries[] | select(.stopping.met == false and .stopping.iterations == 20)] | length' cap.json)" = 6 ] ||
      fail "the cap did not end every canary at 20"
    [ "$(jq '.notes | length' cap.json)" = 6 ] || fail "no note per canary run that hit the cap"
    # Without --precision no canary has a stopping object.
    "$G" "${STEADY[@]}" --json fixed.json >/dev/null
    [ "$(jq '[.phases[].canaries[] | select(has("stopping"))] | length' fixed.json)" = 0 ] ||
      fail "a fixed-count run wrote a stopping object"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"
