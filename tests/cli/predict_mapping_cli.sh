#!/usr/bin/env bash
# CLI checks of `gridlock predict mapping` (what a task mapping recovers under congestion on a
# simulated network; docs/predict.md).
# Usage: predict_mapping_cli.sh GRIDLOCK WORKDIR CASE GOLDEN_DIR   (needs jq)
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


# The paper's setup (the defaults) with 2 iterations and three mappings: about a second.
TINY=(predict mapping --iterations 2 --methods geometric,scotch:hops,scotch:stalls --seed 1 -q)
# The numbers of a report, rounded to 3 decimals (the golden file is not about the last bits).
numbers() {
  jq -S 'def r: if type == "number" then (. * 1000 | round) / 1000 else . end;
    {rows: (.rows | map({method, alone_us: (.alone_us | r), congested_us: (.congested_us | r),
                         recovered_pct: (.recovered_pct | r), paper_recovered_pct, starved,
                         node_of_task})),
     context: (.context | {tool, schema, network, net_model, nodes, cores_per_node, tasks, source, seed,
                           congestors: (.congestors | {pairs, message_bytes, window})})}' "$1"
}

case "$case_name" in
  golden)
    expect 0 '^\| identity +\| +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+ \| +- \| +- \|$' -- "$G" "${TINY[@]}" --json tiny.json
    grep -Eq '^\| scotch:stalls +\| +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+ \| +-?[0-9.]+ \| +48.9 \|$' out ||
      fail "no STALLS row with the paper's 48.9"
    grep -q 'competing traffic: 3 pairs exchanging 1048576 B messages both ways' out || fail "no congestor line"
    numbers tiny.json >tiny.numbers.json
    if [ "${GRIDLOCK_UPDATE_GOLDEN:-0}" = 1 ]; then
      cp tiny.numbers.json "$golden_dir/predict/mapping_tiny.json"
    fi
    diff -u "$golden_dir/predict/mapping_tiny.json" tiny.numbers.json || fail "numbers differ from the golden file"
    # The LogGOPS parameters are spelled as gridlock sim spells them (sim::params_json), plus the hop latency.
    jq -e '.context.parameters | has("L_ps") and has("o_send_ps") and has("S_bytes") and has("hop_latency_ps")
           and (has("latency_ps") | not)' tiny.json >/dev/null || fail "parameters not in gridlock sim's spelling"
    # Congestion slows identity, and every congestor outlasted the application.
    jq -e '.rows[0] | .congested_us > .alone_us' tiny.json >/dev/null || fail "identity not slowed"
    jq -e '[.rows[] | .congestors_end_us >= .congested_us] | all' tiny.json >/dev/null ||
      fail "a congestor ended before the application"
    # The same seed gives the same report.
    "$G" "${TINY[@]}" --json again.json >/dev/null
    [ "$(numbers again.json)" = "$(cat tiny.numbers.json)" ] || fail "two runs with one seed differ"
    # Progress goes to stderr, -q silences it.
    "$G" predict mapping --iterations 1 --methods scotch:hops >/dev/null 2>progress.txt
    grep -q '^predict: calibration' progress.txt || fail "no progress on stderr"
    # Several seeds: means with their range.
    "$G" predict mapping --iterations 1 --methods scotch:stalls --seeds 2 -q --json seeds.json >out
    grep -Eq '^\| mapping .*\| range over 2 seeds \| paper \(%\) \|$' out || fail "no range column with --seeds 2"
    [ "$(jq '.rows[1].recovered_pct_per_seed | length' seeds.json)" = 2 ] || fail "no per-seed figures"
    [ "$(jq .context.seeds seeds.json)" = 2 ] || fail "seeds not in the context"
    # The packet model runs the same method (its figures are not golden: see docs/predict.md).
    "$G" predict mapping --iterations 2 --methods scotch:hops -q --net-model packet --json packet.json >/dev/null
    [ "$(jq -r .context.net_model packet.json)" = packet ] || fail "packet run not labelled packet"
    [ "$(jq '.rows | length' packet.json)" = 2 ] || fail "packet run without 2 rows"
    ;;
  bad_input)
    expect 2 'nid09999' -- "$G" predict mapping --nodes 'nid[00017-00019],nid09999' --cores-per-node 4 --tasks stencil3d:2x2x2 -q
    expect 2 'do not fit on 32 cores' -- "$G" predict mapping --cores-per-node 2 -q
    expect 2 'magic' -- "$G" predict mapping --methods scotch:magic -q
    expect 2 'iterations 0' -- "$G" predict mapping --iterations 0 -q
    expect 2 'congestors.*A:B' -- "$G" predict mapping --congestors nid00016 -q
    expect 2 "congestor node 'nid00040'" -- "$G" predict mapping --network torus:2x2x4 --nodes nid00001,nid00002 --tasks stencil3d:2x2x2 -q
    expect 2 'net-model.*fluid' -- "$G" predict mapping --net-model fluid -q
    expect 2 'compute' -- "$G" predict mapping --compute soon -q --json nothing.json
    [ ! -e nothing.json ] || fail "a refused run wrote JSON"
    # An output that is also an input (the @FILE node list) is refused.
    printf 'nid[00017-00018]\n' >nodes.txt
    expect 2 'nodes.txt' -- "$G" predict mapping --nodes @nodes.txt --tasks stencil3d:2x2x2 -q --json nodes.txt
    grep -q 'nid\[00017-00018\]' nodes.txt || fail "the node list was overwritten"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"
