#!/usr/bin/env bash
# The main job on one machine: installs dependencies, builds, and runs `gridlock-bench load`
# on virtual nodes (consecutive ranks of this host act as separate nodes), then writes the charts
# of the run as one self-contained HTML page, out/report.html (`gridlock report`, docs/report.md).
# Usage: scripts/demo.sh [NODES] [extra gridlock-bench options...]   (NODES defaults to 12)
set -euo pipefail
cd "$(dirname "$0")/.."
nodes="${1:-12}"
shift || true

scripts/setup.sh --deps-only
# Only what the demo runs: the whole tree (tests, benchmarks) takes far longer on small machines.
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target gridlock-bench gridlock
source scripts/mpi-env.sh
mkdir -p out
echo "demo: $nodes virtual nodes on this one host: the \"network\" is shared memory and the ranks share" \
  "$(nproc) cores, so the figures show the method, not a network; impacts below 1 are noise (raw values in out/load.json)"
mpiexec -n "$nodes" build/release/apps/gridlock-bench/gridlock-bench load \
  --virtual-nodes "$nodes" --quick --seed 1 --json out/load.json --csv-dir out/histograms "$@"
build/release/apps/gridlock/gridlock report -q out/load.json --csv-dir out/histograms -o out/report.html
echo "demo: report written to $(pwd)/out/report.html (open it in any browser; it needs no network)"
