#!/usr/bin/env bash
# gridlock-bench beside the reference GPCNeT, same host, same ranks and roles.
#
# Usage: bench/compare_gpcnet.sh GPCNET_SRC [options]
#   GPCNET_SRC       a GPCNeT source tree (netbench/GPCNET; the user supplies it, none of its code
#                    enters this repository); it is built into OUT/gpcnet with mpicc
#   --ranks "12 24"  rank counts (one rank per virtual node), default "12 24"
#   --runs N         runs of each tool per rank count and mode (medians are printed), default 3
#   --modes "load network"   GPCNeT network_load_test and/or network_test, default "load"
#   --profile P      default: both tools with their default loop counts (every test runs into
#                    its 10 s timeout on small hosts); short: the same smaller counts in both
#                    (latency 20 x 5 rings x 200, bandwidth 10 x 5 x 8, allreduce 100 x 200,
#                    GPCNeT's congestor tests 16 instead of 256), set in a scratch copy of the
#                    GPCNeT sources under OUT and as gridlock-bench options
#   --bench PATH     gridlock-bench binary (default: build/release, else build/ci)
#   --out DIR        raw outputs (default: a new directory under /tmp)
#   -- ARGS          extra gridlock-bench arguments (e.g. --recv-buffers separate)
#
# GPCNeT groups ranks into nodes by MPI_Get_processor_name; bench/gpcnet_vnode_shim.c (PMPI,
# linked into the GPCNeT binaries) reports `vnode<rank>`, so every rank is its own node, the
# grouping `--virtual-nodes RANKS` gives gridlock-bench. Both tools then give the congestors
# floor(0.8 x nodes) nodes (3 canary nodes of 12, 5 of 24).
# GPCNeT creates RMA windows on communicators of one MPI_Comm_split at once and dies in Open MPI
# 4.1's osc/rdma (issues 9492, 7393; docs/gridlock-bench.md), so both tools run with
# OMPI_MCA_osc=pt2pt here (COMPARE_OSC=... to choose another component, COMPARE_OSC= for none).
# Prints one side-by-side table per rank count and mode: every canary's average and 99% value,
# isolated and loaded, the Congestion Impact, the wall time and the peak memory of the largest
# process (from /usr/bin/time -v, when present).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[[ $# -ge 1 ]] || usage
case "$1" in -h|--help) usage 0 ;; esac
given="$1"
src="$(cd "$given" && pwd)" || { echo "compare_gpcnet: cannot enter '$given'" >&2; exit 2; }
shift
ranks="12 24"
runs=3
modes="load"
profile="default"
bench=""
out=""
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --bench) bench="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "compare_gpcnet: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "compare_gpcnet: --runs must be a positive integer" >&2; exit 2; }
for f in network_load_test.c network_test.c random_ring.c collectives.c subcomms.c utils.c congestors.c; do
  [[ -f "$src/$f" ]] || { echo "compare_gpcnet: '$src' is not a GPCNeT tree (no $f)" >&2; exit 2; }
done
if [[ -z "$bench" ]]; then
  for b in "$root/build/release/apps/gridlock-bench/gridlock-bench" "$root/build/ci/apps/gridlock-bench/gridlock-bench"; do
    if [[ -x "$b" ]]; then bench="$b"; break; fi
  done
fi
[[ -x "$bench" ]] || { echo "compare_gpcnet: no gridlock-bench binary; build it or pass --bench" >&2; exit 2; }
# Each tool runs inside its own output directory: a relative --bench path would not be found there.
bench="$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")"
out="${out:-$(mktemp -d /tmp/compare_gpcnet.XXXXXX)}"
mkdir -p "$out/gpcnet"
source "$root/scripts/mpi-env.sh"
osc="${COMPARE_OSC-pt2pt}"
if [[ -n "$osc" ]]; then export OMPI_MCA_osc="$osc"; fi

