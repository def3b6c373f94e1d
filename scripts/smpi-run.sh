#!/usr/bin/env bash
# Runs gridlock-bench (built with the "smpi" preset) on a SimGrid-simulated platform, one rank
# per simulated host (docs/smpi.md).
# Usage: scripts/smpi-run.sh PLATFORM NP [smpirun options...] -- gridlock-bench ARGS...
#   PLATFORM  a file in platforms/ (e.g. dragonfly-256 or platforms/dragonfly-256.xml)
#   NP        number of ranks = simulated hosts used (at most the platform's host count)
# Environment: GRIDLOCK_SMPI_BENCH (default build/smpi/apps/gridlock-bench/gridlock-bench),
#              GRIDLOCK_SMPI_RANKS_PER_HOST (default 1: one rank per simulated host),
#              GRIDLOCK_SMPI_HOSTS (default: the platform's hosts in order): comma-separated host
#              names of the platform to use, in this order (e.g. an allocation scattered over a
#              torus); each gets GRIDLOCK_SMPI_RANKS_PER_HOST consecutive ranks.
# Example: scripts/smpi-run.sh dragonfly-256 256 -- load --quick --seed 1
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if (($# < 3)); then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
platform="$1"
np="$2"
shift 2
[ -f "$platform" ] || platform="$root/platforms/${platform%.xml}.xml"
[ -f "$platform" ] || { echo "smpi-run: no platform file '$1' (see platforms/)" >&2; exit 2; }
extra=()
while (($#)) && [ "$1" != "--" ]; do
  extra+=("$1")
  shift
done
[ "${1:-}" = "--" ] || { echo "smpi-run: missing '--' before the gridlock-bench arguments" >&2; exit 2; }
shift
bench="${GRIDLOCK_SMPI_BENCH:-$root/build/smpi/apps/gridlock-bench/gridlock-bench}"
[ -x "$bench" ] || { echo "smpi-run: $bench not found; build it: cmake --preset smpi && cmake --build --preset smpi -j2" >&2; exit 2; }
per_host="${GRIDLOCK_SMPI_RANKS_PER_HOST:-1}"

# Hosts of the platform, in cluster order: every <cluster> gives prefix + N + suffix for each
# N of its radical ("0-255" or "0-3,8-11"); then every explicit <host id="..."> in file order
# (platforms written by `gridlock topo simgrid`, e.g. gemini-2x2x8: nid00000 .. nid00063).
hosts="$(mktemp "${TMPDIR:-/tmp}/gridlock-smpi-hosts.XXXXXX")"
trap 'rm -f "$hosts"' EXIT
{
  # A platform may have no <cluster> or no <host> elements: grep finding none is no error.
  tr '\n' ' ' <"$platform" | { grep -o '<cluster [^>]*>' || true; } | while read -r tag; do
    attr() { sed -n "s/.* $1=\"\([^\"]*\)\".*/\1/p" <<<"$tag"; }
    prefix="$(attr prefix)"
    suffix="$(attr suffix)"
    IFS=',' read -ra parts <<<"$(attr radical)"
    for part in "${parts[@]}"; do
      for ((n = ${part%-*}; n <= ${part#*-}; n++)); do
        for ((k = 0; k < per_host; k++)); do
          echo "$prefix$n$suffix"
        done
      done
    done
  done
  tr '\n' ' ' <"$platform" | { grep -o '<host [^>]*>' || true; } | sed -n 's/.* id="\([^"]*\)".*/\1/p' |
    while read -r name; do
      for ((k = 0; k < per_host; k++)); do
        echo "$name"
      done
    done
} >"$hosts"
if [ -n "${GRIDLOCK_SMPI_HOSTS:-}" ]; then
  chosen="$(mktemp "${TMPDIR:-/tmp}/gridlock-smpi-chosen.XXXXXX")"
  trap 'rm -f "$hosts" "$chosen"' EXIT
  IFS=',' read -ra names <<<"$GRIDLOCK_SMPI_HOSTS"
  for name in "${names[@]}"; do
    grep -qxF -- "$name" "$hosts" ||
      { echo "smpi-run: GRIDLOCK_SMPI_HOSTS: '$name' is not a host of $(basename "$platform")" >&2; exit 2; }
    for ((k = 0; k < per_host; k++)); do
      echo "$name"
    done
  done >"$chosen"
  [ "$(sort -u "$chosen" | wc -l)" -eq "${#names[@]}" ] ||
    { echo "smpi-run: GRIDLOCK_SMPI_HOSTS names a host twice" >&2; exit 2; }
  cp "$chosen" "$hosts"
fi
available="$(wc -l <"$hosts")"
if ((np > available)); then
  echo "smpi-run: $np ranks, but $(basename "$platform") has only $((available / per_host)) hosts x $per_host ranks" >&2
  exit 2
fi

# Every rank runs in this one process: privatization is off (gridlock keeps no mutable global
# state), and computation is not simulated, so simulated time depends on the network only and
# two runs with one --seed are identical. Collectives use Open MPI's algorithm choices: SMPI's
# default ones send to every peer at once (allgather in MPI_Win_allocate took minutes at 128 ranks).
# Pairwise MPI_Alltoall keeps few flows in the bandwidth solver at a time: network --quick at 128
# hosts takes 102 s with it and more than 5 minutes with Open MPI's choice.
cmd=(smpirun -platform "$platform" -hostfile "$hosts" -np "$np"
  --cfg=smpi/privatization:no
  --cfg=smpi/simulate-computation:no
  --cfg=smpi/coll-selector:ompi
  --cfg=smpi/alltoall:pair
  --cfg=smpi/display-timing:yes
  --log=root.thres:warning
  --log=smpi_config.thres:warning
  "${extra[@]}" "$bench" "$@")
echo "smpi-run: $(basename "$platform"): $np ranks on $((np / per_host)) simulated hosts" >&2
echo "smpi-run: ${cmd[*]}" >&2
"${cmd[@]}"
