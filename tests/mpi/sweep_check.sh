#!/usr/bin/env bash
# Checks the JSON of a `gridlock-bench sweep` run against docs/formats/sweep-json.md: the context
# block, a record for every expected op, positive medians, consistent statistics, sizes in
# increasing order within each (op, ranks, pair class, pass), and the pair classes measured or
# skipped as expected.
# Usage: sweep_check.sh SWEEP.json RANKS OPS PAIR_CLASSES [SAMPLES]
#   OPS: comma-separated ops that must have records; PAIR_CLASSES: classes that must be measured
#   (comma-separated, or -); SAMPLES: "samples" if every record must carry samples_us.
set -euo pipefail
fail() {
  echo "FAIL: $*"
  exit 1
}
file="$1"
ranks="$2"
ops="$3"
classes="$4"
samples="${5:-}"
[ -f "$file" ] || fail "$file was not written"
jq -e '.context.tool == "gridlock-bench sweep" and .context.schema == "gridlock.sweep" and .context.schema_version == 2' \
  "$file" >/dev/null || fail "$file: context block is not gridlock.sweep version 2"
jq -e --argjson r "$ranks" '.context.ranks == $r and (.context.nodes >= 1) and (.context.seed | type) == "number"
  and (.context.sync | IN("barrier", "window")) and (.context.mpi_library | type) == "string"
  and (.context.parameters | type) == "object"' "$file" >/dev/null || fail "$file: context fields missing or wrong"
jq -e '.records | length > 0' "$file" >/dev/null || fail "$file: no records"
jq -e '.status == "complete" and .failed == 0 and ([.records[] | select(.status != "ok")] | length == 0)' "$file" \
  >/dev/null || fail "$file: not complete, or a measurement failed: $(jq -c '[.records[] | select(.status != "ok")][0]' "$file")"
IFS=, read -ra op_list <<<"$ops"
for op in "${op_list[@]}"; do
  n="$(jq --arg op "$op" '[.records[] | select(.op == $op)] | length' "$file")"
  [ "$n" -gt 0 ] || fail "$file: no record for op $op"
done
# Under --sync window a record may have no valid call (every start late on a loaded host): its
# calls are then all counted as invalid and its figures are null.
jq -e '[.records[] | select(.n + .invalid < 1 or (.n == 0 and .time_us.median != null))] | length == 0' "$file" \
  >/dev/null || fail "$file: a record without calls, or with figures but no sample"
# Every measured record: kind/op/pair class consistent, medians positive (barrier: a zero-byte
# collective still takes time), statistics ordered, CI around the median.
jq -e '.context.sync as $sync | [.records[] | select(.n > 0 or $sync == "barrier") | select(
    (.kind | IN("p2p", "rma", "collective") | not)
    or (.kind == "collective" and .pair_class != null)
    or (.kind != "collective" and (.pair_class | IN("node", "router", "far") | not))
    or .outliers < 0 or .outliers > .n
    or (.time_us.median > 0 | not)
    or (.time_us.min <= .time_us.q1 and .time_us.q1 <= .time_us.median and .time_us.median <= .time_us.q3
        and .time_us.q3 <= .time_us.max and .time_us.p99 <= .time_us.max | not)
    or (.time_us.ci_low <= .time_us.median and .time_us.median <= .time_us.ci_high | not)
    or (.time_us.ci_level >= 0 | not)
  )] | length == 0' "$file" >/dev/null || fail "$file: a record with inconsistent statistics: $(jq -c '[.records[] | select(.n < 1 or (.time_us.median > 0 | not))][0]' "$file")"
jq -e '[.records[] | select((.op | IN("bw_uni", "bw_bi", "put_fence", "get_fence", "put_passive", "get_passive"))
    and .size_bytes > 0 and (.bandwidth_mib_s > 0 | not))] | length == 0' "$file" >/dev/null ||
  fail "$file: a bandwidth record without a positive bandwidth"
jq -e '[.records[] | select(.op == "pingpong" and .bandwidth_mib_s != null)] | length == 0' "$file" >/dev/null ||
  fail "$file: pingpong records carry a bandwidth"
# Sizes strictly increase within each series, in measurement order.
jq -e '[.records | group_by([.op, .ranks, .pair_class, .repeat])[] | [.[].size_bytes] | select(. != (sort | unique))]
  | length == 0' "$file" >/dev/null || fail "$file: sizes not increasing within a series"
if [ "$classes" != - ]; then
  IFS=, read -ra class_list <<<"$classes"
  for c in "${class_list[@]}"; do
    jq -e --arg c "$c" '[.records[] | select(.pair_class == $c)] | length > 0' "$file" >/dev/null ||
      fail "$file: pair class $c not measured"
  done
fi
# Every class not measured is reported as skipped.
for c in node router far; do
  measured="$(jq --arg c "$c" '[.records[] | select(.pair_class == $c)] | length' "$file")"
  if [ "$measured" -eq 0 ] && jq -e '[.records[] | select(.kind != "collective")] | length > 0' "$file" >/dev/null; then
    jq -e --arg c "$c" '[.skipped[] | select(.what == "pair class " + $c)] | length == 1' "$file" >/dev/null ||
      fail "$file: pair class $c neither measured nor skipped"
  fi
done
# Collectives on every communicator size of the sweep include the world.
if jq -e '[.records[] | select(.kind == "collective")] | length > 0' "$file" >/dev/null; then
  jq -e --argjson r "$ranks" '[.records[] | select(.kind == "collective" and .ranks == $r)] | length > 0' "$file" \
    >/dev/null || fail "$file: no collective on all $ranks ranks"
fi
if [ "$samples" = samples ]; then
  jq -e '[.records[] | select((.samples_us | length) != .n)] | length == 0' "$file" >/dev/null ||
    fail "$file: samples_us missing or not n long"
fi
# --guidelines: bcast is also measured at n x p for every gather size n on p ranks.
if jq -e '.context.parameters.guidelines' "$file" >/dev/null; then
  jq -e '[.records[] | select(.op == "gather")] as $g | [.records[] | select(.op == "bcast")] as $b
    | [$g[] | . as $x | select([$b[] | select(.ranks == $x.ranks and .size_bytes == $x.size_bytes * $x.ranks)]
      | length == 0)] | length == 0' "$file" >/dev/null || fail "$file: --guidelines without bcast at n x p"
fi
echo "ok: $(jq '.records | length' "$file") records, ops $(jq -r '[.records[].op] | unique | join(",")' "$file"), skipped $(jq -r '[.skipped[].what] | join("; ")' "$file")"
