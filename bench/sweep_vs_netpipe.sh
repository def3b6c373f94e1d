#!/usr/bin/env bash
# gridlock-bench sweep's ping-pong against NetPIPE (Debian netpipe-openmpi, NPopenmpi) and a bare
# ping-pong (bench/bare_pingpong.cpp) on the same two ranks, alternating ROUNDS times so drift
# affects all alike (issue 22, "within 5% of NetPIPE and of a bare ping-pong; the harness adds at
# most 50 ns per iteration"; docs/performance.md). All report one-way time (half a round trip).
# NetPIPE's figure per size is the minimum over its trials of a trial's mean; the sweep's and the
# bare one's are the median and the mean of their per-iteration samples. Prints, per power-of-two
# size up to MAX, the medians over the rounds, the ratios, and the harness's cost per iteration
# (sweep median - bare median, in ns).
#
#   bench/sweep_vs_netpipe.sh [ROUNDS=3] [MAX=4MiB-as-bytes=4194304] [BENCH=build/release/apps/gridlock-bench/gridlock-bench] [BARE=<BENCH's build>/bench/bench_bare_pingpong]
#
# Extra mpiexec options (e.g. to place the two ranks on two nodes) come from $MPIEXEC_ARGS.
set -euo pipefail
rounds=${1:-3}
max=${2:-4194304}
bench=${3:-build/release/apps/gridlock-bench/gridlock-bench}
command -v NPopenmpi >/dev/null || { echo "sweep_vs_netpipe.sh: NPopenmpi not found (apt-get install netpipe-openmpi)" >&2; exit 2; }
bare=${4:-$(dirname "$bench")/../../bench/bench_bare_pingpong}
[ -x "$bare" ] || { echo "sweep_vs_netpipe.sh: '$bare' is not built (cmake --build ... --target bench_bare_pingpong)" >&2; exit 2; }
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
  mpiexec -n 2 "${extra[@]}" "$bare" "$max" 10000 >"$work/bare$r.out"
  mpiexec -n 2 "${extra[@]}" "$bench" sweep --ops pingpong --sizes "$sizes" --only-sizes --reps 10000 \
    --max-time 0.5s -q --json "$work/sw$r.json" >/dev/null
  echo "round $r of $rounds done" >&2
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
np_us, med_us, mean_us, bare_us = {}, {}, {}, {}
for r in range(1, rounds + 1):
    with open(f"{work}/np{r}.out") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 3:
                np_us.setdefault(int(fields[0]), []).append(float(fields[2]) * 1e6)
    with open(f"{work}/bare{r}.out") as f:
        for line in f:
            size, median, _mean, _n = line.split()
            bare_us.setdefault(int(size), []).append(float(median))
    with open(f"{work}/sw{r}.json") as f:
        for rec in json.load(f)["records"]:
            if rec["op"] == "pingpong":
                med_us.setdefault(rec["size_bytes"], []).append(rec["time_us"]["median"])
                mean_us.setdefault(rec["size_bytes"], []).append(rec["time_us"]["mean"])
print("| size B | NetPIPE us | bare median us | sweep median us | sweep mean us "
      "| sweep / bare | sweep / NetPIPE | bare / NetPIPE | harness ns |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for size in sorted(set(np_us) & set(med_us) & set(bare_us)):
    n, m, a, b = (statistics.median(v[size]) for v in (np_us, med_us, mean_us, bare_us))
    print(f"| {size} | {n:.3f} | {b:.3f} | {m:.3f} | {a:.3f} | {m / b:.3f} | {m / n:.3f} "
          f"| {b / n:.3f} | {(m - b) * 1e3:+.0f} |")
PY
