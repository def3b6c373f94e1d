#!/usr/bin/env bash
# Inputs and outputs are safe in every subcommand (issue 23 part 4): an output that is an input
# (same path, hard link, symbolic link) is refused and the input is left as it was; inputs that are
# not regular files are refused at once (no hang on a FIFO, no endless read of /dev/zero);
# --version; topo info of a huge torus from formulas.
# Usage: io_cli.sh GRIDLOCK WORKDIR [BENCH COMMAND...]   (BENCH: e.g. mpiexec -n 1 gridlock-bench)
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
work="$(realpath -m "$2")"
shift 2
BENCH=("$@")
rm -rf "$work"
mkdir -p "$work"
cd "$work"

SAME="is the input file"

"$G" schedgen --program barrier --ranks 4 -o S.goal >/dev/null
printf '0\t1000\n5000\t200\n' >T.trace
printf 'nid00000 0 0 0\nnid00001 1 0 0\n' >C.txt
ln S.goal H.goal
ln -s S.goal L.goal
cp S.goal S.orig
cp T.trace T.orig
cp C.txt C.orig

# gridlock: every output option onto an input, through the same path, a hard link and a symlink.
expect 2 "$SAME" -- "$G" sim S.goal --json S.goal
expect 2 "$SAME" -- "$G" sim S.goal --json H.goal
expect 2 "$SAME" -- "$G" sim L.goal --timeline S.goal
expect 2 "$SAME" -- "$G" sim S.goal --noise T.trace --json T.trace
expect 2 "$SAME" -- "$G" sim S.goal --replicas 2 --noise T.trace --csv ./T.trace
expect 2 "$SAME" -- "$G" sim S.goal --replicas 2 --noise T.trace --svg L.goal
expect 2 "$SAME" -- "$G" schedule convert S.goal H.goal
expect 2 "$SAME" -- "$G" noise convert T.trace T.trace
expect 2 "$SAME" -- "$G" topo simgrid "torus:2x1x1,coords=C.txt" -o C.txt
expect 2 "$SAME" -- "$G" map torus:2x2x8 --nodes nid00000,nid00001 --cores-per-node 1 --tasks "matrix:S.goal" --json S.goal
cmp -s S.goal S.orig || fail "the schedule was changed"
cmp -s T.trace T.orig || fail "the noise trace was changed"
cmp -s C.txt C.orig || fail "the coordinates file was changed"

# Inputs that are not regular files: refused with the kind named, without hanging.
mkfifo F.fifo
mkdir D.dir
expect 3 "it is a character device" -- "$G" sim /dev/zero
expect 3 "it is a FIFO" -- "$G" sim F.fifo
expect 3 "it is a directory" -- "$G" sim D.dir
expect 3 "it is a FIFO" -- "$G" noise convert F.fifo out.trace
expect 3 "it is a character device" -- "$G" sim S.goal --noise /dev/zero
expect 3 "it is a character device" -- "$G" topo info "torus:2x1x1,coords=/dev/zero"
expect 3 "it is a character device" -- "$G" model fit /dev/zero
# A pipe from the shell is still read.
expect 0 "finish" -- bash -c "\"$G\" sim <(cat S.goal)"

# --version beside the version subcommand.
expect 0 "^gridlock [0-9.]+ \(commit " -- "$G" --version
expect 0 "^gridlock [0-9.]+ \(commit " -- "$G" version

# topo info answers a 4M-node torus from formulas (the graph took 4 GB).
expect 0 "^nodes: 4096000 \(nid00000 \.\. nid4095999\)" -- "$G" topo info torus:160x160x80

if [ "${#BENCH[@]}" -gt 0 ]; then
  expect 0 "^gridlock-bench [0-9.]+ \(commit " -- "${BENCH[@]}" --version
  expect 2 "$SAME" -- "${BENCH[@]}" sim-replicas --program barrier --ranks 4 --replicas 2 --noise T.trace --json T.trace
  expect 2 "$SAME" -- "${BENCH[@]}" sim-replicas --program barrier --ranks 4 --replicas 2 --noise L.goal --csv S.goal
  cmp -s T.trace T.orig || fail "gridlock-bench changed the noise trace"
fi
echo "io_cli: all checks passed"
