#!/usr/bin/env bash
# `gridlock oracle serve --port-file F` writes an output: F naming an input of the command (a traffic
# matrix of sim:FILE, an ldms: file; directly, through a symbolic or a hard link) is refused before
# the server starts, and the input is left intact. It was written over the input.
# Usage: oracle_port_file.sh GRIDLOCK WORKDIR
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
gridlock="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

printf '%s\n' "nid00012 nid00038 1GB/s" >matrix.txt
printf '%s\n' "#Time,Time_usec,ProducerName,component_id,job_id,Z+_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)" \
  "100.0,0,nid00042,42,0,61000000" >gemini.csv
cp matrix.txt matrix.orig
cp gemini.csv gemini.orig
ln -s matrix.txt link.txt
ln matrix.txt hard.txt
refused() {  # refused SOURCE OUTPUT
  local rc=0 msg
  msg="$(timeout 30 "$gridlock" oracle serve torus:2x2x8 --listen 127.0.0.1:0 --source "$1" --port-file "$2" \
    --duration 0.2 2>&1)" || rc=$?
  [ "$rc" = 2 ] || fail "--source $1 --port-file $2: exit $rc, not 2: $msg"
  grep -qF -- "--port-file '$2' is the input file" <<<"$msg" || fail "--source $1 --port-file $2: $msg"
}
for out in matrix.txt ./matrix.txt link.txt hard.txt "$work/link.txt"; do
  refused sim:matrix.txt "$out"
done
refused "ldms:$work/gemini.csv" gemini.csv
cmp -s matrix.txt matrix.orig || fail "the traffic matrix was overwritten"
cmp -s gemini.csv gemini.orig || fail "the LDMS file was overwritten"
[ -L link.txt ] || fail "the symbolic link was replaced"

# Another file is written (atomically: no temporary file is left), with the bound port.
"$gridlock" oracle serve torus:2x2x8 --listen 127.0.0.1:0 --source sim:matrix.txt --port-file fresh.port \
  --duration 0.2 >serve.log 2>&1 || fail "serve with a fresh port file: $(cat serve.log)"
grep -qE '^[0-9]+$' fresh.port || fail "port file: $(cat fresh.port)"
[ "$(ls -A | grep -c '^\.\?fresh\.port.')" = 0 ] || fail "temporary files left: $(ls -A)"
echo "ok: oracle --port-file"
