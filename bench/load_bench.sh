#!/usr/bin/env bash
# One-shot schedule loads against reading the same file with dd, alternating, with the page cache
# dropped before each run (issue 3, "binary load at disk speed"; docs/performance.md). Prints
# every run and the medians. Without root the cache cannot be dropped: the runs are then warm, and
# the script says so.
#
#   bench/load_bench.sh FILE [RUNS=5] [LOAD_BENCH=build/release/bench/load_bench] [OTHER_LOAD_BENCH]
#
# OTHER_LOAD_BENCH is a load_bench built from another commit, run in the same alternation.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bench/load_bench.sh FILE [RUNS] [LOAD_BENCH] [OTHER_LOAD_BENCH]" >&2
  exit 2
fi
file=$1
runs=${2:-5}
mine=${3:-build/release/bench/load_bench}
other=${4:-}
[ -r "$file" ] || { echo "load_bench.sh: cannot read '$file'" >&2; exit 2; }
[ -x "$mine" ] || { echo "load_bench.sh: '$mine' is not built (cmake --build --preset release --target load_bench)" >&2; exit 2; }
cold=1
[ -w /proc/sys/vm/drop_caches ] || { cold=0; echo "load_bench.sh: cannot drop the page cache (not root): warm runs" >&2; }
drop() {
  sync
  if [ "$cold" = 1 ]; then echo 3 > /proc/sys/vm/drop_caches; fi
}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for _ in $(seq "$runs"); do
  drop
  dd if="$file" of=/dev/null bs=1M 2>&1 | sed -n 's/.* copied, \([0-9.]*\) s.*/dd \1/p' | tee -a "$results"
  drop
  "$mine" "$file" | tee /dev/stderr | sed -n 's/^load [^:]*: \([0-9.]*\) s.*/load \1/p' >> "$results"
  if [ -n "$other" ]; then
    drop
    "$other" "$file" | sed 's/^/other /' | tee /dev/stderr | sed -n 's/^other load [^:]*: \([0-9.]*\) s.*/other \1/p' >> "$results"
  fi
done
bytes=$(stat -c %s "$file")
for what in dd load other; do
  grep "^$what " "$results" | sort -k2 -g | awk -v w="$what" -v b="$bytes" \
    '{t[NR]=$2} END {if (NR) {m=t[int((NR+1)/2)]; printf "median %s: %.3f s (%.0f MB/s), %d runs\n", w, m, b/m/1e6, NR}}'
done
