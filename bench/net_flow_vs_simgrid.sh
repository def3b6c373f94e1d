#!/usr/bin/env bash
# The flow model beside SimGrid's max-min solver (issue 26): bench/net_flow_vs_simgrid.cpp on three
# topologies, five seeds each, medians of the CPU times and of the speed-up.
#   bench/net_flow_vs_simgrid.sh [BUILD_DIR=build/release] [FLOWS=2000]
set -euo pipefail
build=${1:-build/release}
flows=${2:-2000}
bin="$build/bench/bench_net_flow_vs_simgrid"
[ -x "$bin" ] || { echo "net_flow_vs_simgrid.sh: build $bin first (cmake --build $build --target bench_net_flow_vs_simgrid)" >&2; exit 2; }
echo "| spec | flows | runs | within 5% (all runs) | max rel. diff | flow model CPU s (median) | SimGrid CPU s (median) | speed-up (median) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for spec in "dragonfly:g=9,a=4,p=2,h=2" "fattree:8x8" "torus:4x4x4"; do
  rows=()
  for seed in 1 2 3 4 5; do
    rows+=("$("$bin" --spec "$spec" --flows "$flows" --seed "$seed" | tail -1)")
  done
  printf '%s\n' "${rows[@]}" | awk -F'|' -v spec="$spec" -v flows="$flows" '
    { within += $4; if ($6 + 0 > maxrel) maxrel = $6 + 0; ours[NR] = $7 + 0; theirs[NR] = $8 + 0; ratio[NR] = $9 + 0; n = NR }
    function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return a[int((n + 1) / 2)] }
    END { printf "| %s | %d | %d | %d of %d | %.5f | %.4f | %.4f | %.1f |\n", spec, flows, n, within, n * flows, maxrel,
          median(ours, n), median(theirs, n), median(ratio, n) }'
done
