#!/usr/bin/env bash
# Overhead of libgridlock-trace.so per MPI call (issue 25: at most 0.5 us per call and 64 bytes
# per event on average): bench_trace_overhead untraced, then traced, on one rank.
# Usage: bench/trace_overhead.sh [BUILD_DIR=build/release] [N=200000]
set -euo pipefail
build="${1:-build/release}"
n="${2:-200000}"
app="$build/bench/bench_trace_overhead"
lib="$build/src/trace/libgridlock-trace.so"
[ -x "$app" ] && [ -f "$lib" ] || { echo "build bench_trace_overhead and gridlock-trace in $build first" >&2; exit 2; }
source "$(dirname "$0")/../scripts/mpi-env.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpiexec -n 1 "$app" "$n" >"$work/plain"
mpiexec -n 1 env LD_PRELOAD="$lib" GRIDLOCK_TRACE_DIR="$work/trace" "$app" "$n" >"$work/traced" 2>"$work/err"
events=$(sed -nE 's/.* ([0-9]+) events$/\1/p' "$work/err")
bytes=$(cat "$work/trace/traces/"*.evt | wc -c)
echo "| call | untraced | traced | added | units |"
echo "| --- | --- | --- | --- | --- |"
paste "$work/plain" "$work/traced" | awk '{ printf "| %s | %.0f | %.0f | %.0f | ns per call |\n", $1, $2, $5, $5 - $2 }'
awk -v b="$bytes" -v e="$events" 'BEGIN { printf "| bytes per event | | %.1f | | %d bytes, %d events |\n", b / e, b, e }'
