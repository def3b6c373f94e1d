#!/usr/bin/env bash
# CLI checks of `gridlock predict traffic` (synthetic traffic on a simulated network;
# docs/predict.md, "Synthetic traffic").
# Usage: predict_traffic_cli.sh GRIDLOCK WORKDIR CASE DATA_DIR   (needs jq)
# Cases: run (table, JSON, CSV, report). Its bad inputs are cases of cli.bad_input (tests/cli/bad_input/traffic.cases).
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
case_name="$3"
data="$(realpath "$4")"
work="$(realpath -m "$2")/$case_name"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
require jq jq

# The theory's dragonfly (docs/predict.md): one global link between every pair of groups.
DF='dragonfly:g=5,a=2,p=2,h=2,local=10GB/s,global=10GB/s,terminal=10GB/s'

case "$case_name" in
  run)
    "$G" predict traffic --network "$DF" --pattern worst-case --load 0.1,1 --packet-size 256 --buffer 2KiB \
      --seed 3 --json t.json --csv t.csv >out 2>err
    cat out
    grep -Eq '^\| +Offered \| +Accepted \| +Lat avg \| +Lat 99% \| +Hops \| Units \| State' out ||
      fail "no table header"
    grep -Eq 'saturation throughput 0\.2[0-9]{2}' out || fail "minimal worst-case should saturate near 0.25"
    grep -q 'seed 3' out || fail "the seed is not printed"
    [ "$(jq -r .context.schema t.json)" = gridlock.predict.traffic ] || fail "schema"
    [ "$(jq '.points | length' t.json)" = 2 ] || fail "two points"
    jq -e '.points[0] | has("offered") and has("accepted") and has("latency_avg_ns") and has("latency_p99_ns")
      and has("hops_avg")' t.json >/dev/null || fail "point fields"
    jq -e '.saturation.throughput > 0.2 and .saturation.throughput < 0.3 and .saturation.first_saturated_load == 1' \
      t.json >/dev/null || fail "saturation block"
    # The CSV: the context block as comments, a header, one row per load with the JSON's numbers.
    grep -qx '# schema: gridlock.predict.traffic' t.csv || fail "CSV context block"
    grep -qx 'offered,accepted,latency_avg_ns,latency_p99_ns,hops_avg,packets,delivered,batches,converged,saturated' \
      t.csv || fail "CSV header"
    [ "$(grep -vc '^#' t.csv)" = 3 ] || fail "CSV: a header and two rows"
    [ "$(grep -v '^#' t.csv | tail -1 | cut -d, -f2)" = "$(jq -r '.points[1].accepted' t.json)" ] ||
      fail "CSV accepted differs from the JSON's"
    [ "$(grep -v '^#' t.csv | tail -1 | cut -d, -f10)" = true ] || fail "CSV: offered 1 is saturated"
    # Deterministic for a seed.
    "$G" predict traffic --network "$DF" --pattern worst-case --load 0.1,1 --packet-size 256 --buffer 2KiB \
      --seed 3 -q >out2
    diff <(grep '^|' out) <(grep '^|' out2) || fail "two runs with one seed differ"
    # The flow model, a range of loads, progress lines.
    "$G" predict traffic --network fattree:4x4 --net-model flow --pattern shift:4 --load 0.2:0.4:0.2 --packet-size 512 \
      --progress -q >flow 2>flow_err
    [ "$(grep -Ec '^\| +0\.[24]00 ' flow)" = 2 ] || fail "flow model: two rows"
    grep -q 'predict traffic: load 0.200' flow_err || fail "no progress line"
    # The report draws it.
    "$G" report t.json -o r.html >/dev/null
    grep -q 'Packet latency against offered load' r.html || fail "report has no latency-load chart"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo PASS
