#!/usr/bin/env bash
# Browser test of `gridlock report` (label browser): reports of a load run (with --csv-dir
# histograms), a noise run, a simulator run (with a `gridlock predict mapping` result) and a
# comparison of two load runs are rendered by headless Chromium; every chart the page embeds must
# be drawn (the page script sets data-rendered), no script error may be collected (window.onerror
# writes them into the DOM), no request may leave the page (the page's Content-Security-Policy
# refuses any; Chromium logs a violation, which fails the test) and the HTML names no http(s) URL
# in src or href.
# Usage: report_browser.sh GRIDLOCK INPUTS_DIR WORK_DIR       Exit 77 (skip) without chromium.
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$1"
in="$2"
work="$3"
chrome="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chrome" ]; then
  echo "SKIP: chromium is not installed (scripts/setup.sh installs it; CI runs this test)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"

"$G" report -q "$in/bench_load.json" --csv-dir "$in/histograms" -o "$work/load.html"
"$G" report -q "$in/bench_noise.json" "$in/noise_measure.json" "$in/noise.trace" -o "$work/noise.html"
"$G" report -q "$in/replicas.json" "$in/sim_run.json" "$in/predict_mapping.json" -o "$work/sim.html"
"$G" report -q --compare "$in/load.json" "$in/load_b.json" -o "$work/compare.html"

for kind in load noise sim compare; do
  page="$work/$kind.html"
  grep -q "http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'" "$page" || fail "$kind: no CSP"
  if grep -Eio '(src|href)[[:space:]]*=[[:space:]]*["'\'']?(https?:)?//' "$page"; then
    fail "$kind: the page names a remote resource"
  fi
  # --virtual-time-budget lets the page's scripts finish before the DOM is dumped.
  timeout 60 "$chrome" --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 --virtual-time-budget=2000 \
    --dump-dom "file://$page" >"$work/$kind.dom" 2>"$work/$kind.log" || fail "$kind: chromium failed ($(tail -3 "$work/$kind.log"))"
  root="$(grep -o '<html[^>]*>' "$work/$kind.dom" | head -1)"
  expected="$(sed -nE 's/.*data-charts-expected="([0-9]+)".*/\1/p' <<<"$root")"
  rendered="$(sed -nE 's/.*data-rendered="([0-9]+)".*/\1/p' <<<"$root")"
  canvases="$(grep -o '<canvas ' "$work/$kind.dom" | wc -l)"
  [ -n "$rendered" ] || fail "$kind: the page script did not finish (root element: $root; log: $work/$kind.log)"
  [ "$rendered" -gt 0 ] && [ "$rendered" = "$expected" ] || fail "$kind: $rendered of $expected charts drawn"
  [ "$canvases" -ge "$rendered" ] || fail "$kind: $canvases canvases for $rendered charts"
  # Chart.js sizes every canvas it draws on; an undrawn canvas keeps no width attribute.
  drawn="$(grep -o '<canvas [^>]*width="[0-9]*"' "$work/$kind.dom" | wc -l)"
  [ "$drawn" -ge "$rendered" ] || fail "$kind: only $drawn canvases were drawn on"
  if grep -q 'data-script-errors' <<<"$root"; then
    fail "$kind: script errors: $(sed -n 's/.*<pre id="script-errors"[^>]*>\([^<]*\)<.*/\1/p' "$work/$kind.dom")"
  fi
  if grep -E 'Content Security Policy|Refused to (load|connect)' "$work/$kind.log"; then
    fail "$kind: the page tried a request the CSP refused"
  fi
  echo "$kind: $rendered charts drawn, no script error, no request"
done
