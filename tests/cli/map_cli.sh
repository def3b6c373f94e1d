#!/usr/bin/env bash
# CLI checks of `gridlock map` (task mapping with Scotch; docs/formats/rankfile.md and friends).
# Usage: map_cli.sh GRIDLOCK WORKDIR CASE   (needs jq)
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
case_name="$3"
work="$(realpath -m "$2")/$case_name"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
require jq jq

# The paper's allocation: 16 nodes of torus:2x2x8, 4 cores each, 64 tasks of a 4x4x4 stencil.
SPEC=torus:2x2x8
NODES=nid00017,nid00018,nid00019,nid00024,nid00032,nid00033,nid00034,nid00035,nid00039,nid00041,nid00043,nid00044,nid00045,nid00049,nid00050,nid00051
PAPER=("$SPEC" --nodes "$NODES" --cores-per-node 4 --tasks 'stencil3d:4x4x4')

# No mapping work was done: no "placing N tasks" progress line and no cost table.
expect_no_mapping() {
  if grep -Eq "placing [0-9]+ tasks|^\| identity" "$work/out"; then
    fail "the error came after the mapping; it must come before any work"
  fi
}

# check_rankfile FILE TASKS NODES CORES: TASKS lines 'rank R=HOST slot=S', each rank 0..TASKS-1 once,
# each (HOST, slot) once, every HOST one of NODES (comma-separated), S < CORES.
check_rankfile() {
  local file="$1" tasks="$2" nodes="$3" cores="$4"
  [ "$(wc -l <"$file")" -eq "$tasks" ] || fail "$file: $(wc -l <"$file") lines, wanted $tasks"
  awk -v nodes="$nodes" -v cores="$cores" -v tasks="$tasks" '
    BEGIN { n = split(nodes, list, ","); for (i = 1; i <= n; ++i) known[list[i]] = 1 }
    !/^rank (0|[1-9][0-9]*)=[^ ]+ slot=(0|[1-9][0-9]*)$/ { print FILENAME ":" NR ": malformed: " $0; bad = 1; next }
    {
      split($2, rh, "="); rank = rh[1]; host = rh[2]; slot = substr($3, 6)
      if (rank + 0 >= tasks) { print FILENAME ":" NR ": rank " rank " out of range"; bad = 1 }
      if (rank in seen) { print FILENAME ":" NR ": rank " rank " twice"; bad = 1 }
      seen[rank] = 1
      if (!(host in known)) { print FILENAME ":" NR ": host " host " not in the allocation"; bad = 1 }
      if (slot + 0 >= cores) { print FILENAME ":" NR ": slot " slot " >= " cores; bad = 1 }
      if ((host, slot) in used) { print FILENAME ":" NR ": " host " slot " slot " used twice"; bad = 1 }
      used[host, slot] = 1
    }
    END { exit bad }' "$file" || fail "$file is not a valid rankfile of $tasks ranks"
}

