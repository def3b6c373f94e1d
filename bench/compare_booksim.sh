#!/usr/bin/env bash
# gridlock's packet model side by side with BookSim2 (issue 37, section 2; docs/predict.md, "Side
# by side with BookSim2"): both simulators run the same networks, traffic and offered loads with
# matching parameters, and the script prints the latency-load curves, the saturation throughputs
# and the average latency at half of BookSim's saturation, with their ratios against the targets
# (saturation within 10%, latency within 15%).
#
# Usage: bench/compare_booksim.sh BOOKSIM [--quick] [--cases LIST] [--gridlock PATH] [--results DIR]
#   BOOKSIM    the user's BookSim2 executable, or a BookSim2 tree in which it was built (src/booksim).
#              None of BookSim's code is part of gridlock: build it as its own README says.
#   --quick    fewer loads and the k=2 dragonfly only (a few minutes); default: every case (about 35 min on 2 cores)
#   --cases    comma-separated case names (--list prints them)
#   --gridlock the gridlock binary (default: build/ci/apps/gridlock/gridlock, else gridlock on PATH)
#   --results  where every run's configuration and raw output go (default: a new temporary folder)
# Exit codes: 0 done (targets met or not: the summary says), 2 bad arguments or a missing tool,
# 3 a simulator failed (its output file is named).
set -euo pipefail

readonly ME="compare_booksim.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO

# The translation (docs/predict.md, "Side by side with BookSim2"): one BookSim cycle is one flit
# time of a 10 GB/s link with 16-byte flits, 1.6 ns; packets of 4 flits are 64-byte packets.
readonly FLIT_BYTES=16
readonly CYCLE_PS=1600
readonly PACKET_FLITS=4
# BookSim's iq router with its defaults (routing, VC allocation, switch allocation, switch
# traversal, credit_delay 0, no speedup) and 1-cycle channels, measured at zero load (neighbor
# traffic on k=4 tori of 1 to 3 dimensions, 1- and 4-flit packets): 7 + 6 H + (P - 1) cycles for H
# router-to-router hops, i.e. 5 cycles per router and 1 per channel (the injection and ejection
# channels and the first router make the 7). gridlock counts P cycles for a packet's
# serialisation, so: --hop-latency 5 + 1 cycles, and the injection and ejection links carry
# (1 + 5 + 1 - 1) / 2 = 3 cycles each (--terminal-latency).
readonly ROUTER_CYCLES=5
readonly CHANNEL_CYCLES=1
# dragonflynew's own channel latencies (networks/dragonfly.cpp, DRAGON_LATENCY): 10 cycles local,
# 100 global; its terminal channels keep 1.
readonly DF_LOCAL_CYCLES=10
readonly DF_GLOBAL_CYCLES=100
# BookSim's router reallocates an output VC only after the previous packet's tail left: VC then
# switch allocation, 2 cycles in which that VC carries nothing (measured: one 4-flit packet per 6
# cycles on dragonflynew's single-VC global link, one 1-flit packet per 3 cycles).
TURNAROUND="$(awk -v p="$CYCLE_PS" 'BEGIN { printf "%dps", 2 * p }')"
readonly TURNAROUND
# dragonflynew's ugal routing function: adaptive_threshold = 30 (flits).
readonly UGAL_THRESHOLD_FLITS=30
# Seconds a BookSim run may spend draining its measured packets before it counts as saturated:
# 3, and 1 more per 30 nodes (BookSim takes about 1 s per 1,000 cycles on 1,056 nodes, where a
# stable point's drain of a few thousand cycles would otherwise count as saturated).
readonly DRAIN_S=3

usage() {
  sed -n '7,17p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
  echo "$ME: $*" >&2
  exit 2
}

fail() {
  echo "$ME: $*" >&2
  exit 3
}

