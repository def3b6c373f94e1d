#!/usr/bin/env bash
# Checks the JSON of `gridlock-bench spmv` runs of one problem under different mappings: all are
# complete, each remapped one is a permutation of the ranks, and the checksums of the results are
# the same bits (the product does not depend on where the tasks run, nor on congestors beside it);
# a run beside congestors also reports that each type ran on its share of the congestor ranks.
# Usage: spmv_check.sh IDENTITY.json REMAPPED.json...
set -euo pipefail
fail() {
  echo "FAIL: $*"
  exit 1
}
identity="$1"
shift
for file in "$identity" "$@"; do
  [ -f "$file" ] || fail "$file was not written"
  [ "$(jq -r .status "$file")" = ok ] || fail "$file: status is not ok"
  [ "$(jq -r .context.tool "$file")" = "gridlock-bench spmv" ] || fail "$file: no context block"
  for key in halo compute allreduce iteration; do
    jq -e ".statistics.$key.mean >= 0 and .statistics.$key.p99 >= .statistics.$key.min" "$file" >/dev/null ||
      fail "$file: statistics.$key missing or inconsistent"
  done
done
[ "$(jq -r .remap.method "$identity")" = identity ] || fail "$identity: mapping is not identity"
a="$(jq -r .checksum "$identity")"
for remapped in "$@"; do
  ranks="$(jq -r .context.ranks "$remapped")"
  jq -e --argjson n "$ranks" '(.remap.new_rank_of_rank | sort) == [range(0; $n)]' "$remapped" >/dev/null ||
    fail "$remapped: new_rank_of_rank is not a permutation of 0..$((ranks - 1))"
  jq -e --argjson n "$ranks" '(.remap.placement | sort) == [range(0; $n)]' "$remapped" >/dev/null ||
    fail "$remapped: the placement is not a permutation of the cores"
  congestor_ranks="$(jq -r '.context.congestor_ranks // 0' "$remapped")"
  if [ "$congestor_ranks" -gt 0 ]; then
    jq -e --argjson n "$congestor_ranks" '([.congestors[].ranks] | add) == $n and
      ([.congestors[] | select(.iterations > 0 and .bytes > 0 and (.timed_out | not))] | length) == (.congestors | length)' \
      "$remapped" >/dev/null || fail "$remapped: the congestors did not all run on their $congestor_ranks ranks"
  fi
  b="$(jq -r .checksum "$remapped")"
  [ "$a" = "$b" ] || fail "checksums differ: $a ($identity) and $b ($remapped)"
  echo "checksums agree: $a; $(jq -r .remap.method "$remapped") moved $(jq '[.remap.new_rank_of_rank | to_entries[] | select(.key != .value)] | length' "$remapped") of $ranks ranks"
done
