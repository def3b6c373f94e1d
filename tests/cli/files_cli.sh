#!/usr/bin/env bash
# CLI checks of issue 36's lost or damaged files: an output inside an input OTF2 archive or input
# directory is refused and the archive left as it was (it was overwritten, exit 0); a FIFO or
# /dev/zero in the archive is refused by name, never read (it blocked or read forever); a report
# without a readable input leaves an existing page as it was.
# Usage: files_cli.sh GRIDLOCK DATA_DIR WORK_DIR
set -uo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
G="$(realpath "$1")"
trace="$(realpath "$2")/files/trace"
work="$(realpath -m "$3")"
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

# refused REGEX -- COMMAND...: exit code 2, the message on stderr, the archive copy t unchanged.
refused() {
  local regex="$1" rc=0
  shift 2
  rm -rf t && cp -r "$trace" t
  timeout 20 "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2: $* ($(cat err.txt))"
  grep -Eq -- "$regex" err.txt || fail "stderr does not match /$regex/: $(cat err.txt)"
  diff -r "$trace" t >/dev/null || fail "the archive was changed: $*"
}

# The trace converts (the fixture is sound), then every spelling of a file in the archive is refused.
timeout 20 "$G" schedule from-trace "$trace" -o ok.goal >/dev/null || fail "the fixture trace does not convert"
refused "is a file of the OTF2 trace" -- "$G" schedule from-trace t -o t/traces/0.evt
refused "is a file of the OTF2 trace" -- "$G" schedule from-trace t -o t/traces.def
refused "is a file of the OTF2 trace" -- "$G" schedule from-trace t/traces.otf2 -o ./t/traces/../traces/1.evt
refused "is a file of the OTF2 trace" -- "$G" schedule info t --json t/traces.otf2
ln -sfn t alias
refused "is a file of the OTF2 trace" -- "$G" schedule info alias --json t/traces/1.evt
echo '{}' >keep.json
refused "is inside the input directory" -- sh -c "cp keep.json t/keep.csv && \"$G\" schedule info t --json t/keep.csv; rc=\$?; rm -f t/keep.csv; exit \$rc"
# A page written into an input directory is not an input: a second run replaces it (the first
# version refused every existing file inside an input directory).
mkdir -p csvdir
timeout 20 "$G" report "$(realpath "$2")/model_sweep.json" --csv-dir csvdir -o csvdir/report.html -q 2>/dev/null
timeout 20 "$G" report "$(realpath "$2")/model_sweep.json" --csv-dir csvdir -o csvdir/report.html -q ||
  fail "re-running a report into its --csv-dir was refused"
# A new file beside the archive (not one of its files) is fine.
rm -rf t && cp -r "$trace" t
"$G" schedule info t --json t/info.json >/dev/null || fail "a new output beside the archive was refused"

# Special files in the archive: refused by name at once.
for f in traces/0.evt traces.def traces.otf2; do
  rm -rf t && cp -r "$trace" t && rm "t/$f" && mkfifo "t/$f"
  rc=0
  timeout 20 "$G" schedule from-trace t -o out.goal 2>err.txt || rc=$?
  [ "$rc" -eq 3 ] || fail "FIFO $f: exit code $rc, expected 3 (124: it hung)"
  grep -q "$f': it is a FIFO" err.txt || fail "FIFO $f: $(cat err.txt)"
done
rm -rf t && cp -r "$trace" t && ln -sf /dev/zero t/traces/1.evt
rc=0
timeout 20 "$G" schedule info t 2>err.txt || rc=$?
[ "$rc" -eq 3 ] || fail "/dev/zero event file: exit code $rc, expected 3 (124: it read forever)"
grep -q "1.evt': it is a character device" err.txt || fail "/dev/zero event file: $(cat err.txt)"

# gridlock report: no readable input, no page written over the existing one.
echo "a good page" >page.html
rc=0
"$G" report missing.json -o page.html 2>err.txt || rc=$?
[ "$rc" -eq 2 ] || fail "report of a missing input: exit code $rc"
[ "$(cat page.html)" = "a good page" ] || fail "report of a missing input replaced the page"
grep -q "no input could be read" err.txt || fail "report of a missing input: $(cat err.txt)"
echo "ok: files"
