#!/usr/bin/env bash
# `gridlock predict gpcnet` at the sizes machines are built (issue 39): wall time and peak memory of
# each case beside its target, one run each (the figures of docs/performance.md, "predict gpcnet").
#
# Usage: bench/predict_scale.sh [--gridlock PATH] [--cases LIST] [--out DIR] [--max-minutes M]
#   --gridlock PATH   the gridlock binary (default: build/release, else build/ci)
#   --cases LIST      comma-separated case names (default: all), from:
#                       df288x1   dragonfly:g=9,a=8,p=4,h=4 (288 nodes), 1 rank per node
#                       df1056x1  dragonfly:g=33,a=8,p=4,h=4 (1,056 nodes), 1 rank per node
#                       df288x8   the 288-node dragonfly, 8 ranks per node   (target: 60 s, 1 GB)
#                       crystal696x8  --system crystal --nodes 696, 8 ranks  (target: 5 min, 2 GB)
#                       edison5575x1  --system edison, 5,575 nodes, 1 rank   (target: 5 min)
#   --out DIR         JSON and logs per case (default: a new directory under /tmp)
#   --max-minutes M   wall-time limit per case (default 20); a case cut by it is listed as such
# Every case runs the packet model with --seed 1 and the defaults otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
gridlock=""
cases="df288x1,df1056x1,df288x8,crystal696x8,edison5575x1"
out=""
max_minutes=20
while [ $# -gt 0 ]; do
  case "$1" in
    --gridlock) gridlock="${2:?--gridlock needs a path}"; shift 2 ;;
    --cases) cases="${2:?--cases needs a list}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --max-minutes) max_minutes="${2:?--max-minutes needs a number}"; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "predict_scale.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ "$max_minutes" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "predict_scale.sh: --max-minutes '$max_minutes': give 1 to 9999" >&2; exit 2; }
if [ -z "$gridlock" ]; then
  for b in "$root/build/release/apps/gridlock/gridlock" "$root/build/ci/apps/gridlock/gridlock"; do
    [ -x "$b" ] && { gridlock="$b"; break; }
  done
fi
[ -x "$gridlock" ] || { echo "predict_scale.sh: no gridlock binary: build one or give --gridlock PATH" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "predict_scale.sh: /usr/bin/time is needed (Debian package time)" >&2; exit 2; }
out="${out:-$(mktemp -d /tmp/predict_scale.XXXXXX)}"
mkdir -p "$out"

args_of() {
  case "$1" in
    df288x1) echo "--network dragonfly:g=9,a=8,p=4,h=4 --ranks-per-node 1" ;;
    df1056x1) echo "--network dragonfly:g=33,a=8,p=4,h=4 --ranks-per-node 1" ;;
    df288x8) echo "--network dragonfly:g=9,a=8,p=4,h=4 --ranks-per-node 8" ;;
    crystal696x8) echo "--system crystal --nodes 696 --ranks-per-node 8" ;;
    edison5575x1) echo "--system edison --nodes 5575 --ranks-per-node 1" ;;
    *) return 1 ;;
  esac
}
target_of() {
  case "$1" in
    df288x8) echo "60 s, 1 GB" ;;
    crystal696x8) echo "300 s, 2 GB" ;;
    edison5575x1) echo "300 s" ;;
    *) echo "-" ;;
  esac
}

echo "gridlock: $gridlock ($("$gridlock" version 2>/dev/null | head -1)); outputs in $out"
echo "| case | arguments | wall (s) | peak memory (MB) | messages | target |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
IFS=',' read -r -a list <<<"$cases"
for c in "${list[@]}"; do
  a="$(args_of "$c")" || { echo "predict_scale.sh: unknown case '$c'" >&2; exit 2; }
  # shellcheck disable=SC2086 # the arguments are words
  if timeout "$((max_minutes * 60))" /usr/bin/time -f "%e %M" -o "$out/$c.time" \
      "$gridlock" predict gpcnet $a --net-model packet --seed 1 --json "$out/$c.json" >"$out/$c.txt" 2>"$out/$c.log"; then
    read -r wall kb <"$out/$c.time"
    messages="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"]["messages_simulated"])' "$out/$c.json")"
    echo "| $c | $a | $wall | $((kb / 1024)) | $messages | $(target_of "$c") |"
  else
    echo "| $c | $a | cut at ${max_minutes} min or failed (see $out/$c.log) | - | - | $(target_of "$c") |"
  fi
done
