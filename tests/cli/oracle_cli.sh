#!/usr/bin/env bash
# End-to-end: `gridlock oracle serve` on an ephemeral loopback port, queried by `gridlock oracle query`.
# Usage: oracle_cli.sh GRIDLOCK WORKDIR CASE
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
gridlock="$1"
work="$2"
case_name="$3"
mkdir -p "$work"
port_file="$work/oracle-$case_name.port"
rm -f "$port_file"

spec=torus:2x2x8
[ "$case_name" = fattree ] && spec=fattree:16x8,taper=2
[ "$case_name" = dragonfly ] && spec=dragonfly:g=9,a=4,p=2,h=2,intra=2d:2x2
serve_args=("$spec" --listen 127.0.0.1:0 --port-file "$port_file" --duration 50 --poll 0.2s)
if [ "$case_name" = fattree ]; then
  printf '%s\n' "# two flows sharing leaf 0's up-link to spine 7" "n00000 n00127 4GB/s" "n00001 n00119 4GB/s" \
    > "$work/matrix.txt"
  serve_args+=(--source "sim:$work/matrix.txt")
fi
if [ "$case_name" = ldms ]; then
  csv="$work/ldms"
  mkdir -p "$csv"
  printf '%s\n' "#Time,Time_usec,ProducerName,component_id,job_id,Z+_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)" \
    "100.0,0,nid00042,42,0,61000000" "100.0,0,bogus,1,0,5" "broken row" > "$csv/gemini.1"
  serve_args+=(--source "ldms:$csv")
fi
"$gridlock" oracle serve "${serve_args[@]}" > "$work/oracle-$case_name.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do
  [ -s "$port_file" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/oracle-$case_name.log"; fail "server exited early"; }
  sleep 0.1
done
[ -s "$port_file" ] || fail "no port file"
url="http://127.0.0.1:$(cat "$port_file")"
q() { "$gridlock" oracle query --server "$url" "$@"; }

case "$case_name" in
  sim)
    out="$(q metrics --metric hops nid00012:nid00038)"
    grep -qxF "| nid00012 | nid00038 | max | 5 |" <<<"$out" || fail "hops: $out"
    # Every numeric column names its unit (the table had no header at all).
    [ "$(head -n 1 <<<"$out")" = "| src | dst | reducer | hops (links) |" ] || fail "hops header: $out"
    out="$(q metrics --metric bw nid00012:nid00038 nid00016:nid00017)"
    grep -qF "| nid00012 | nid00038 | max | 64" <<<"$out" || fail "bw: $out"
    grep -qxF "| nid00016 | nid00017 | max | 0 |" <<<"$out" || fail "same router: $out"
    [ "$(head -n 1 <<<"$out")" = "| src | dst | reducer | bw (% used) |" ] || fail "bw header: $out"
    out="$(q matrix --metric stalls nid00012 nid00038)"
    [ "$(head -n 1 <<<"$out")" = "| stalls max (% stalled) | nid00012 | nid00038 |" ] || fail "matrix header: $out"
    grep -qxF "| nid00012 | 0 | 0 |" <<<"$out" || fail "matrix row: $out"
    out="$(q links --top 1)"
    grep -q '"(1,1,6) Z- -> (1,1,5)"' <<<"$out" || fail "top link: $out"
    # The paper's three links, in the service's order (percent, then bytes/s, then link id).
    out="$(q links --top 3 | grep -o '"name": "[^"]*"' | cut -d'"' -f4 | paste -sd';')"
    [ "$out" = "(1,1,6) Z- -> (1,1,5);(1,1,5) Z- -> (1,1,4);(1,1,7) Z- -> (1,1,6)" ] ||
      fail "top 3 links: $out"
    out="$(q node nid00038)"
    grep -q '"(1,1,3)"' <<<"$out" || fail "node: $out"
    if q node nid99999 2>"$work/err.txt"; then fail "unknown node accepted"; fi
    grep -q "unknown_node" "$work/err.txt" || fail "unknown node error: $(cat "$work/err.txt")"
    ;;
  ldms)
    out="$(q route nid00044 nid00042)"  # (1,1,6) Z- (1,1,5): arrives on the Z+ port
    grep -q '"used_bw_pct": 61' <<<"$out" || fail "ldms route: $out"
    out="$(q health)"
    grep -q '"malformed_rows": 2' <<<"$out" || fail "ldms status: $out"
    grep -q '"bogus"' <<<"$out" || fail "unknown producer not reported: $out"
    ;;
  fattree)
    out="$(q metrics --metric hops n00000:n00127 n00000:n00015)"
    grep -qxF "| n00000 | n00127 | max | 2 |" <<<"$out" || fail "fattree hops: $out"
    grep -qxF "| n00000 | n00015 | max | 0 |" <<<"$out" || fail "fattree same leaf: $out"
    out="$(q metrics --metric bw n00000:n00127)"
    grep -qxF "| n00000 | n00127 | max | 64 |" <<<"$out" || fail "fattree bw: $out"
    ;;
  dragonfly)
    out="$(q metrics --metric hops n00000:n00071 n00000:n00001)"
    grep -qxF "| n00000 | n00071 | max | 5 |" <<<"$out" || fail "dragonfly hops: $out"
    grep -qxF "| n00000 | n00001 | max | 0 |" <<<"$out" || fail "dragonfly same router: $out"
    out="$(q health)"
    grep -q '"flows": 0' <<<"$out" || fail "dragonfly default source: $out"
    ;;
  *) fail "unknown case $case_name" ;;
esac
kill -TERM "$server"
wait "$server" || fail "server exit code $?"
grep -q "stopped after" "$work/oracle-$case_name.log" || fail "no clean stop"
echo "ok: oracle $case_name"
