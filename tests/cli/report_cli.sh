#!/usr/bin/env bash
# CLI checks of `gridlock report` (docs/report.md): a page of every kind of checked-in result, bad
# inputs (a message naming the file, the rest still written, exit code 2), --compare of two runs
# and of two kinds, output == input refused, a missing Chart.js, and the page's size.
# Usage: report_cli.sh GRIDLOCK INPUTS_DIR WORK_DIR
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$1"
in="$2"
work="$3"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

"$G" report "$in"/*.json "$in/noise.trace" "$in/trend.csv" -o all.html >out.txt || fail "report of every input failed"
# One section per input: every JSON result plus the noise trace and the trend CSV.
inputs=$(($(find "$in" -maxdepth 1 -name '*.json' | wc -l) + 2))
grep -q "all.html ($inputs sections" out.txt || fail "unexpected summary (expected $inputs sections): $(cat out.txt)"
[ "$(grep -c '<section ' all.html)" -eq "$inputs" ] || fail "not one section per input"
[ "$(grep -c 'class="gl-data"' all.html)" -eq "$inputs" ] || fail "not one data block per section"
size=$(stat -c %s all.html)
[ "$size" -lt 2000000 ] || fail "page of $inputs results is $size bytes (issue 27: under 2 MB)"

# Bad inputs: each named on stderr, noted in the page, the rest reported, exit code 2.
: >empty.json
printf '{"context": {"schema": "gridlock.bench", "schema_ver' >truncated.json
echo '{"context": {"schema": "gridlock.bench", "schema_version": 9}}' >newer.json
echo '[1, 2, 3]' >foreign.json
set +e
"$G" report "$in/load.json" empty.json truncated.json newer.json foreign.json missing.json -o bad.html 2>err.txt
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad inputs: exit code $rc, expected 2"
for f in empty.json truncated.json newer.json foreign.json missing.json; do
  grep -q "$f" err.txt || fail "stderr does not name $f: $(cat err.txt)"
  grep -q "$f" bad.html || fail "the page does not name $f"
done
grep -q "newer than this gridlock understands" err.txt || fail "newer schema not explained"
grep -q 'data-kind="gridlock.bench/load"' bad.html || fail "the good input was not reported"

# --compare: same kind side by side with ratios; different kinds refused with both names.
"$G" report -q --compare "$in/load.json" "$in/load_b.json" -o cmp.html || fail "compare failed"
grep -q 'data-kind="compare"' cmp.html || fail "no comparison section"
grep -q 'class="side-by-side"' cmp.html || fail "the two runs are not side by side"
set +e
"$G" report --compare "$in/load.json" "$in/replicas.json" -o cmp2.html 2>err2.txt
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "compare of two kinds: exit code $rc"
grep -q "load.json is a gridlock.bench/load result and .*replicas.json a gridlock.sim.replicas result" err2.txt ||
  fail "compare of two kinds: $(cat err2.txt)"
[ ! -e cmp2.html ] || fail "a refused comparison wrote a page"

# The output may not be an input; a missing Chart.js is an I/O error (3) saying what to install.
cp "$in/load.json" same.json
set +e
"$G" report same.json -o same.json 2>err3.txt
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "output == input: exit code $rc"
cmp -s same.json "$in/load.json" || fail "output == input overwrote the input"
set +e
"$G" report "$in/load.json" --assets "$work/nowhere" -o x.html 2>err4.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "missing Chart.js: exit code $rc"
grep -q "libjs-chart.js" err4.txt || fail "missing Chart.js: $(cat err4.txt)"
# A --csv-dir histogram that is a FIFO is refused with a note in the page, not read (it would block).
mkdir -p fifo-dir
cp "$in"/histograms/*.csv fifo-dir/
rm fifo-dir/isolated_rr_two_sided_lat.csv
mkfifo fifo-dir/isolated_rr_two_sided_lat.csv
timeout 60 "$G" report -q "$in/bench_load.json" --csv-dir fifo-dir -o fifo.html || fail "a FIFO in --csv-dir: exit code $?"
grep -q "it is a FIFO" fifo.html || fail "a FIFO in --csv-dir: no note in the page"
echo "OK: report CLI"
