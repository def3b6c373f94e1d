#!/usr/bin/env bash
# Checks gridlock-bench JSON written under SMPI (jq only; the SMPI build has no GoogleTest).
#   check_json.sh same A.json B.json          identical apart from context.date and context.host
#   check_json.sh run FILE MODE NODES         a complete run: mode, node and rank counts, every
#                                             canary measured in every phase, no timeouts
#   check_json.sh impact FILE KEY MIN MAX     MIN <= mean Congestion Impact of canary KEY <= MAX
#   check_json.sh spmv RANKS A.json B.json    two spmv runs of one problem (e.g. identity and
#                                             oracle mapping): complete, RANKS ranks, a positive
#                                             halo-exchange and allreduce time per iteration, and
#                                             the same result checksum
#   check_json.sh spmv-loaded RANKS ALONE.json LOADED.json
#                                             one problem alone and beside congestors: same
#                                             checksum, every congestor type ran, and the halo
#                                             exchange is slower under the load
set -euo pipefail
fail() { echo "check_json: FAILED: $*" >&2; exit 1; }
case "${1:-}" in
  same)
    strip='del(.context.date, .context.host)'
    if ! diff <(jq -S "$strip" "$2") <(jq -S "$strip" "$3"); then
      fail "$2 and $3 differ (above) beyond context.date and context.host"
    fi
    echo "check_json: $2 and $3 are identical apart from date and host"
    ;;
  run)
    file="$2" mode="$3" nodes="$4"
    [ "$(jq -r .context.mode "$file")" = "$mode" ] || fail "$file: mode is not $mode"
    [ "$(jq -r .context.nodes "$file")" = "$nodes" ] || fail "$file: $(jq .context.nodes "$file") nodes, expected $nodes"
    [ "$(jq -r .context.ranks_per_node "$file")" = 1 ] || fail "$file: not 1 rank per node"
    [ "$(jq -r .status "$file")" = complete ] || fail "$file: status $(jq .status "$file")"
    [ "$(jq '.timeouts | length' "$file")" = 0 ] || fail "$file: timeouts $(jq -c .timeouts "$file")"
    empty="$(jq '[.phases[] | .canaries[] | select(.samples == 0 or .timed_out or .skipped)] | length' "$file")"
    [ "$empty" = 0 ] || fail "$file: $empty canary results without samples, timed out or skipped"
    roles="$(jq '[.roles[] | length] | add' "$file")"
    [ "$roles" = "$nodes" ] || fail "$file: roles hold $roles nodes, expected $nodes"
    distinct="$(jq '[.roles[][]] | unique | length' "$file")"
    [ "$distinct" = "$nodes" ] || fail "$file: $distinct distinct node names in roles, expected $nodes"
    echo "check_json: $file: complete $mode run on $nodes nodes"
    ;;
  impact)
    file="$2" key="$3" min="$4" max="$5"
    ci="$(jq --arg k "$key" '[.congestion_impact[] | select(.key == $k and .phase == "loaded") | .mean][0]' "$file")"
    jq -n --argjson ci "$ci" --argjson lo "$min" --argjson hi "$max" '$ci >= $lo and $ci <= $hi' | grep -q true ||
      fail "$file: mean Congestion Impact of $key is $ci, expected within [$min, $max]"
    echo "check_json: $file: mean Congestion Impact of $key is $ci, within [$min, $max]"
    ;;
  spmv)
    ranks="$2"
    shift 2
    for file in "$@"; do
      [ "$(jq -r .status "$file")" = ok ] || fail "$file: status $(jq .status "$file")"
      [ "$(jq -r .context.ranks "$file")" = "$ranks" ] || fail "$file: $(jq .context.ranks "$file") ranks, expected $ranks"
      # Computation is not simulated (smpi/simulate-computation:no), so the iteration's time is
      # its communication: the halo exchange and the dot-product allreduce.
      for key in halo allreduce; do
        jq -e ".statistics.$key.mean > 0" "$file" >/dev/null ||
          fail "$file: statistics.$key.mean is $(jq ".statistics.$key.mean" "$file"), expected > 0"
      done
      echo "check_json: $file: mapping $(jq -r .remap.method "$file"), halo $(jq .statistics.halo.mean "$file") us, allreduce $(jq .statistics.allreduce.mean "$file") us per iteration"
    done
    a="$(jq -r .checksum "$1")"
    b="$(jq -r .checksum "$2")"
    [ "$a" != null ] || fail "$1: no checksum"
    [ "$a" = "$b" ] || fail "checksums differ: $a ($1) and $b ($2)"
    echo "check_json: $1 and $2 have the same checksum $a"
    ;;
  spmv-loaded)
    # ISOLATED and LOADED: one problem alone and beside congestors; in simulated time the load
    # must slow the halo exchange, and every congestor type must have run.
    ranks="$2" alone="$3" loaded="$4"
    for file in "$alone" "$loaded"; do
      [ "$(jq -r .status "$file")" = ok ] || fail "$file: status $(jq .status "$file")"
      [ "$(jq -r .context.ranks "$file")" = "$ranks" ] || fail "$file: $(jq .context.ranks "$file") ranks, expected $ranks"
    done
    [ "$(jq -r .checksum "$alone")" = "$(jq -r .checksum "$loaded")" ] || fail "checksums differ: $alone and $loaded"
    jq -e '(.congestors | length) > 0 and ([.congestors[] | select(.iterations > 0 and (.timed_out | not))] | length) == (.congestors | length)' \
      "$loaded" >/dev/null || fail "$loaded: not every congestor type ran: $(jq -c .congestors "$loaded")"
    a="$(jq .statistics.halo.mean "$alone")"
    b="$(jq .statistics.halo.mean "$loaded")"
    jq -n --argjson a "$a" --argjson b "$b" '$b > $a' | grep -q true ||
      fail "halo exchange beside congestors ($b us) is not slower than alone ($a us)"
    echo "check_json: halo exchange $a us alone, $b us beside $(jq -r '[.congestors[] | "\(.type) (\(.mib_per_s_per_rank | floor) MiB/s/rank)"] | join(", ")' "$loaded")"
    ;;
  *)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
