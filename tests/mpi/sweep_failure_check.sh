#!/usr/bin/env bash
# Checks the JSON of a `gridlock-bench sweep` run in which GRIDLOCK_SWEEP_FAIL=OP:BYTES made one
# measurement fail on every pair or communicator (docs/gridlock-bench.md, "Failed measurements"):
# the file is complete, each failure is a `failed` record with the MPI error and no statistics, the
# op's larger sizes on that pair or communicator are `skipped`, the next op was measured, and
# `gridlock model fit` reads the file, leaving the failed and skipped records out with a warning.
# Usage: sweep_failure_check.sh SWEEP.json OP BYTES FAILED SKIPPED LATER_OP GRIDLOCK
#   FAILED, SKIPPED: the numbers of failed and skipped records; LATER_OP: an op run after OP.
set -euo pipefail
fail() {
  echo "FAIL: $*"
  exit 1
}
file="$1"
op="$2"
bytes="$3"
failed="$4"
skipped="$5"
later="$6"
gridlock="$7"
[ -f "$file" ] || fail "$file was not written"
jq -e '.context.schema_version == 2 and .status == "complete" and (has("reason") | not)' "$file" >/dev/null ||
  fail "$file: not a complete gridlock.sweep version 2 file: $(jq -c '{status, reason}' "$file")"
jq -e --argjson n "$failed" '.failed == $n and ([.records[] | select(.status == "failed")] | length == $n)' \
  "$file" >/dev/null || fail "$file: expected $failed failed records, got $(jq '.failed' "$file")"
# The failed records: the injected op and size, the lowest failing rank, the call and MPI's own
# error string (through the error handler), and no statistics.
jq -e --arg op "$op" --argjson b "$bytes" '[.records[] | select(.status == "failed") | select(
    .op != $op or .size_bytes != $b
    or (.error | test("^rank [0-9]+: MPI_[A-Za-z_]+: MPI_ERR_(COUNT|OP)[:]") | not)
    or has("time_us") or has("n") or has("bandwidth_mib_s"))] | length == 0' "$file" >/dev/null ||
  fail "$file: a failed record is wrong: $(jq -c '[.records[] | select(.status == "failed")][0]' "$file")"
# The skipped records: the same op at larger sizes only, each with its reason.
jq -e --arg op "$op" --argjson b "$bytes" --argjson n "$skipped" '[.records[] | select(.status == "skipped")] |
    length == $n and all(.op == $op and .size_bytes > $b and (.reason | test("failed at")) and (has("time_us") | not))' \
  "$file" >/dev/null || fail "$file: skipped records wrong: $(jq -c '[.records[] | select(.status == "skipped")]' "$file")"
# Sizes below the failure were measured.
jq -e --arg op "$op" --argjson b "$bytes" '[.records[] | select(.op == $op and .size_bytes < $b)] |
    length > 0 and all(.status == "ok" and .time_us.median > 0)' "$file" >/dev/null ||
  fail "$file: the sizes of $op below $bytes were not measured"
# The sweep went on with the next op.
jq -e --arg op "$later" '[.records[] | select(.op == $op)] | length > 0 and all(.status == "ok" and .time_us.median > 0)' \
  "$file" >/dev/null || fail "$file: $later was not measured after the failure"
# model fit works on the file and says how many records it left out.
total=$((failed + skipped))
out="$("$gridlock" model fit "$file" 2>&1)" || fail "gridlock model fit failed: $out"
grep -Eq "warning: .*: $failed failed and $skipped skipped measurements left out" <<<"$out" ||
  fail "model fit did not warn about the $total records left out: $out"
echo "ok: $failed failed, $skipped skipped, $later measured, model fit warned"