case "$case_name" in
  example)
    # The example of the brief and of docs/formats/map-json.md.
    expect 0 "placement by scotch:stalls" -- "$G" map "${PAPER[@]}" --metric stalls --source sim:paper \
      --json map.json --rankfile rankfile
    check_rankfile rankfile 64 "$NODES" 4
    [ "$(jq -r .context.schema map.json)" = gridlock.map ] || fail "context.schema"
    [ "$(jq -r '.mappings[0].mapping' map.json)" = identity ] || fail "mappings[0] is not identity"
    [ "$(jq -r .chosen map.json)" = scotch:stalls ] || fail "chosen: $(jq -r .chosen map.json)"
    jq -e '.mappings[] | select(.mapping == "scotch:stalls") | .placement.core | length == 64' map.json \
      >/dev/null || fail "no 64-task placement for the chosen mapping"
    # The JSON's placement is the rankfile's.
    jq -r '.mappings[] | select(.mapping == "scotch:stalls") | .placement
           | [.node, .slot] | transpose | to_entries[] | "rank \(.key)=\(.value[0]) slot=\(.value[1])"' \
      map.json >from-json.txt
    cmp from-json.txt rankfile || fail "the JSON placement differs from the rankfile"
    # Mapping by STALLS lowers the STALLS cost against identity (the paper's result).
    jq -e '(.mappings[] | select(.mapping == "scotch:stalls") | .costs.stalls.total)
           < (.mappings[] | select(.mapping == "identity") | .costs.stalls.total)' map.json >/dev/null ||
      fail "scotch:stalls does not lower the stalls total: $(jq -c '[.mappings[] | {mapping, s: .costs.stalls.total}]' map.json)"
    ;;
  compare)
    expect 0 "^\| scotch:hops\+stalls " -- "$G" map "${PAPER[@]}" --metric stalls --source sim:paper --compare -q
    # Every mapping has a row in both tables (total cost, costliest message), in this order.
    rows="$(grep -Eo '^\| [a-z:+]+ ' "$work/out" | awk '{print $2}' | grep -v '^mapping$' | paste -sd' ')"
    one="identity cyclic random geometric scotch:none scotch:hops scotch:bw scotch:stalls scotch:hops+stalls"
    [ "$rows" = "$one $one" ] || fail "rows: $rows"
    grep -Eq '^\| mapping +\| hops +\| bw +\| stalls +\| hops\+stalls +\| hop-bytes' "$work/out" ||
      fail "columns of the total table"
    ;;
  deterministic)
    for i in 1 2; do
      expect 0 "" -- "$G" map "${PAPER[@]}" --metric stalls --source sim:paper --rankfile "run$i.rf" -q
    done
    cmp run1.rf run2.rf || fail "the same command gave two placements"
    # Another seed may give another placement (not asserted), but always a valid one.
    expect 0 "\(seed 7\)" -- "$G" map "${PAPER[@]}" --metric stalls --source sim:paper --seed 7 --rankfile seed7.rf -q
    check_rankfile seed7.rf 64 "$NODES" 4
    ;;
  launch_files)
    expect 0 "" -- "$G" map "${PAPER[@]}" --metric stalls --source sim:paper -q --rankfile rankfile \
      --slurm-hostfile hosts --mpich-rank-order MPICH_RANK_ORDER
    check_rankfile rankfile 64 "$NODES" 4
    # Slurm hostfile: line R is the host of rank R.
    [ "$(wc -l <hosts)" -eq 64 ] || fail "hosts: $(wc -l <hosts) lines"
    sed 's/^rank [0-9]*=\([^ ]*\) slot=.*/\1/' rankfile | cmp - hosts || fail "hosts differs from the rankfile's hosts"
    # MPICH_RANK_ORDER: the ranks in the order of the cores they fill (node by node, slot by slot),
    # each rank 0..63 once; the k-th listed rank sits on node k/4, slot k%4 of the rankfile.
    tr ',' '\n' <MPICH_RANK_ORDER | sed '/^ *$/d' >order.txt
    [ "$(wc -l <order.txt)" -eq 64 ] || fail "MPICH_RANK_ORDER lists $(wc -l <order.txt) ranks"
    [ "$(sort -n order.txt | paste -sd,)" = "$(seq 0 63 | paste -sd,)" ] || fail "MPICH_RANK_ORDER is not 0..63 once each"
    IFS=, read -ra node_array <<<"$NODES"
    k=0
    while read -r rank; do
      want="rank $rank=${node_array[k / 4]} slot=$((k % 4))"
      grep -qx "$want" rankfile || fail "MPICH_RANK_ORDER position $k: rank $rank, but the rankfile lacks '$want'"
      k=$((k + 1))
    done <order.txt
    # One line per node.
    [ "$(wc -l <MPICH_RANK_ORDER)" -eq 16 ] || fail "MPICH_RANK_ORDER: $(wc -l <MPICH_RANK_ORDER) lines, wanted 16"
    ;;
  oracle)
    # An oracle serving the paper's traffic gives the placement of the same simulation in-process.
    serve() {  # serve SPEC NAME ARGS...: starts a server, sets $url and $pid_NAME
      local spec="$1" name="$2"
      shift 2
      "$G" oracle serve "$spec" --listen 127.0.0.1:0 --port-file "$name.port" --duration 25 --poll 0.2s "$@" \
        >"$name.log" 2>&1 &
      eval "pid_$name=$!"
      for _ in $(seq 1 200); do
        [ -s "$name.port" ] && break
        kill -0 "$(eval echo "\$pid_$name")" 2>/dev/null || { cat "$name.log"; fail "server $name exited early"; }
        sleep 0.05
      done
      [ -s "$name.port" ] || fail "no port file for $name"
      url="http://127.0.0.1:$(cat "$name.port")"
    }
    pid_paper="" pid_small=""
    trap 'for p in $pid_paper $pid_small; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done' EXIT
    serve "$SPEC" paper --source sim:paper --sim-rate 9.375GB/s
    paper_url="$url"
    serve torus:2x2x4 small
    small_url="$url"
    expect 0 "Link metrics from oracle:$paper_url" -- "$G" map "${PAPER[@]}" --metric stalls \
      --source "oracle:$paper_url" --timeout 5s --rankfile oracle.rf -q
    expect 0 "" -- "$G" map "${PAPER[@]}" --metric stalls --source sim:paper --sim-rate 9.375GB/s \
      --rankfile inprocess.rf -q
    cmp oracle.rf inprocess.rf || fail "the oracle's placement differs from the in-process one"
    # An oracle of another topology is refused, naming both.
    expect nonzero "serves topology 'torus:2x2x4,.*', not 'torus:2x2x8," -- "$G" map "${PAPER[@]}" \
      --metric stalls --source "oracle:$small_url" --timeout 5s --rankfile never.rf -q
    [ ! -e never.rf ] || fail "a rankfile was written from the wrong oracle"
    ;;
  oracle_unreachable)
    # A closed port: the port of a server that has stopped.
    "$G" oracle serve "$SPEC" --listen 127.0.0.1:0 --port-file gone.port --duration 25 >gone.log 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
      [ -s gone.port ] && break
      kill -0 "$pid" 2>/dev/null || { cat gone.log; fail "server exited early"; }
      sleep 0.05
    done
    kill "$pid"
    wait "$pid" || true
    [ -s gone.port ] || fail "no port file"
    url="http://127.0.0.1:$(cat gone.port)"
    expect nonzero "cannot reach the oracle at $url" -- timeout 20 "$G" map "${PAPER[@]}" --metric stalls \
      --source "oracle:$url" --timeout 1s -q
    grep -q "^gridlock: error:" "$work/out" || fail "killed by timeout(1) instead of failing by itself"
    # A listener that never answers must not hang the mapping either (needs python3).
    if command -v python3 >/dev/null; then
      python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open("silent.port.tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename("silent.port.tmp", "silent.port")
time.sleep(20)' &
      silent=$!
      trap 'kill "$silent" 2>/dev/null || true' EXIT
      for _ in $(seq 1 200); do [ -s silent.port ] && break; sleep 0.05; done
      [ -s silent.port ] || fail "the silent listener did not start"
      url="http://127.0.0.1:$(cat silent.port)"
      expect nonzero "$url" -- timeout 20 "$G" map "${PAPER[@]}" --metric stalls --source "oracle:$url" --timeout 1s -q
      grep -q "^gridlock: error:" "$work/out" || fail "hung on a silent oracle until timeout(1) killed it"
    fi
    ;;
  golden_identity)
    # stencil3d:2x2x2 has 8 tasks (id = x + 2*(y + 2*z)) and 24 messages of 20000 bytes (the
    # default: 5 x 5 x 100 doubles), one per task and dimension (a dimension of size 2 gives one
    # neighbour). Identity puts ranks 0-3 (z = 0) on nid00000 and 4-7 (z = 1) on nid00001.
    # - x and y messages stay on a node: 16 messages x weight 1 (same node) x 20000 B = 320000;
    # - z messages go from nid00000 to nid00001 or back: 8 messages; both nodes hang on router
    #   (0,0,0) (`gridlock topo route torus:2x2x8 nid00000 nid00001`: 0 hops), so weight 2 (same
    #   router) x 20000 B each = 320000.
    # Identity's HOPS total is 640000. No message crosses a network link, so every mapping's
    # hop-bytes is 0.
    expect 0 "^nid00000 -> nid00001: 0 hops" -- "$G" topo route "$SPEC" nid00000 nid00001
    expect 0 "" -- "$G" map "$SPEC" --tasks stencil3d:2x2x2 --nodes nid00000,nid00001 --cores-per-node 4 \
      --metric hops --source sim:none -q --json g.json
    [ "$(jq '.task_graph.messages' g.json)" = 24 ] || fail "messages: $(jq '.task_graph.messages' g.json)"
    [ "$(jq '.mappings[0].mapping' g.json)" = '"identity"' ] || fail "first row"
    [ "$(jq '.mappings[0].costs.hops.total' g.json)" = 640000 ] ||
      fail "identity hops total $(jq '.mappings[0].costs.hops.total' g.json), wanted 640000"
    [ "$(jq '.mappings[0].costs.hops.max_message' g.json)" = 40000 ] || fail "identity costliest message"
    [ "$(jq '[.mappings[].hop_bytes] | unique' -c g.json)" = "[0]" ] || fail "hop-bytes: $(jq -c '[.mappings[].hop_bytes]' g.json)"
    ;;
  node_lists)
    # A Slurm hostlist and an @FILE (one hostlist per line, comments) give the list's placement.
    expect 0 "4 nodes x 4 cores" -- "$G" map "$SPEC" --nodes nid00017,nid00018,nid00019,nid00024 --cores-per-node 4 \
      --tasks stencil3d:2x2x4 -q --rankfile list.rf
    expect 0 "4 nodes x 4 cores" -- "$G" map "$SPEC" --nodes 'nid[00017-00019,00024]' --cores-per-node 4 \
      --tasks stencil3d:2x2x4 -q --rankfile hostlist.rf
    check_rankfile hostlist.rf 16 nid00017,nid00018,nid00019,nid00024 4
    cmp list.rf hostlist.rf || fail "the hostlist gave another placement than the list"
    printf '%s\n' '# from scontrol show hostnames' nid00017 'nid[00018-00019]' '' nid00024 >nodes.txt
    expect 0 "4 nodes x 4 cores" -- "$G" map "$SPEC" --nodes @nodes.txt --cores-per-node 4 \
      --tasks stencil3d:2x2x4 -q --rankfile file.rf
    cmp list.rf file.rf || fail "the @FILE gave another placement than the list"
    ;;
  output_is_input)
    # --rankfile naming the @FILE node list, directly and through a symlink: refused, input intact.
    printf '%s\n' nid00017 nid00018 nid00019 nid00024 >nodes.txt
    cp nodes.txt nodes.orig
    ln -s nodes.txt link.txt
    for out in nodes.txt ./nodes.txt link.txt "$work/link.txt"; do
      expect 2 "--rankfile '$out' is the input file 'nodes.txt': writing it would destroy the input" -- \
        "$G" map "$SPEC" --nodes @nodes.txt --cores-per-node 4 --tasks stencil3d:2x2x4 --rankfile "$out"
      expect_no_mapping
      cmp nodes.txt nodes.orig || fail "--rankfile $out changed the node list"
    done
    [ -L link.txt ] || fail "the symlink was replaced"
    # The node list read through the symlink, the rankfile naming its target.
    expect 2 "is the input file 'link.txt'" -- \
      "$G" map "$SPEC" --nodes @link.txt --cores-per-node 4 --tasks stencil3d:2x2x4 --slurm-hostfile nodes.txt
    cmp nodes.txt nodes.orig || fail "--slurm-hostfile changed the node list"
    # A matrix: task graph is an input too.
    printf 'src,dst,bytes\n0,1,100\n1,0,100\n' >m.csv
    cp m.csv m.orig
    expect 2 "--json 'm.csv' is the input file 'm.csv'" -- \
      "$G" map "$SPEC" --nodes nid00017 --cores-per-node 4 --tasks matrix:m.csv --json m.csv
    cmp m.csv m.orig || fail "--json changed the matrix"
    ;;
  json_missing_dir)
    # Refused before any mapping (and before fetching metrics), and nothing else written.
    expect 3 "cannot write '$work/missing/map.json': directory '$work/missing' does not exist" -- \
      "$G" map "${PAPER[@]}" --metric stalls --source sim:paper --rankfile rankfile --json "$work/missing/map.json"
    expect_no_mapping
    ! grep -q "reading link metrics" "$work/out" || fail "metrics were read before the output was checked"
    [ ! -e rankfile ] || fail "the rankfile was written though --json cannot be"
    ;;
  mpich_fewer_tasks)
    # 32 tasks on 64 cores: MPICH_RANK_ORDER fills cores in order and cannot leave holes.
    expect nonzero "MPICH_RANK_ORDER cannot leave cores empty, and 32 tasks leave 32 of the 64 cores empty" -- \
      "$G" map "$SPEC" --nodes "$NODES" --cores-per-node 4 --tasks stencil3d:4x4x2 --mpich-rank-order order -q
    [ ! -e order ] || fail "an MPICH_RANK_ORDER file was written"
    ;;
  mpich_fewer_tasks_early)
    # The same refusal must come before the mapping, like every other output check, and must not
    # leave the other outputs half written (the rankfile without the JSON).
    expect 2 "MPICH_RANK_ORDER cannot leave cores empty" -- "$G" map "$SPEC" --nodes "$NODES" --cores-per-node 4 \
      --tasks stencil3d:4x4x2 --mpich-rank-order order --rankfile rankfile --json map.json
    expect_no_mapping
    [ ! -e rankfile ] || fail "the rankfile was written though --mpich-rank-order was refused"
    ;;
  bad_matrix)
    printf 'src,dst,bytes\n0,1,100\n1,2,oops\n' >bad.csv
    expect 2 "bad.csv:3: bytes 'oops'" -- "$G" map "${PAPER[@]/stencil3d:4x4x4/matrix:bad.csv}" -q
    # Only traffic of tasks to themselves: no edges.
    printf '0,0,100\n1,1,5\n' >self.csv
    expect 2 "has no edges: nothing to map" -- "$G" map "${PAPER[@]/stencil3d:4x4x4/matrix:self.csv}" -q
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: map $case_name"
