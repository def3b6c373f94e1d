#!/usr/bin/env bash
# Man pages and bash completion generated from the CLI definitions (apps/common/cli_docs.hpp):
# one page per command and subcommand that `--help` lists, every page renders with groff without
# an error, and the completion completes commands, options and file names.
#   docs_cli.sh GRIDLOCK GRIDLOCK_BENCH
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
gridlock=$1
bench=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$gridlock" --generate-docs "$work" 2>/dev/null || fail "gridlock --generate-docs"
"$bench" --generate-docs "$work" 2>/dev/null || fail "gridlock-bench --generate-docs (no MPI)"

# Subcommands of a command, from its own --help.
subcommands() { "$@" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }'; }
check_pages() {
  local name=$1
  shift
  [ -f "$work/man1/$name.1" ] || fail "no man page $name.1"
  local sub
  for sub in $(subcommands "$@"); do
    check_pages "$name-$sub" "$@" "$sub"
  done
}
check_pages gridlock "$gridlock"
check_pages gridlock-bench "$bench"
pages=$(find "$work/man1" -name '*.1' | wc -l)
((pages >= 30)) || fail "only $pages man pages"

for page in "$work"/man1/*.1; do
  # Errors only: long unbreakable option names give "cannot adjust line" warnings.
  errors=$(groff -man -Tutf8 -z -W break -w mac -w font -w escape -w reg "$page" 2>&1) || fail "groff failed on $page"
  [ -z "$errors" ] || fail "groff on $(basename "$page"): $errors"
done
grep -q -- '\\-\\-replicas' "$work/man1/gridlock-sim.1" || fail "gridlock-sim.1 lacks --replicas"
grep -q -- '\\-\\-quick' "$work/man1/gridlock-bench-sweep.1" || fail "gridlock-bench-sweep.1 lacks --quick"
grep -q '^\.SH EXIT STATUS' "$work/man1/gridlock.1" || fail "gridlock.1 lacks EXIT STATUS"

complete_words() {
  local script=$1 function=$2
  shift 2
  (
    cd "$work"
    # shellcheck source=/dev/null
    source "$script"
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    "$function"
    echo "${COMPREPLY[*]}"
  )
}
expect_completion() {
  local want=$1
  shift
  local got
  got=$(complete_words "$@")
  [ "$got" = "$want" ] || fail "completion of '${*:3}': got '$got', want '$want'"
}
g="$work/bash-completion/gridlock"
b="$work/bash-completion/gridlock-bench"
expect_completion "sim" "$g" _gridlock_complete gridlock si
expect_completion "--replicas" "$g" _gridlock_complete gridlock sim --rep
expect_completion "route" "$g" _gridlock_complete gridlock topo r
expect_completion "--seed" "$g" _gridlock_complete gridlock sim --ranks 4 --see
expect_completion "man1" "$g" _gridlock_complete gridlock sim --json ma
expect_completion "--quick --quiet" "$b" _gridlock_bench_complete gridlock-bench sweep --qu

# Bad use: no directory, or one that cannot be made.
rc=0
"$gridlock" --generate-docs 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "--generate-docs without DIR: exit $rc, want 2"
rc=0
"$gridlock" --generate-docs /proc/gridlock-docs 2>/dev/null || rc=$?
[ "$rc" -eq 3 ] || fail "--generate-docs into /proc: exit $rc, want 3"
echo "docs_cli: $pages man pages and two completion scripts"
