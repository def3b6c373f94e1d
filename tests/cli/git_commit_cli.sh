#!/usr/bin/env bash
# The commit a binary reports is the one it was built from: cmake/WriteGitCommit.cmake runs at every
# build (the configured commit went stale after a commit or a pull and every result file carried the
# older one). Checked on a scratch repository: the commit after each new commit, "-dirty" with
# changed tracked files, "unknown" outside git, and the file left untouched (no rebuild) when the
# commit is the same.
# Usage: git_commit_cli.sh SOURCE_DIR WORK_DIR
set -uo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
script="$(realpath "$1")/cmake/WriteGitCommit.cmake"
work="$(realpath -m "$2")"
command -v git >/dev/null || { echo "git_commit_cli: no git, skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work/repo" "$work/plain"
out="$work/git_commit.cpp"
write() { cmake "-DSOURCE_DIR=$1" "-DOUTPUT=$out" -P "$script" || fail "WriteGitCommit.cmake failed on $1"; }
commit_in() { sed -n 's/.*kGitCommit = "\(.*\)";/\1/p' "$out"; }
g() { git -C "$work/repo" -c user.name=t -c user.email=t@t "$@" >/dev/null || fail "git $*"; }

g init -q
echo one >"$work/repo/f"
g add f
g commit -q -m one
write "$work/repo"
first="$(git -C "$work/repo" rev-parse --short=12 HEAD)"
[ "$(commit_in)" = "$first" ] || fail "after the first commit: '$(commit_in)', expected '$first'"

# The same commit again: the file is not rewritten (Ninja would otherwise relink everything).
touch -d '2000-01-01' "$out"
write "$work/repo"
[ "$(stat -c %Y "$out")" = "$(date -d '2000-01-01' +%s)" ] || fail "rewritten although the commit is the same"

echo two >"$work/repo/f"
write "$work/repo"
[ "$(commit_in)" = "$first-dirty" ] || fail "with a changed tracked file: '$(commit_in)', expected '$first-dirty'"

g commit -q -am two
write "$work/repo"
second="$(git -C "$work/repo" rev-parse --short=12 HEAD)"
[ "$second" != "$first" ] || fail "the scratch repository's second commit has the first's id"
[ "$(commit_in)" = "$second" ] || fail "after a second commit: '$(commit_in)', expected '$second' (stale commit)"

# The work directory may lie inside a checkout (the build tree): git must not look above it.
GIT_CEILING_DIRECTORIES="$work" write "$work/plain"
[ "$(commit_in)" = "unknown" ] || fail "outside git: '$(commit_in)', expected 'unknown'"
echo "git_commit_cli: ok"
