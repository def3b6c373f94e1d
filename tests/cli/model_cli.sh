#!/usr/bin/env bash
# CLI checks of `gridlock model fit|predict|check` on the synthetic sweep tests/cli/data/model_sweep.json
# (pingpong with a protocol switch at 8 KiB; allreduce from the paper's form; allgather 4x slow at p=8).
# Usage: model_cli.sh GRIDLOCK WORKDIR CASE   (needs jq)
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
case_name="$3"
DATA="$(cd "$(dirname "$0")" && pwd)/data/model_sweep.json"
work="$(realpath -m "$2")/$case_name"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
require jq jq


case "$case_name" in
  fit)
    expect 0 "switch near 8 KiB" -- "$G" model fit "$DATA" --json fit.json
    # alpha in the one duration style of every table (docs/units.md): it was a bare number.
    grep -Eq '^\| pingpong \| far \| robust \| [0-9.]+ (ns|us) \| ' out || fail "no robust pingpong row"
    grep -Eq '^\| op \| pairs \| fit \| alpha \| beta us/B \|' out || fail "fit table header"
    grep -Eq 'binomial_fit: alpha [0-9.]+ (ns|us|ms), ' out || fail "binomial_fit line"
    grep -Eq '^\| allreduce \| 2\.\.8 \| .*\*' out || fail "no collective table row for allreduce"
    [ "$(jq -r '.context.schema' fit.json)" = gridlock.model.fit ] || fail "schema"
    [ "$(jq '.series | map(select(.op == "pingpong"))[0].segments | length' fit.json)" -eq 2 ] || fail "segments"
    # The paper form was generated with gamma 5, alpha 13.6: recovered within 5%.
    jq -e '.collectives[] | select(.op == "allreduce") | .models.paper_fit
           | (.gamma_us - 5 | fabs) < 0.25 and (.alpha_us - 13.6 | fabs) < 0.7' fit.json >/dev/null ||
      fail "allreduce paper_fit parameters"
    jq -e '.notes | map(select(test("barrier"))) | length == 3' fit.json >/dev/null || fail "barrier notes"
    ;;
  predict)
    "$G" model fit "$DATA" --json fit.json -q
    expect 0 '^\| allreduce \| 1 MiB \| 4096 \| [0-9.e+]+ \| paper_fit \|.*extrapolated' -- \
      "$G" model predict --op allreduce --size 1MiB --ranks 4096 fit.json
    expect 0 '^\| pingpong \| 64 KiB \| 2 \| 5[0-9]\.[0-9]+ \| hockney segment 2/2' -- \
      "$G" model predict --op pingpong --size 64KiB fit.json
    expect 2 "the fit has no op 'alltoall'" -- "$G" model predict --op alltoall --size 1KiB --ranks 4 fit.json
    expect 2 "--size" -- "$G" model predict --op allreduce --size 12XB --ranks 4 fit.json
    expect 2 "schema is not 'gridlock.model.fit'" -- "$G" model predict --op allreduce --size 1KiB "$DATA"
    ;;
  check)
    expect 0 "violation: allgather\(n\) <= gather\(n\) \+ bcast\(n\*p\) at [0-9]+ [KM]?i?B on 8 ranks" -- \
      "$G" model check "$DATA" --json check.json
    grep -q "alltoall(n) <= alltoallv(n): not checked: needs alltoall" out || fail "not-checked line"
    jq -e '.violations > 0 and (.results | length) > 20' check.json >/dev/null || fail "check.json"
    expect 1 "guideline violation\(s\) \(--fail-on-violation\)" -- "$G" model check "$DATA" -q --fail-on-violation
    expect 2 "--level 2" -- "$G" model check "$DATA" --level 2
    ;;
  bad_input)
    expect 2 "cannot fit op pingpong \(far\): one size measured; sweep at least 2 sizes" -- \
      "$G" model fit <(jq '.records |= map(select(.op == "pingpong" and .size_bytes == 1024))' "$DATA")
    expect 2 "record 0: time_us.median is 0" -- \
      "$G" model fit <(jq '.records[0].time_us.median = 0' "$DATA")
    expect 2 "record 3: missing field 'op'" -- "$G" model fit <(jq '.records[3] |= del(.op)' "$DATA")
    expect 2 "not valid JSON" -- "$G" model fit <(head -c 100 "$DATA")
    expect 3 "nosuch.json" -- "$G" model fit nosuch.json
    expect 2 "no guideline could be checked" -- \
      "$G" model check <(jq '.records |= map(select(.kind == "p2p"))' "$DATA")
    cp "$DATA" sweep.json
    expect 2 "--json .sweep.json. is the input file" -- "$G" model fit sweep.json --json sweep.json
    # Two hosts mixed in one fit: a warning naming both, not an error.
    jq '.context.host = "other"' "$DATA" >other.json
    expect 0 "warning: host differs: .*synthetic.*other" -- "$G" model fit "$DATA" other.json -q
    ;;
  loggops)
    "$G" model fit "$DATA" --json fit.json -q
    # pingpong far: alpha 1.2 us below the 8 KiB switch, beta 0.0008 us/B above: L = 600 ns, o = 300 ns,
    # G = 800 ps, S = 4 KiB; -L on the command line wins.
    expect 0 "L = alpha/2, o = alpha/4" -- "$G" sim --program 'allreduce(size=8B)' --ranks 16 \
      --loggops-from fit.json -L 5us --json sim.json
    jq -e '.context.loggops | .L_ps == 5000000 and (.o_send_ps - 300000 | fabs) < 5000 and
           (.G_ps - 800 | fabs) < 20 and .S_bytes == 4096' sim.json >/dev/null || fail "loggops from the fit"
    expect 2 "no pingpong series" -- "$G" sim --program 'allreduce(size=8B)' --ranks 4 --loggops-from \
      <(jq '.series |= map(select(.op != "pingpong"))' fit.json)
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: model $case_name"
