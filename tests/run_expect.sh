#!/usr/bin/env bash
# Runs a command and checks its exit code and output.
# Usage: run_expect.sh EXPECTED_EXIT_CODE REGEX [--absent REGEX2] -- COMMAND [ARGS...]
# EXPECTED_EXIT_CODE may be "nonzero". REGEX (grep -E) must match stdout+stderr; "" skips it.
# REGEX2, if given, must match no line of the output.
set -u
expected="$1"
regex="$2"
shift 2
absent=""
if [ "${1:-}" = "--absent" ]; then
  absent="$2"
  shift 2
fi
[ "${1:-}" = "--" ] && shift
output="$("$@" 2>&1)"
rc=$?
fail() {
  echo "FAIL: $*"
  echo "command: $*"
  echo "----- output -----"
  echo "$output"
  exit 1
}
if [ "$expected" = "nonzero" ]; then
  [ "$rc" -ne 0 ] || fail "expected a non-zero exit code, got 0"
else
  [ "$rc" -eq "$expected" ] || fail "expected exit code $expected, got $rc"
fi
if [ -n "$regex" ] && ! grep -Eq -- "$regex" <<<"$output"; then
  fail "output does not match /$regex/"
fi
if [ -n "$absent" ] && grep -Eq -- "$absent" <<<"$output"; then
  fail "output matches /$absent/, which it must not"
fi
echo "ok: exit code $rc, output matches /$regex/"
