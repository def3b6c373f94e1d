#!/usr/bin/env bash
# The GPCNeT paper's Table 2 (Chunduri et al., SC'19) beside gridlock's prediction of it, row by row.
#
# Usage: bench/gpcnet_table2.sh [options] [-- EXTRA PREDICT ARGS]
#   --rows LIST       rows as SYSTEM:NODESxPPORT, comma-separated (default: the rows issue 37 targets,
#                     crystal:64x1,crystal:64x8,crystal:696x1,osprey:128x1,osprey:128x8, and malbec at
#                     the largest size that ran in time, malbec:485x1; a size of a system the paper
#                     did not measure, as this one (Malbec: 485x20 only), is predicted without a
#                     reference); `all`: every row of the paper's table (thousands of nodes: hours)
#   --max-minutes M   wall-time limit of one prediction (default 15); a row cut by it is listed as such
#   --gridlock PATH   the gridlock binary (default: build/release, else build/ci)
#   --out DIR         raw outputs, one JSON and one log per row (default: a new directory under /tmp)
#   --seed S          seed of every prediction (default 1)
#   --seeds LIST      several seeds (1,2,5 or 1-8): each row is predicted once per seed (the seed draws
#                     the roles' nodes, as GPCNeT's shuffle does on a real machine) and the table shows
#                     the median over the seeds, with the smallest and largest value in brackets.
#                     One placement is one sample: on Crystal 64x8 whether a canary node shares a
#                     router with an incast root moves the latency impact from 1.0 to 8.4
#                     (docs/predict.md, "Crystal 64x8")
#   -- ARGS           extra `gridlock predict gpcnet` arguments (e.g. --net-model flow)
#
# Each row runs `gridlock predict gpcnet --system SYSTEM --nodes N --ranks-per-node K --net-model packet`
# (the presets of share/gridlock/systems: docs/predict.md, "System presets"; values from Table 1 and
# public hardware descriptions, none fitted to Table 2). The paper's figures are
# bench/data/gpcnet_sc19_table2.tsv. Prints, per row and canary, the paper's and the predicted isolated
# and loaded averages, the Congestion Impacts of the average and the 99% value (the paper's computed
# from its Table 2 columns as gridlock computes its own: loaded over isolated of the same statistic,
# inverted for bandwidth) and the ratio of predicted to measured impact, then the issue's targets.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
paper="$here/data/gpcnet_sc19_table2.tsv"

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
rows="crystal:64x1,crystal:64x8,crystal:696x1,osprey:128x1,osprey:128x8,malbec:485x1"
max_minutes=15
gridlock=""
out=""
seed=1
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage 0 ;;
    --rows) rows="$2"; shift 2 ;;
    --max-minutes) max_minutes="$2"; shift 2 ;;
    --gridlock) gridlock="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --seeds) seed="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "gpcnet_table2: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ "$max_minutes" =~ ^[1-9][0-9]{0,3}$ ]] ||
  { echo "gpcnet_table2: --max-minutes must be 1..9999" >&2; exit 2; }
# --seed S and --seeds LIST: a list of seeds and ranges A-B (at most 64 seeds in all).
seeds=()
IFS=',' read -r -a seed_items <<<"$seed"
for item in "${seed_items[@]}"; do
  if [[ "$item" =~ ^([0-9]{1,18})-([0-9]{1,18})$ ]] && ((BASH_REMATCH[1] <= BASH_REMATCH[2])) &&
    ((BASH_REMATCH[2] - BASH_REMATCH[1] < 64)); then
    for ((s = BASH_REMATCH[1]; s <= BASH_REMATCH[2]; ++s)); do seeds+=("$s"); done
  elif [[ "$item" =~ ^[0-9]{1,19}$ ]]; then
    seeds+=("$item")
  else
    echo "gpcnet_table2: --seed/--seeds '$seed': give non-negative integers and ranges A-B, 1 to 64 seeds in all (e.g. 1-8 or 1,3,5)" >&2
    exit 2
  fi
