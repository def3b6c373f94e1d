#!/usr/bin/env bash
# Fuzzes the GOAL text parser and the binary schedule reader for a bounded time (CI step).
# Builds with clang in its own directory (build/fuzz); new interesting inputs go to build/fuzz/corpus,
# the seed corpus is tests/fuzz/corpus. Usage: scripts/fuzz.sh [seconds]   (default 60, at most 90)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
if ((seconds > 90)); then
  seconds=90
fi
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRIDLOCK_FUZZ=ON \
  -DGRIDLOCK_WITH_MPI=OFF -DGRIDLOCK_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/fuzz --target goal_fuzz -j "$(nproc)"
mkdir -p build/fuzz/corpus
build/fuzz/tests/fuzz/goal_fuzz -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 build/fuzz/corpus tests/fuzz/corpus