# name|booksim topology lines|gridlock network|routing (booksim:gridlock)|pattern (booksim:gridlock)|vcs|vc_buf_size flits|loads (full)|loads (quick)|quick?
readonly CASES=(
  "df2-min-uniform|topology=dragonflynew;k=2;n=1|dragonfly:g=9,a=4,p=2,h=2|min:minimal|uniform:uniform|2|256|0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0|0.1,0.4,0.7,1.0|y"
  "df2-min-worst|topology=dragonflynew;k=2;n=1|dragonfly:g=9,a=4,p=2,h=2|min:minimal|bad_dragon:worst-case|2|256|0.05,0.1,0.15,0.2,0.3,0.5,1.0|0.05,0.1,0.3,1.0|y"
  "df2-ugal-uniform|topology=dragonflynew;k=2;n=1|dragonfly:g=9,a=4,p=2,h=2|ugal:ugal|uniform:uniform|3|256|0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0|0.1,0.4,0.7,1.0|y"
  "df2-ugal-worst|topology=dragonflynew;k=2;n=1|dragonfly:g=9,a=4,p=2,h=2|ugal:ugal|bad_dragon:worst-case|3|256|0.1,0.2,0.3,0.4,0.5,0.6,0.8,1.0|0.1,0.3,0.5,1.0|y"
  "df4-min-uniform|topology=dragonflynew;k=4;n=1|dragonfly:g=33,a=8,p=4,h=4|min:minimal|uniform:uniform|2|256|0.3,0.7,1.0||n"
  "df4-min-worst|topology=dragonflynew;k=4;n=1|dragonfly:g=33,a=8,p=4,h=4|min:minimal|bad_dragon:worst-case|2|256|0.02,1.0||n"
  "df4-ugal-uniform|topology=dragonflynew;k=4;n=1|dragonfly:g=33,a=8,p=4,h=4|ugal:ugal|uniform:uniform|3|256|0.3,0.7,1.0||n"
  "df4-ugal-worst|topology=dragonflynew;k=4;n=1|dragonfly:g=33,a=8,p=4,h=4|ugal:ugal|bad_dragon:worst-case|3|256|0.1,0.3,1.0||n"
  "torus-uniform|topology=torus;k=4;n=3|torus:4x4x4,npr=1|dim_order:minimal|uniform:uniform|2|8|0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0|0.1,0.4,0.7,1.0|y"
  "torus-tornado|topology=torus;k=4;n=3|torus:4x4x4,npr=1|dim_order:minimal|tornado:worst-case|2|8|0.1,0.2,0.3,0.4,0.5,0.6,0.8,1.0|0.1,0.3,0.5,1.0|y"
  "fattree-uniform|topology=fattree;k=4;n=2|fattree:4x4|nca:minimal|uniform:uniform|1|8|0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0|0.1,0.4,0.7,1.0|y"
)

case_field() { # case_field LINE N
  local IFS='|'
  # shellcheck disable=SC2206 # split on | on purpose
  local f=($1)
  echo "${f[$2]}"
}

list_cases() {
  local c
  for c in "${CASES[@]}"; do
    case_field "$c" 0
  done
}

booksim=""
quick=0
cases=""
gridlock=""
results=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --list)
      list_cases
      exit 0
      ;;
    --quick) quick=1 ;;
    --cases | --gridlock | --results)
      [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"
      case "$1" in
        --cases) cases="$2" ;;
        --gridlock) gridlock="$2" ;;
        --results) results="$2" ;;
      esac
      shift
      ;;
    -*) die "unknown option '$1': see --help" ;;
    *)
      [[ -z "$booksim" ]] || die "one BookSim path only, got '$booksim' and '$1'"
      booksim="$1"
      ;;
  esac
  shift
done

[[ -n "$booksim" ]] || die "give the BookSim2 executable or a BookSim2 tree in which it was built, e.g. $ME ~/booksim2 (see --help)"
if [[ -d "$booksim" ]]; then
  if [[ -x "$booksim/src/booksim" && -f "$booksim/src/booksim" ]]; then
    booksim="$booksim/src/booksim"
  elif [[ -x "$booksim/booksim" && -f "$booksim/booksim" ]]; then
    booksim="$booksim/booksim"
  elif [[ -f "$booksim/src/main.cpp" || -f "$booksim/main.cpp" ]]; then
    die "BOOKSIM '$booksim' is a BookSim2 source tree without a built executable (src/booksim): build it there first as its README says, then run again"
  else
    die "BOOKSIM '$booksim' holds no BookSim2 executable (looked for src/booksim and booksim): give the executable or the BookSim2 tree in which it was built"
  fi
elif [[ ! -e "$booksim" ]]; then
  die "BOOKSIM '$booksim' does not exist: give the BookSim2 executable or the BookSim2 tree in which it was built"
elif [[ ! -f "$booksim" || ! -x "$booksim" ]]; then
  die "BOOKSIM '$booksim' is not an executable file: give the BookSim2 executable (src/booksim of its tree)"
fi