# Build GPCNeT as its Makefile does, plus the shim, from a scratch copy (the short profile edits
# the copy's loop counts; the user's tree is never written).
rm -rf "$out/gpcnet/src"
cp -r "$src" "$out/gpcnet/src"
profile_args=()
case "$profile" in
  default) ;;
  short)
    sed -i -E 's/^#define NUM_LAT_TESTS .*/#define NUM_LAT_TESTS 20/; s/^#define NUM_LAT_RANDS .*/#define NUM_LAT_RANDS 5/;
      s/^#define NUM_BW_TESTS .*/#define NUM_BW_TESTS 10/; s/^#define NUM_BW_RANDS .*/#define NUM_BW_RANDS 5/;
      s/^#define NUM_ALLREDUCE_TESTS .*/#define NUM_ALLREDUCE_TESTS 100/;
      s/^#define (A2A|ALLREDUCE|INCAST|BCAST)_TESTS .*/#define \1_TESTS 16/' \
      "$out/gpcnet/src/network_load_test.c" "$out/gpcnet/src/network_test.c"
    profile_args=(--latency-measurements 20 --latency-rings 5 --latency-iterations 200
      --bandwidth-measurements 10 --bandwidth-rings 5 --bandwidth-iterations 8
      --allreduce-measurements 100 --allreduce-iterations 200) ;;
  *) echo "compare_gpcnet: --profile must be default or short" >&2; exit 2 ;;
esac
src="$out/gpcnet/src"
mpicc=${MPICC:-mpicc}
common=(random_ring.c collectives.c subcomms.c utils.c)
(cd "$src" && "$mpicc" -O2 -I. -o "$out/gpcnet/network_load_test" network_load_test.c congestors.c "${common[@]}" \
  "$here/gpcnet_vnode_shim.c" -lm && "$mpicc" -O2 -I. -o "$out/gpcnet/network_test" network_test.c "${common[@]}" \
  "$here/gpcnet_vnode_shim.c" -lm)

have_time=0
if [[ -x /usr/bin/time ]]; then have_time=1; fi

# run TAG DIR COMMAND...: stdout to DIR/TAG.txt, /usr/bin/time -v to DIR/TAG.time
run() {
  local tag="$1" dir="$2"
  shift 2
  # A result left by an earlier run into the same --out would be read as this run's.
  rm -rf "$dir"
  mkdir -p "$dir"
  local start end timer=()
  if ((have_time)); then timer=(/usr/bin/time -v -o "$dir/$tag.time"); fi
  start=$(date +%s.%N)
  local rc=0
  (cd "$dir" && "${timer[@]}" "$@" >"$dir/$tag.txt" 2>"$dir/$tag.err") || rc=$?
  if ((rc != 0)); then echo "compare_gpcnet: $tag failed (exit $rc), see $dir/$tag.err" >&2; fi
  end=$(date +%s.%N)
  echo "$start $end" >"$dir/$tag.wall"
}

echo "compare_gpcnet: GPCNeT from $given, gridlock-bench $bench, profile $profile, raw outputs in $out" >&2
for n in $ranks; do
  for mode in $modes; do
    gpc="network_load_test"; [[ "$mode" == network ]] && gpc="network_test"
    for ((r = 1; r <= runs; ++r)); do
      echo "compare_gpcnet: $n ranks, $mode, run $r/$runs: GPCNeT ..." >&2
      run "gpcnet-$mode-$n-$r" "$out/run-gpcnet-$mode-$n-$r" mpiexec -n "$n" "$out/gpcnet/$gpc"
      echo "compare_gpcnet: $n ranks, $mode, run $r/$runs: gridlock-bench ..." >&2
      run "gridlock-$mode-$n-$r" "$out/run-gridlock-$mode-$n-$r" mpiexec -n "$n" "$bench" "$mode" \
        --virtual-nodes "$n" --seed "$r" -q --json "$out/run-gridlock-$mode-$n-$r/result.json" \
        "${profile_args[@]}" "${extra[@]}"
    done
  done
done

python3 - "$out" "$ranks" "$modes" "$runs" "$profile" <<'PY'
import json, os, re, statistics, sys

out, ranks, modes, runs, profile = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4]), sys.argv[5]

def tables(text):
    """GPCNeT-style tables: title -> {row name: [cells]} (the parser of tests/golden/gpcnet)."""
    result, title, after_outer = {}, None, False
    for line in text.splitlines():
        if re.fullmatch(r"\+-+\+", line):
            after_outer = True
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if after_outer and cells is not None and len(cells) == 1:
            title = cells[0]
            result.setdefault(title, {})
        elif title and cells and len(cells) > 1 and cells[0] not in ("Name", ""):
            result[title][cells[0]] = cells[1:]
        after_outer = False
    return result

