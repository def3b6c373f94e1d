#!/usr/bin/env bash
# gridlock-bench sweep's ping-pong against NetPIPE (Debian netpipe-openmpi, NPopenmpi) on the same
# two ranks, alternating ROUNDS times so drift affects both alike (issue 22, "within 5% of
# NetPIPE"; docs/performance.md). Both report one-way time (half a round trip). NetPIPE's figure
# per size is the minimum over its trials of a trial's mean; the sweep's are the median and the
# mean of its samples. Prints, per power-of-two size up to MAX, the medians over the rounds and
# the ratios sweep / NetPIPE.
#
#   bench/sweep_vs_netpipe.sh [ROUNDS=3] [MAX=4MiB-as-bytes=4194304] [BENCH=build/release/apps/gridlock-bench/gridlock-bench]
#
# Extra mpiexec options (e.g. to place the two ranks on two nodes) come from $MPIEXEC_ARGS.
set -euo pipefail
rounds=${1:-3}
max=${2:-4194304}
bench=${3:-build/release/apps/gridlock-bench/gridlock-bench}
command -v NPopenmpi >/dev/null || { echo "sweep_vs_netpipe.sh: NPopenmpi not found (apt-get install netpipe-openmpi)" >&2; exit 2; }
[ -x "$bench" ] || { echo "sweep_vs_netpipe.sh: '$bench' is not built (cmake --build --preset release)" >&2; exit 2; }
# shellcheck source=/dev/null
source "$(dirname "$0")/../scripts/mpi-env.sh"
read -ra extra <<<"${MPIEXEC_ARGS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=""
for ((n = 1; n <= max; n *= 2)); do sizes+="${sizes:+,}$n"; done
for r in $(seq "$rounds"); do
  # NetPIPE prints its progress on stderr: kept out of the table, in the work directory on failure.
  mpiexec -n 2 "${extra[@]}" NPopenmpi -p 0 -u "$max" -o "$work/np$r.out" >"$work/np$r.log" 2>&1 ||
    { cat "$work/np$r.log" >&2; exit 1; }
  mpiexec -n 2 "${extra[@]}" "$bench" sweep --ops pingpong --sizes "$sizes" --only-sizes --reps 10000 \
    --max-time 0.5s -q --json "$work/sw$r.json" >/dev/null
  echo "round $r of $rounds done" >&2
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
np_us, med_us, mean_us = {}, {}, {}
for r in range(1, rounds + 1):
    with open(f"{work}/np{r}.out") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 3:
                np_us.setdefault(int(fields[0]), []).append(float(fields[2]) * 1e6)
    with open(f"{work}/sw{r}.json") as f:
        for rec in json.load(f)["records"]:
            if rec["op"] == "pingpong":
                med_us.setdefault(rec["size_bytes"], []).append(rec["time_us"]["median"])
                mean_us.setdefault(rec["size_bytes"], []).append(rec["time_us"]["mean"])
print("| size B | NetPIPE us | sweep median us | sweep mean us | median / NetPIPE | mean / NetPIPE |")
print("| ---: | ---: | ---: | ---: | ---: | ---: |")
for size in sorted(set(np_us) & set(med_us)):
    n, m, a = (statistics.median(v[size]) for v in (np_us, med_us, mean_us))
    print(f"| {size} | {n:.3f} | {m:.3f} | {a:.3f} | {m / n:.3f} | {a / n:.3f} |")
PY
