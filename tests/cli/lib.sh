# Shared helpers of the CLI test scripts (tests/cli/*.sh). Source it first:
#   . "$(dirname "$(realpath "$0")")/lib.sh"
# then set `work` to the case's own directory before calling expect.

# fail MESSAGE...: the test fails with MESSAGE on stderr, naming the script.
fail() {
  echo "FAIL: ${0##*/}: $*" >&2
  exit 1
}

# require COMMAND PACKAGE: fail unless COMMAND is on the PATH.
require() {
  command -v "$1" >/dev/null || fail "$1 is required (apt-get install $2)"
}

# expect <exit code|nonzero> <extended regex> -- command...: runs the command (an executable under
# a 120 s limit, so that a hang fails the case instead of the whole test; a shell function as is),
# its stdout and stderr in $work/out, prints that output, and fails unless the exit code and a
# line of the output match. Leaves the output in $work/out for further checks.
expect() {
  local want_rc="$1" regex="$2" rc=0
  shift 3
  local out="${work:?set work before calling expect}/out"
  if [ "$(type -t "$1")" = file ]; then
    timeout 120 "$@" >"$out" 2>&1 || rc=$?
  else
    "$@" >"$out" 2>&1 || rc=$?
  fi
  cat "$out"
  if [ "$want_rc" = nonzero ]; then
    [ "$rc" -ne 0 ] || fail "exit code 0, wanted non-zero: $*"
  else
    [ "$rc" -eq "$want_rc" ] || fail "exit code $rc, wanted $want_rc: $*"
  fi
  grep -Eq -- "$regex" "$out" || fail "output does not match /$regex/: $*"
}