selected=()
if [[ -n "$cases" ]]; then
  IFS=',' read -r -a wanted <<<"$cases"
  [[ ${#wanted[@]} -gt 0 ]] || die "--cases '$cases' names no case: give some of $(list_cases | paste -sd, -)"
  for w in "${wanted[@]}"; do
    found=""
    for c in "${CASES[@]}"; do
      if [[ "$(case_field "$c" 0)" == "$w" ]]; then
        found="$c"
      fi
    done
    [[ -n "$found" ]] || die "--cases: unknown case '$w': give some of $(list_cases | paste -sd, -)"
    selected+=("$found")
  done
else
  for c in "${CASES[@]}"; do
    if [[ $quick -eq 0 || "$(case_field "$c" 9)" == "y" ]]; then
      selected+=("$c")
    fi
  done
fi

if [[ -z "$gridlock" ]]; then
  if [[ -x "$REPO/build/ci/apps/gridlock/gridlock" ]]; then
    gridlock="$REPO/build/ci/apps/gridlock/gridlock"
  elif command -v gridlock >/dev/null 2>&1; then
    gridlock="$(command -v gridlock)"
  else
    die "no gridlock binary: build it (cmake --preset ci && cmake --build --preset ci --target gridlock) or give --gridlock PATH"
  fi
fi
[[ -f "$gridlock" && -x "$gridlock" ]] || die "--gridlock '$gridlock' is not an executable file"
command -v jq >/dev/null 2>&1 || die "jq is needed to read gridlock's JSON: install it (apt-get install jq)"
command -v awk >/dev/null 2>&1 || die "awk is needed: install it (apt-get install gawk)"

if [[ -z "$results" ]]; then
  results="$(mktemp -d "${TMPDIR:-/tmp}/compare_booksim.XXXXXX")"
else
  mkdir -p "$results" || die "--results '$results': cannot create the folder"
  [[ -w "$results" ]] || die "--results '$results' is not writable"
fi
echo "$ME: BookSim $booksim; gridlock $gridlock; raw output in $results"

# cycles -> gridlock time text, in ps (exact: 1.6 ns = 1600 ps per cycle).
ps_of_cycles() { # ps_of_cycles CYCLES (may be fractional to 0.5)
  awk -v c="$1" -v p="$CYCLE_PS" 'BEGIN { printf "%dps", c * p + 0.5 }'
}

# One BookSim run: writes CFG and OUT; sets B_ACC, B_LAT (cycles) and B_SAT (0/1). The runs are
# called in the script's own shell (not in $(...)), so that fail() ends the script.
run_booksim() { # run_booksim DIR TAG TOPOLINES ROUTING TRAFFIC VCS BUF LOAD
  local dir="$1" tag="$2" topo="$3" routing="$4" traffic="$5" vcs="$6" buf="$7" load="$8"
  local cfg="$dir/booksim-$tag.cfg" out="$dir/booksim-$tag.out"
  {
    echo "// generated by bench/compare_booksim.sh: BookSim's router defaults, see docs/predict.md"
    tr ';' '\n' <<<"$topo" | sed 's/$/;/'
    echo "routing_function = $routing;"
    echo "num_vcs = $vcs;"
    echo "vc_buf_size = $buf;"
    echo "packet_size = $PACKET_FLITS;"
    echo "injection_rate_uses_flits = 1;"
    echo "injection_rate = $load;"
    echo "traffic = $traffic;"
    echo "sim_type = latency;"
    # No abort on latency: a saturated run goes on to max_samples, and its last sample period's
    # accepted rate is the saturation throughput.
    echo "latency_thres = -1.0;"
    echo "warmup_periods = 3;"
    echo "sample_period = 1000;"
    echo "max_samples = 10;"
    echo "seed = 1;"
  } >"$cfg"
  # After its sample periods BookSim drains every measured packet, with no bound: behind a
  # saturated network's source queues that takes far longer than the run. A drain still going
  # after DRAIN_S seconds is stopped (this run's BookSim only, by its process id): the point is
  # saturated, and the statistics of its last sample period (steady state) are the measurement.
  "$booksim" "$cfg" >"$out" 2>&1 &
  local pid=$! waited=0 stopped=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.2
    if grep -q "Draining all recorded packets" "$out"; then
      waited=$((waited + 1))
      if [[ $waited -gt $((DRAIN_LIMIT_S * 5)) ]]; then
        kill "$pid" 2>/dev/null || true
        stopped=1
        echo "compare_booksim.sh: drain stopped after ${DRAIN_LIMIT_S} s: saturated" >>"$out"
        break
      fi
    fi
  done
  # BookSim's exit status is not its success (2017's main returns 255 after a run that converged):
  # its output says whether the run ended with statistics.
  wait "$pid" 2>/dev/null || true
  if [[ $stopped -eq 0 ]]; then
    grep -q -e "Overall Traffic Statistics" -e "Simulation unstable" "$out" || fail "BookSim failed on $cfg: see $out"
  fi
  local result
  result="$(awk -v offered="$load" -v stopped="$stopped" '
    /^Packet latency average = / { lat = $5 }
    /^Accepted flit rate average ?= ?/ { s = $0; sub(/^[^=]*= */, "", s); split(s, f, " "); acc = f[1] }
    /Simulation unstable/ { unstable = 1 }
    END {
      if (acc == "") { exit 1 }
      sat = (unstable || stopped || acc < 0.95 * offered) ? 1 : 0
      printf "%.4f %.1f %d\n", acc, lat, sat
    }' "$out")" || fail "no statistics in BookSim's output $out"
  read -r B_ACC B_LAT B_SAT <<<"$result"
}

# One gridlock run over LOADS (CREDIT: the channel's latency, which credits take back): writes JSON and OUT; sets G_POINTS, one "offered accepted
# latency_cycles sat" per load.
run_gridlock() { # run_gridlock DIR TAG NETWORK ROUTING PATTERN VCS BUF LOADS HOP TERMINAL GLOBAL_EXTRA CREDIT
  local dir="$1" tag="$2" net="$3" routing="$4" pattern="$5" vcs="$6" buf="$7" loads="$8"
  local hop="$9" terminal="${10}" global_extra="${11}" credit="${12}"
  local json="$dir/gridlock-$tag.json" out="$dir/gridlock-$tag.out"
  local args=(predict traffic --network "$net" --pattern "$pattern" --routing "$routing" --load "$loads"
    --packet-size "$((PACKET_FLITS * FLIT_BYTES))B" --buffer "$((buf * FLIT_BYTES))B" --vcs "$vcs"
    --hop-latency "$hop" --terminal-latency "$terminal" --credit-latency "$credit" --vc-turnaround "$TURNAROUND"
    --seed 1 --json "$json")
  if [[ "$global_extra" != "0ps" ]]; then
    args+=(--global-extra-latency "$global_extra")
  fi
  if [[ "$routing" == "ugal" ]]; then
    # dragonflynew's ugal: minimal while its queue <= 2 x the non-minimal one's + 30 flits.
    args+=(--ugal-rule booksim --ugal-threshold "$((UGAL_THRESHOLD_FLITS * FLIT_BYTES))B")
  fi
  echo "$gridlock ${args[*]}" >"$out"
  "$gridlock" "${args[@]}" >>"$out" 2>&1 || fail "gridlock failed: see $out"
  local points
  points="$(jq -r --argjson cyc "$CYCLE_PS" \
    '.points[] | "\(.offered) \(.accepted) \(.latency_avg_ns * 1000 / $cyc) \(if .saturated then 1 else 0 end)"' \
    "$json")" || fail "cannot read $json"
  mapfile -t G_POINTS <<<"$points"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.3f", a / b }'; }
# "met" or "missed by N%" for a ratio against a tolerance.
verdict() {
  awk -v r="$1" -v t="$2" 'BEGIN {
    if (r == "-") { print "-"; exit }
    d = r - 1; if (d < 0) d = -d
    if (d <= t + 1e-9) print "met"; else printf "missed by %.0f%%\n", (d - t) * 100 }'
}
mark() { [[ "$2" == "1" ]] && echo "$1 sat" || echo "$1"; }

summary=()
for c in "${selected[@]}"; do
  IFS='|' read -r name topo net routing pattern vcs buf loads_full loads_quick _ <<<"$c"
  b_routing="${routing%%:*}"
  g_routing="${routing#*:}"
  b_traffic="${pattern%%:*}"
  g_pattern="${pattern#*:}"
  loads="$loads_full"
  if [[ $quick -eq 1 && -n "$loads_quick" ]]; then
    loads="$loads_quick"
  fi
  dir="$results/$name"
  mkdir -p "$dir"
  nodes="$("$gridlock" topo info "$net" | awk '/^nodes:/ { print $2 }')" || fail "gridlock topo info $net failed"
  DRAIN_LIMIT_S=$((DRAIN_S + nodes / 30))
  hop_cycles=$((ROUTER_CYCLES + CHANNEL_CYCLES))
  credit_cycles=$CHANNEL_CYCLES
  global_extra_cycles=0
  network="$net"
  case "$net" in
    dragonfly:*)
      hop_cycles=$((ROUTER_CYCLES + DF_LOCAL_CYCLES))
      credit_cycles=$DF_LOCAL_CYCLES
      global_extra_cycles=$((DF_GLOBAL_CYCLES - DF_LOCAL_CYCLES))
      network="$net,local=10GB/s,global=10GB/s,terminal=10GB/s"
      ;;
    torus:*) network="$net,cap=10GB/s,terminal=10GB/s" ;;
    fattree:*) network="$net,cap=10GB/s" ;;
  esac
  terminal_cycles="$(awk -v r="$ROUTER_CYCLES" -v c="$CHANNEL_CYCLES" -v p="$PACKET_FLITS" \
    'BEGIN { print (r + 2 * c + (p - 1) - p) / 2 }')"
  hop="$(ps_of_cycles "$hop_cycles")"
  terminal="$(ps_of_cycles "$terminal_cycles")"
  global_extra="$(ps_of_cycles "$global_extra_cycles")"
  credit="$(ps_of_cycles "$credit_cycles")"

  echo
  echo "== $name: BookSim $topo, $b_routing, traffic $b_traffic, $vcs VCs x $buf flits | gridlock $network, $g_routing, $g_pattern, --hop-latency $hop --terminal-latency $terminal --credit-latency $credit --vc-turnaround $TURNAROUND$([[ $global_extra_cycles -eq 0 ]] || echo " --global-extra-latency $global_extra")$([[ "$g_routing" != ugal ]] || echo " --ugal-rule booksim")"
  echo "| offered | booksim accepted | gridlock accepted | booksim lat avg | gridlock lat avg | ratio |"
  echo "| --- | --- | --- | --- | --- | --- |"
  run_gridlock "$dir" "curve" "$network" "$g_routing" "$g_pattern" "$vcs" "$buf" "$loads" \
    "$hop" "$terminal" "$global_extra" "$credit"
  g_points=("${G_POINTS[@]}")
  b_sat=""
  g_sat=""
  IFS=',' read -r -a load_list <<<"$loads"
  for i in "${!load_list[@]}"; do
    load="${load_list[$i]}"
    run_booksim "$dir" "$load" "$topo" "$b_routing" "$b_traffic" "$vcs" "$buf" "$load"
    b_acc="$B_ACC" b_lat="$B_LAT" b_s="$B_SAT"
    read -r _ g_acc g_lat g_s <<<"${g_points[$i]}"
    g_lat="$(awk -v x="$g_lat" 'BEGIN { printf "%.1f", x }')"
    g_acc="$(awk -v x="$g_acc" 'BEGIN { printf "%.4f", x }')"
    echo "| $load | $(mark "$b_acc" "$b_s") | $(mark "$g_acc" "$g_s") | $b_lat | $g_lat | $(ratio "$g_lat" "$b_lat") |"
    b_sat="$b_acc"
    g_sat="$g_acc"
  done
  sat_ratio="$(ratio "$g_sat" "$b_sat")"
  sat_verdict="$(verdict "$sat_ratio" 0.10)"
  echo "saturation (accepted at offered ${load_list[-1]}): booksim $b_sat, gridlock $g_sat, ratio $sat_ratio (target within 10%: $sat_verdict)"
  half="$(awk -v s="$b_sat" 'BEGIN { printf "%.3f", s / 2 }')"
  run_booksim "$dir" "half-$half" "$topo" "$b_routing" "$b_traffic" "$vcs" "$buf" "$half"
  hb_acc="$B_ACC" hb_lat="$B_LAT" hb_s="$B_SAT"
  run_gridlock "$dir" "half" "$network" "$g_routing" "$g_pattern" "$vcs" "$buf" "$half" "$hop" "$terminal" "$global_extra" "$credit"
  read -r _ hg_acc hg_lat hg_s <<<"${G_POINTS[0]}"
  hg_lat="$(awk -v x="$hg_lat" 'BEGIN { printf "%.1f", x }')"
  lat_ratio="$(ratio "$hg_lat" "$hb_lat")"
  lat_verdict="$(verdict "$lat_ratio" 0.15)"
  echo "half of BookSim's saturation (offered $half): booksim $(mark "$hb_lat" "$hb_s") cycles (accepted $hb_acc), gridlock $(mark "$hg_lat" "$hg_s") cycles (accepted $(awk -v x="$hg_acc" 'BEGIN { printf "%.4f", x }')), ratio $lat_ratio (target within 15%: $lat_verdict)"
  summary+=("| $name | $b_sat | $g_sat | $sat_ratio | $sat_verdict | $half | $hb_lat | $hg_lat | $lat_ratio | $lat_verdict |")
done

echo
echo "== summary (saturation: accepted at the highest offered load, flits per cycle per node; latency in cycles of $CYCLE_PS ps)"
{
  echo "| case | booksim saturation | gridlock saturation | ratio | within 10% | half saturation | booksim lat avg | gridlock lat avg | ratio | within 15% |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${summary[@]}"
} | tee "$results/summary.md"
