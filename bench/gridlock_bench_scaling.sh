#!/usr/bin/env bash
# Measurements of gridlock-bench for docs/performance.md (run from the repository root after
# building the release preset):
#   1. set-up time (node detection, slices, roles, kernels) against the number of ranks;
#   2. peak memory per rank against the number of samples (it must not grow with nM).
# Usage: bench/gridlock_bench_scaling.sh [RUNS]   (median over RUNS runs, default 3)
set -euo pipefail
runs="${1:-3}"
bench=build/release/apps/gridlock-bench/gridlock-bench
source scripts/mpi-env.sh
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['context'][sys.argv[2]])" "$1" "$2"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "## set-up time (network mode, one rank per virtual node, median of $runs runs)"
echo "| ranks | setup_s |"
for np in 2 4 8 16 32; do
  for r in $(seq "$runs"); do
    mpiexec -n "$np" "$bench" network --virtual-nodes "$np" --quick --seed 1 -q --json "$tmp/s.json" >/dev/null
    field "$tmp/s.json" setup_s
  done | median | xargs printf "| %s | %s |\n" "$np"
done

echo "## peak RSS of the largest rank against samples per rank (load mode, 12 virtual nodes)"
echo "| latency nM | latency samples per rank | peak_rss_kib_max_rank |"
for nm in 4 40 400; do
  for r in $(seq "$runs"); do
    mpiexec -n 12 "$bench" load --virtual-nodes 12 --quick --seed 1 -q --latency-measurements "$nm" \
      --json "$tmp/m.json" >/dev/null
    field "$tmp/m.json" peak_rss_kib_max_rank
  done | median | xargs printf "| $nm | $((nm * 3 * 20)) | %s |\n"
done
