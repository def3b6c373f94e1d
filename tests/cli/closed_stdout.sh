#!/usr/bin/env bash
# A closed standard output never costs a result file (issue 36): `gridlock model fit S --json F |
# head -3` left no F, since the table was printed first and SIGPIPE ended the process. Each command
# here writes to a pipe whose reader is gone before it starts (no race with `head`), with standard
# output unbuffered (stdbuf -o0) so that its first line meets the closed pipe, as a long table does.
# It must end quietly as a closed pipe ends a process (SIGPIPE: 141), its files complete.
# Usage: closed_stdout.sh GRIDLOCK DATA_DIR WORK_DIR
set -uo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
data="$(realpath "$2")"
work="$(realpath -m "$3")"
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
# stdbuf preloads a library; ASan wants to be first unless told otherwise.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# fd 5: the writing end of a pipe without a reader (the FIFO opened read-write, then for writing,
# then its read end closed).
mkfifo widowed
exec 4<>widowed 5>widowed 4<&-

# closed NAME -- COMMAND...: runs the command with standard output on fd 5.
closed() {
  local name="$1" rc=0
  shift 2
  stdbuf -o0 "$@" >&5 2>"$name.err" || rc=$?
  [ "$rc" -eq 141 ] || fail "$name: exit code $rc, expected 141 (SIGPIPE, quiet): $(cat "$name.err")"
  if grep -q "error" "$name.err"; then
    fail "$name: said something on stderr: $(cat "$name.err")"
  fi
}
json_complete() {
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null || fail "$1 missing or not complete JSON"
}

closed fit -- "$G" model fit "$data/model_sweep.json" --json fit.json
json_complete fit.json
grep -q '"gridlock.model.fit"' fit.json || fail "fit.json has no fit"

closed check -- "$G" model check "$data/model_sweep.json" --json check.json
json_complete check.json

closed replicas -- "$G" sim --program barrier --ranks 4,8 --replicas 3 --noise-periodic 1000Hz:100us \
  --threads 1 --json replicas.json --csv replicas.csv
json_complete replicas.json
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["status"] == "complete" and len(d["scales"]) == 2 else 1)' \
  replicas.json || fail "replicas.json is not the complete study: $(head -c 600 replicas.json)"
[ "$(grep -vc '^#' replicas.csv)" -eq 3 ] || fail "replicas.csv: not a header and two scales"

closed noise -- "$G" noise measure --duration 0.2s -q --json noise.json --histogram noise.csv
json_complete noise.json
[ -s noise.csv ] || fail "noise.csv missing"

"$G" history add "$data/model_sweep.json" --db runs.db >/dev/null || fail "history add"
metric="$("$G" history metrics --db runs.db | sed -n 's/^| \([^ |]*\) | 1 |.*/\1/p' | head -n 1)"
[ -n "$metric" ] || fail "no metric listed"
closed trend -- "$G" history trend --metric "$metric" --db runs.db --csv trend.csv
grep -q "^# schema: gridlock.history.trend$" trend.csv || fail "trend.csv missing or incomplete"
[ "$(grep -vc '^#' trend.csv)" -eq 2 ] || fail "trend.csv: not a header and one run"

echo "ok: closed stdout"