def number(cell):
    m = re.match(r"^(-?[0-9.]+)X?$", cell or "")
    return float(m.group(1)) if m else None

def time_v(path):
    wall = rss = None
    if os.path.exists(path):
        for line in open(path):
            if "Maximum resident set size" in line:
                rss = int(line.split(":")[-1]) / 1024.0
    return rss

def wall(path):
    if not os.path.exists(path):
        return None
    a, b = open(path).read().split()
    return float(b) - float(a)

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"

print(f"# gridlock-bench vs GPCNeT 1.3 (vnode shim), {profile} loop counts, medians of {runs} run(s) each")
for n in ranks:
    for mode in modes:
        rows = {}  # (canary, what) -> {"gpcnet": [...], "gridlock": [...]}
        extra = {"wall_s": {"gpcnet": [], "gridlock": []}, "peak_mib": {"gpcnet": [], "gridlock": []}}
        for tool in ("gpcnet", "gridlock"):
            for r in range(1, runs + 1):
                d = f"{out}/run-{tool}-{mode}-{n}-{r}"
                tag = f"{tool}-{mode}-{n}-{r}"
                text_path = f"{d}/{tag}.txt"
                if not os.path.exists(text_path):
                    continue
                t = tables(open(text_path).read())
                extra["wall_s"][tool].append(wall(f"{d}/{tag}.wall"))
                extra["peak_mib"][tool].append(time_v(f"{d}/{tag}.time"))
                iso = t.get("Isolated Network Tests", {})
                loaded = t.get("Network Tests running with Congestion Tests", {})
                key = t.get("Network Tests running with Congestion Tests - Key Results", {})
                for name, cells in iso.items():
                    rows.setdefault((name, "isolated avg"), {"gpcnet": [], "gridlock": []})[tool].append(number(cells[0]))
                    rows.setdefault((name, "isolated 99%"), {"gpcnet": [], "gridlock": []})[tool].append(number(cells[1]))
                for name, cells in loaded.items():
                    rows.setdefault((name, "loaded avg"), {"gpcnet": [], "gridlock": []})[tool].append(number(cells[0]))
                    rows.setdefault((name, "loaded 99%"), {"gpcnet": [], "gridlock": []})[tool].append(number(cells[1]))
                impacts = {}
                if tool == "gridlock" and os.path.exists(f"{d}/result.json"):
                    # Unrounded factors from the JSON (the table prints < 1 as "within noise").
                    for row in json.load(open(f"{d}/result.json")).get("congestion_impact", []):
                        if row["phase"] == "loaded":
                            impacts[row["name"]] = [row["mean"], row["tail99"]]
                else:
                    impacts = {name: [number(c) for c in cells] for name, cells in key.items()}
                for name, (avg, p99) in impacts.items():
                    rows.setdefault((name, "impact avg"), {"gpcnet": [], "gridlock": []})[tool].append(avg)
                    rows.setdefault((name, "impact 99%"), {"gpcnet": [], "gridlock": []})[tool].append(p99)
        print(f"\n## {n} ranks (virtual nodes), {mode} mode\n")
        print("| canary | value | GPCNeT | gridlock | gridlock / GPCNeT |")
        print("| --- | --- | ---: | ---: | ---: |")
        for (name, what), values in rows.items():
            g, m = median(values["gpcnet"]), median(values["gridlock"])
            ratio = f"{m / g:.2f}" if g and m is not None else "-"
            print(f"| {name} | {what} | {fmt(g)} | {fmt(m)} | {ratio} |")
        for what, label in (("wall_s", "wall time (s)"), ("peak_mib", "peak RSS, largest process (MiB)")):
            g, m = median(extra[what]["gpcnet"]), median(extra[what]["gridlock"])
            ratio = f"{m / g:.2f}" if g and m is not None else "-"
            print(f"| whole run | {label} | {fmt(g)} | {fmt(m)} | {ratio} |")
PY
