#!/usr/bin/env bash
# Fuzzes gridlock's input parsers for a bounded time each (CI step): goal_fuzz (the GOAL text parser
# and the binary schedule reader) and inputs_fuzz (noise traces and specs, units, program specs,
# gridlock map's task-graph specs (stencil3d, stencil2d, alltoall) and Slurm hostlists for --nodes)
# and model_fuzz (sweep files, fitted and checked against the guidelines; fit files, predicted from;
# result files named into history metrics; metric names; --baseline specs) and trace_fuzz (the
# trace-to-schedule converter of `gridlock schedule from-trace` on traces and options decoded from
# the input, its schedules simulated, and the OTF2 directory reader on archives written from the
# input) and net_fuzz (network specs, model options and messages for `gridlock sim --network`, both
# network models run dry) and oracle_fuzz (the oracle client's reading of an answer: status, body,
# error objects, route-metrics values, metric matrices).
# Builds with clang in its own directory (build/fuzz), source by source (no unity build: each target
# compiles parser sources its libraries hold too, and a library's unity object would then define
# them twice); new interesting inputs go to build/fuzz/<target>-corpus, the seed corpora are
# tests/fuzz/corpus, tests/fuzz/inputs-corpus, tests/fuzz/model-corpus, tests/fuzz/trace-corpus,
# tests/fuzz/net-corpus and tests/fuzz/oracle-corpus.
# A crash leaves its input in build/fuzz/crash-* and fails the script.
# Usage: scripts/fuzz.sh [seconds per target]   (default 60, at most 90)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
if ((seconds > 90)); then
  seconds=90
fi
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRIDLOCK_FUZZ=ON \
  -DGRIDLOCK_WITH_MPI=OFF -DGRIDLOCK_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/fuzz --target goal_fuzz inputs_fuzz model_fuzz trace_fuzz net_fuzz oracle_fuzz -j "$(nproc)"
for target in goal inputs model trace net oracle; do
  seeds=tests/fuzz/corpus
  if [ "$target" != goal ]; then
    seeds="tests/fuzz/$target-corpus"
  fi
  mkdir -p "build/fuzz/$target-corpus"
  echo "fuzz.sh: $target for $seconds s"
  "build/fuzz/tests/fuzz/${target}_fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/fuzz/ "build/fuzz/$target-corpus" "$seeds"
done
