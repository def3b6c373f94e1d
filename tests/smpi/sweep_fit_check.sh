#!/usr/bin/env bash
# Fits the SMPI sweep with `gridlock model fit` and checks that the ping-pong's Hockney parameters
# are the simulated platform's: alpha (us) and beta (us/byte) within TOL (relative) of the expected
# values, for the least-squares and the robust fit alike.
# Usage: sweep_fit_check.sh GRIDLOCK SWEEP.json FIT.json ALPHA_US BETA_US_PER_BYTE TOL
set -euo pipefail
fail() { echo "sweep_fit_check: FAILED: $*" >&2; exit 1; }
(($# == 6)) || { sed -n '2,5p' "$0" >&2; exit 2; }
gridlock="$1" sweep="$2" fit="$3" alpha="$4" beta="$5" tol="$6"
[ -x "$gridlock" ] || fail "$gridlock not built (the ci preset builds it: cmake --build --preset ci)"
"$gridlock" model fit "$sweep" --json "$fit" -q || fail "gridlock model fit $sweep failed"
for method in least_squares robust; do
  got="$(jq -c --arg m "$method" '[.series[] | select(.op == "pingpong") | .[$m] | .alpha_us, .beta_us_per_byte]' "$fit")"
  [ "$got" != "[]" ] || fail "$fit: no pingpong series"
  jq -n --argjson g "$got" --argjson a "$alpha" --argjson b "$beta" --argjson t "$tol" \
    '(($g[0] - $a) | fabs) <= $t * $a and (($g[1] - $b) | fabs) <= $t * $b' | grep -q true ||
    fail "$method fit gives alpha, beta = $got; expected $alpha us, $beta us/B within $tol"
  echo "sweep_fit_check: $method: alpha, beta = $got (expected $alpha us, $beta us/B)"
done
