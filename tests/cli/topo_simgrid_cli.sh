#!/usr/bin/env bash
# End-to-end: `gridlock topo simgrid` writes SimGrid platforms whose routes are the model's.
# Usage: topo_simgrid_cli.sh GRIDLOCK SOURCE_DIR WORKDIR CASE
#   small     a 2x2x4 torus: host, link and route counts, the XML parses (python3 when present)
#   paper     the paper's route nid00012 -> nid00038 on torus:2x2x8, and a same-router route
#   committed platforms/gemini-2x2x8.xml is what the generator writes today (context comment aside)
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
gridlock="$1"
src="$2"
work="$3"
case_name="$4"
mkdir -p "$work"

case "$case_name" in
  small)
    out="$work/small.xml"
    msg="$("$gridlock" topo simgrid torus:2x2x4 -o "$out")"
    grep -q "^wrote .*small.xml: 32 hosts, 160 links, 992 routes" <<<"$msg" || fail "summary: $msg"
    [ "$(grep -c '<host ' "$out")" = 32 ] || fail "hosts: $(grep -c '<host ' "$out")"
    # 16 routers x 6 ports = 96 directed network links, plus 32 injection and 32 ejection links.
    [ "$(grep -c '<link ' "$out")" = 160 ] || fail "links: $(grep -c '<link ' "$out")"
    [ "$(grep -c '<route ' "$out")" = 992 ] || fail "routes: $(grep -c '<route ' "$out")"
    [ "$(grep -c 'sharing_policy="SHARED"' "$out")" = 160 ] || fail "not every link is SHARED"
    [ "$(grep -c 'symmetrical="NO"' "$out")" = 992 ] || fail "not every route is one-way"
    grep -q 'latency="100ns"' "$out" || fail "default latency 100ns missing"
    grep -q 'speed="1000000000f"' "$out" || fail "default speed 1Gf missing"
    if command -v python3 >/dev/null; then
      python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$out" || fail "XML does not parse"
    fi
    ;;
  paper)
    out="$work/paper.xml"
    "$gridlock" topo simgrid torus:2x2x8 -o "$out" -q --latency 50ns --terminal-latency 1us
    want='<route src="nid00012" dst="nid00038" symmetrical="NO"><link_ctn id="nid00012:inject"/><link_ctn id="(0,0,6):X+"/><link_ctn id="(1,0,6):Y+"/><link_ctn id="(1,1,6):Z-"/><link_ctn id="(1,1,5):Z-"/><link_ctn id="(1,1,4):Z-"/><link_ctn id="nid00038:eject"/></route>'
    grep -qF "$want" "$out" || fail "paper route: $(grep 'src="nid00012" dst="nid00038"' "$out")"
    want='<route src="nid00016" dst="nid00017" symmetrical="NO"><link_ctn id="nid00016:inject"/><link_ctn id="nid00017:eject"/></route>'
    grep -qF "$want" "$out" || fail "same-router route: $(grep 'src="nid00016" dst="nid00017"' "$out")"
    grep -qF '<link id="(1,0,6):Y+" bandwidth="4687500000Bps" latency="50ns" sharing_policy="SHARED"/>' "$out" ||
      fail "Y link: $(grep 'id="(1,0,6):Y+"' "$out")"
    grep -qF '<link id="nid00012:inject" bandwidth="9375000000Bps" latency="1000ns" sharing_policy="SHARED"/>' "$out" ||
      fail "injection link: $(grep 'id="nid00012:inject"' "$out")"
    ;;
  committed)
    out="$work/gemini-2x2x8.xml"
    "$gridlock" topo simgrid torus:2x2x8 -o "$out" -q
    # The context comment (date, commit) is the only part allowed to differ.
    strip() { sed '/^<!--/,/-->$/d' "$1"; }
    diff <(strip "$src/platforms/gemini-2x2x8.xml") <(strip "$out") >"$work/committed.diff" ||
      fail "platforms/gemini-2x2x8.xml differs from the generator's output; regenerate it with
  gridlock topo simgrid torus:2x2x8 -o platforms/gemini-2x2x8.xml
$(head -20 "$work/committed.diff")"
    ;;
  *)
    fail "unknown case '$case_name'"
    ;;
esac
echo "ok: $case_name"
