#!/usr/bin/env bash
# Tests the bad-input runner (run.sh) on selftest.cases: the cases that must pass pass, the ones
# that must fail are reported with file:line, the bench case is skipped, and the summary counts.
#   selftest.sh GRIDLOCK DATA_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$("$here/../run.sh" --gridlock "$1" --bench= --data "$2" --timeout 3 "$here/selftest.cases" 2>&1)
rc=$?
fail() {
  echo "FAIL: $*"
  echo "----- runner output -----"
  echo "$out"
  exit 1
}
[ "$rc" -eq 1 ] || fail "runner exit code $rc, expected 1 (some cases fail)"
grep -Eq '^9 cases, 5 failed, 1 skipped in [0-9]+\.[0-9] s$' <<<"$out" || fail "wrong summary"
fails=$(grep -Eo '^FAIL [^ ]*selftest\.cases:[0-9]+' <<<"$out" | sed 's/.*://' | tr '\n' ' ')
[ "$fails" = "5 8 12 13 14 " ] || fail "failures reported at lines '$fails', expected '5 8 12 13 14 '"
grep -q "stderr does not match /never printed/" <<<"$out" || fail "line 5's reason is not given"
grep -q "stderr says 'internal error'" <<<"$out" || fail "line 8's reason is not given"
grep -q "malformed case" <<<"$out" || fail "line 12's reason is not given"
grep -q "timed out after 3 s" <<<"$out" || fail "line 13's reason is not given"
grep -q "killed by signal 11" <<<"$out" || fail "line 14's reason is not given"
grep -q "^  | something else" <<<"$out" || fail "line 5's stderr is not shown"
echo "ok: the runner passes, fails and skips the self-test's cases as it should"