done
((${#seeds[@]} >= 1 && ${#seeds[@]} <= 64)) ||
  { echo "gpcnet_table2: --seeds '$seed' names ${#seeds[@]} seeds: give 1 to 64" >&2; exit 2; }
command -v jq >/dev/null || { echo "gpcnet_table2: needs jq (scripts/setup.sh installs it)" >&2; exit 2; }
if [[ -z "$gridlock" ]]; then
  for b in "$root/build/release/apps/gridlock/gridlock" "$root/build/ci/apps/gridlock/gridlock"; do
    [[ -x "$b" ]] && { gridlock="$b"; break; }
  done
fi
[[ -n "$gridlock" && -x "$gridlock" ]] ||
  { echo "gpcnet_table2: no gridlock binary (build one, or give --gridlock PATH)" >&2; exit 2; }
if [[ "$rows" == all ]]; then
  rows="$(awk -F'\t' '!/^#/ && NF {printf "%s%s:%sx%s", sep, $1, $2, $3; sep=","}' "$paper")"
fi
# The paper's row SYSTEM NODES PPORT as 12 tab-separated figures, or nothing.
paper_row() { awk -F'\t' -v s="$1" -v n="$2" -v k="$3" '$1 == s && $2 == n && $3 == k {
  for (i = 4; i <= 15; ++i) printf "%s%s", $i, (i < 15 ? "\t" : "\n") }' "$paper"; }
IFS=',' read -r -a row_list <<<"$rows"
((${#row_list[@]} > 0)) || { echo "gpcnet_table2: --rows is empty" >&2; exit 2; }
for row in "${row_list[@]}"; do
  if [[ ! "$row" =~ ^([a-z0-9_-]+):([0-9]+)x([0-9]+)$ ]]; then
    echo "gpcnet_table2: row '$row' is not SYSTEM:NODESxPPORT (e.g. crystal:64x8)" >&2
    exit 2
  fi
  # A size the paper did not measure is predicted without a reference (Malbec ran at 485x20 only).
  if ! awk -F'\t' -v s="${BASH_REMATCH[1]}" '$1 == s {found = 1} END {exit !found}' "$paper"; then
    echo "gpcnet_table2: the paper's Table 2 has no system ${BASH_REMATCH[1]} ($row); its rows:" \
      "$(awk -F'\t' '!/^#/ && NF {printf "%s%s:%sx%s", sep, $1, $2, $3; sep=" "}' "$paper")" >&2
    exit 2
  fi
done
out="${out:-$(mktemp -d /tmp/gpcnet_table2.XXXXXX)}"
mkdir -p "$out"
echo "gpcnet_table2: $("$gridlock" version 2>/dev/null | head -1), seed ${seeds[*]}, at most" \
  "$max_minutes min per row; raw outputs in $out" >&2

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { num = "^[0-9.eE+-]+$";
  if (a !~ num || b !~ num || a == "-" || b == "-" || b + 0 == 0) print "-";
  else printf "%.2f", a / b }'; }
fmt() { awk -v a="$1" 'BEGIN { if (a == "" || a == "null") print "-"; else if (a + 0 >= 100)
  printf "%.0f", a; else if (a + 0 >= 10) printf "%.1f", a; else printf "%.2f", a }'; }

# The median of the numbers given ("null" when one of them is "-" or "null"), and their range as
# "[min-max]" in the table's number format.
median() { printf '%s\n' "$@" | awk '$0 == "-" || $0 == "null" || $0 == "" { bad = 1 } { v[n++] = $0 + 0 }
  END { if (bad || n == 0) { print "null"; exit }
    for (i = 1; i < n; ++i) for (j = i; j > 0 && v[j - 1] > v[j]; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    printf "%.6g\n", n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }'; }
span() { local lo hi; lo="$(printf '%s\n' "$@" | sort -g | head -1)" hi="$(printf '%s\n' "$@" | sort -g | tail -1)"
  echo "[$(fmt "$lo")-$(fmt "$hi")]"; }

declare -a summary=()
table="$out/table2.md"
{
  echo "| system | nodes x PPort | canary | paper isolated -> loaded avg | predicted isolated -> loaded avg |" \
    "paper CI avg | predicted CI avg | ratio | paper CI 99% | predicted CI 99% | ratio |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$table"

for row in "${row_list[@]}"; do
  [[ "$row" =~ ^([a-z0-9_-]+):([0-9]+)x([0-9]+)$ ]]
  sys="${BASH_REMATCH[1]}" nodes="${BASH_REMATCH[2]}" pport="${BASH_REMATCH[3]}"
  ref="$(paper_row "$sys" "$nodes" "$pport")"
  start=$SECONDS
  status=0
  jsons=()
  for sd in "${seeds[@]}"; do
    name="$sys-${nodes}x$pport"
    ((${#seeds[@]} == 1)) || name="$name-seed$sd"
    json="$out/$name.json"
    echo "gpcnet_table2: $row seed $sd ..." >&2
    timeout --kill-after=30 "$((max_minutes * 60))" "$gridlock" predict gpcnet --system "$sys" \
      --nodes "$nodes" --ranks-per-node "$pport" --net-model packet --seed "$sd" --json "$json" -q \
      "${extra[@]}" >"$out/$name.txt" 2>"$out/$name.log" || status=$?
    ((status == 0)) || break
    jsons+=("$json")
  done
  wall=$((SECONDS - start))
  if ((status != 0)); then
    why="exit $status"
    ((status == 124 || status == 137)) && why="not finished in $max_minutes min"
    echo "gpcnet_table2: $row: $why (log: $out/$name.log)" >&2
    echo "| $sys | ${nodes}x$pport | (all) | - | $why | - | - | - | - | - | - |" >>"$table"
    summary+=("$row: $why")
    continue
  fi
  echo "gpcnet_table2: $row: $wall s" >&2
  [[ -n "$ref" ]] || ref="$(printf '%s\t' - - - - - - - - - - -)-"
  IFS=$'\t' read -r p_il p_ib p_ia p_ll p_lb p_la p_9il p_9ib p_9ia p_9ll p_9lb p_9la <<<"$ref"
  for canary in rr_two_sided_lat rr_two_sided_bw_sync multiple_allreduce; do
    case "$canary" in
      rr_two_sided_lat) label="Lat (us)" pi="$p_il" pl="$p_ll" p9i="$p_9il" p9l="$p_9ll" bw=0 ;;
      rr_two_sided_bw_sync) label="BW+Sync (MiB/s/rank)" pi="$p_ib" pl="$p_lb" p9i="$p_9ib" p9l="$p_9lb" bw=1 ;;
      multiple_allreduce) label="Allreduce (us)" pi="$p_ia" pl="$p_la" p9i="$p_9ia" p9l="$p_9la" bw=0 ;;
    esac
    gis=() gls=() cis=() ci99s=()
    for json in "${jsons[@]}"; do
      read -r gi gl ci ci99 < <(jq -r --arg k "$canary" '[
        (.phases.isolated.canaries[] | select(.key == $k) | .avg),
        (.phases.loaded.canaries[] | select(.key == $k) | .avg),
        (.congestion_impact[] | select(.phase == "loaded" and .key == $k) | .mean),
        (.congestion_impact[] | select(.phase == "loaded" and .key == $k) | .tail99)]
        | map(if . == null then "null" else tostring end) | join(" ")' "$json")
      gis+=("$gi") gls+=("$gl") cis+=("$ci") ci99s+=("$ci99")
    done
    # Several seeds: the medians (the ratio is the median's), the CIs' ranges shown beside them.
    gi="$(median "${gis[@]}")" gl="$(median "${gls[@]}")"
    ci="$(median "${cis[@]}")" ci99="$(median "${ci99s[@]}")"
    ci_shown="$(fmt "$ci")" ci99_shown="$(fmt "$ci99")"
    if ((${#jsons[@]} > 1)); then
      ci_shown="$ci_shown $(span "${cis[@]}")" ci99_shown="$ci99_shown $(span "${ci99s[@]}")"
    fi
    if ((bw)); then pci="$(ratio "$pi" "$pl")" pci99="$(ratio "$p9i" "$p9l")"
    else pci="$(ratio "$pl" "$pi")" pci99="$(ratio "$p9l" "$p9i")"; fi
    r="$(ratio "$ci" "$pci")" r99="$(ratio "$ci99" "$pci99")"
    echo "| $sys | ${nodes}x$pport | $label | $pi -> $pl | $(fmt "$gi") -> $(fmt "$gl") | $pci |" \
      "$ci_shown | $r | $pci99 | $ci99_shown | $r99 |" >>"$table"
    summary+=("$row $canary paper_ci=$pci predicted_ci=$(fmt "$ci") ratio=$r wall_s=$wall")
    printf '%s\t%s\t%s\t%s\t%s\n' "$row" "$canary" "$pci" "$ci" "$wall" >>"$out/impacts.tsv"
  done
done

cat "$table"
echo
echo "Targets (issue 37): latency and allreduce CI averages within a factor of 2 of the paper's on"
echo "crystal 64x1, 64x8, 696x1 and osprey 128x1, 128x8 (ratio 0.5..2); malbec at or below 1.3 on every canary."
for s in "${summary[@]}"; do
  if [[ "$s" =~ ^([a-z]+):([0-9x]+)\ ([a-z_]+)\ paper_ci=([^ ]+)\ predicted_ci=([^ ]+)\ ratio=([^ ]+) ]]; then
    sys="${BASH_REMATCH[1]}" canary="${BASH_REMATCH[3]}" pred="${BASH_REMATCH[5]}" r="${BASH_REMATCH[6]}"
    verdict=""
    if [[ "$sys" == malbec ]]; then
      verdict="$(awk -v c="$pred" 'BEGIN { print (c != "-" && c + 0 <= 1.3) ? "met (<= 1.3)" : "missed (> 1.3)" }')"
    elif [[ "$canary" != rr_two_sided_bw_sync ]]; then
      verdict="$(awk -v r="$r" 'BEGIN { if (r == "-") print "-"; else if (r >= 0.5 && r <= 2) print "met";
        else if (r > 2) printf "missed: %.1fx too high\n", r; else printf "missed: %.1fx too low\n", 1 / r }')"
    fi
    [[ -n "$verdict" ]] && echo "  ${s%% wall_s=*}: $verdict"
  else
    echo "  $s"
  fi
done
# The paper's ordering: for every two rows that ran and that the paper measured, does the predicted
# latency (allreduce) impact order them as the measured one does (more ranks per node, more nodes,
# fat tree against dragonfly)? Ties within 5% count as kept either way.
if [[ -s "$out/impacts.tsv" ]]; then
  awk -F'\t' '$2 != "rr_two_sided_bw_sync" && $3 != "-" && $4 != "null" { k = n++; row[k] = $1;
      can[k] = $2; p[k] = $3; g[k] = $4 }
    END { for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) {
        if (can[i] != can[j]) continue
        dp = p[i] / p[j]; dg = g[i] / g[j]
        if ((dp > 1.05 && dg < 1 / 1.05) || (dp < 1 / 1.05 && dg > 1.05)) {
          ++flipped; printf "  ordering flipped: %s %s (paper %.2f, predicted %.2f) against %s (paper %.2f, predicted %.2f)\n",
            can[i], row[i], p[i], g[i], row[j], p[j], g[j] }
        ++pairs }
      printf "Ordering (issue 37): %d of %d pairs of rows keep the paper'"'"'s order of latency and allreduce impacts\n",
        pairs - flipped, pairs }' "$out/impacts.tsv"
fi
echo "table: $table"
