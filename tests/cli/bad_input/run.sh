#!/usr/bin/env bash
# The bad-input suite (issue 36): runs every case of the given *.cases files (a directory stands
# for the *.cases files in it) and checks that each bad input ends with its expected exit code
# and a message, never a crash, a hang or an internal error.
#
#   run.sh --gridlock PATH [--bench PATH] --data DIR [--jobs 2] [--timeout 20] CASES...
#
# A case is one line, split on the first two " | " (space, pipe, space):
#     <expected exit code> | <extended regex that stderr must match> | <bash command>
# Blank lines and lines starting with '#' are ignored. The command runs under `bash -c` in a fresh
# empty directory (its cwd, also $WORK), stdin from /dev/null, under `timeout`, with $GRIDLOCK,
# $GRIDLOCK_BENCH (empty without gridlock-bench: the cases naming it are skipped and counted) and
# $DATA (read-only fixtures) exported. A case passes when the exit code is the expected one and a
# line of stderr matches the regex; it fails when the process was killed (timeout or signal: exit
# 124 and above), when stderr holds a sanitizer report, or "internal error" unless 70 is expected.
# Prints one block per failure (file:line, command, expected and actual, the first stderr lines)
# and "N cases, F failed, S skipped in T s"; exits 0 when nothing failed, 1 otherwise, 2 on bad usage.
set -uo pipefail

usage() {
  echo "usage: $0 --gridlock PATH [--bench PATH] --data DIR [--jobs N] [--timeout SECONDS] CASES_FILE_OR_DIR..." >&2
  exit 2
}
die() {
  echo "bad_input: $*" >&2
  exit 2
}

gridlock=""
bench=""
data=""
jobs=2
case_timeout=20
while [ $# -gt 0 ]; do
  case "$1" in
    --gridlock | --bench | --data | --jobs | --timeout)
      [ $# -ge 2 ] || usage
      opt=$1 value=$2
      shift 2
      ;;
    --gridlock=* | --bench=* | --data=* | --jobs=* | --timeout=*)
      opt=${1%%=*} value=${1#*=}
      shift
      ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
  case "$opt" in
    --gridlock) gridlock=$value ;;
    --bench) bench=$value ;;
    --data) data=$value ;;
    --jobs) jobs=$value ;;
    --timeout) case_timeout=$value ;;
  esac
done
[ $# -gt 0 ] || usage
[[ -n $gridlock && -x $gridlock ]] || die "--gridlock '$gridlock' is not an executable"
[ -z "$bench" ] || [ -x "$bench" ] || die "--bench '$bench' is not an executable (give --bench '' to skip its cases)"
[[ -n $data && -d $data ]] || die "--data '$data' is not a directory"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': give a positive number of parallel cases"
[[ $case_timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout '$case_timeout': give a positive number of seconds"
gridlock=$(realpath -- "$gridlock")
[ -z "$bench" ] || bench=$(realpath -- "$bench")
data=$(realpath -- "$data")
# Paths in the report are relative to the source tree, as a reader finds them.
root=$(cd "$(dirname "$0")/../../.." && pwd)

files=()
for arg in "$@"; do
  if [ -d "$arg" ]; then
    for f in "$arg"/*.cases; do
      [ -f "$f" ] && files+=("$f")
    done
  elif [ -f "$arg" ]; then
    files+=("$arg")
  else
    die "'$arg' is neither a cases file nor a directory"
  fi
done
[ ${#files[@]} -gt 0 ] || die "no *.cases file in: $*"

# Read every case first: where (file:line), expected code, regex, command; a line that does not
# split into three parts is a failing case of its own (it would otherwise silently test nothing).
where=()
expect=()
regex=()
command=()
malformed=()
for f in "${files[@]}"; do
  shown=$(realpath -- "$f")
  shown=${shown#"$root"/}
  lineno=0
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    line=${line%$'\r'}
    trimmed=${line#"${line%%[![:space:]]*}"}
    if [ -z "$trimmed" ] || [ "${trimmed:0:1}" = "#" ]; then
      continue
    fi
    where+=("$shown:$lineno")
    code=${line%% | *}
    code=${code//[[:space:]]/}
    rest=${line#* | }
    if [[ $line != *" | "*" | "* ]] || ! [[ $code =~ ^[0-9]+$ ]]; then
      malformed+=(1)
      expect+=("")
      regex+=("")
      command+=("$line")
      continue
    fi
    malformed+=(0)
    expect+=("$code")
    regex+=("${rest%% | *}")
    command+=("${rest#* | }")
  done <"$f"
done
total=${#where[@]}
[ "$total" -gt 0 ] || die "no cases in: ${files[*]}"

# A crash is a failed case, not a core file.
ulimit -c 0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gridlock-bad-input.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work" "$tmp/out" "$tmp/result"

# Runs case $1 and writes its verdict to $tmp/result/$1: "pass", "skip", or "fail" and then the
# exit code and the reasons, one per line.
run_case() {
  local i=$1
  local result="$tmp/result/$i"
  if [ "${malformed[i]}" = 1 ]; then
    printf 'fail\n-\nmalformed case: want "<exit code> | <regex> | <command>"\n' >"$result"
    return
  fi
  local cmd=${command[i]} expected=${expect[i]} pattern=${regex[i]}
  if [ -z "$bench" ] && [[ $cmd == *GRIDLOCK_BENCH* ]]; then
    echo skip >"$result"
    return
  fi
  local dir="$tmp/work/$i" err="$tmp/out/$i.err"
  mkdir "$dir"
  local start=$EPOCHREALTIME
  (
    cd "$dir" || exit 126
    export WORK=$dir GRIDLOCK=$gridlock GRIDLOCK_BENCH=$bench DATA=$data
    # Not exec'd: bash reports a signal's death ("Segmentation fault") into the case's stderr.
    timeout -k 2 "$case_timeout" bash -c "$cmd"
  ) </dev/null >"$tmp/out/$i.out" 2>"$err"
  local rc=$?
  local end=$EPOCHREALTIME
  local reasons=()
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    reasons+=("timed out after $case_timeout s")
  elif [ "$rc" -gt 128 ]; then
    reasons+=("killed by signal $((rc - 128))")
  elif [ "$rc" -ge 124 ]; then
    reasons+=("the command could not run (exit $rc)")
  elif [ "$rc" -ne "$expected" ]; then
    reasons+=("exit code $rc, expected $expected")
  fi
  # An empty stderr is one empty line, so that /^$/ can ask for silence.
  if [ -s "$err" ]; then
    grep -Eq -- "$pattern" "$err"
  else
    echo | grep -Eq -- "$pattern"
  fi
  case $? in
    0) ;;
    1) reasons+=("stderr does not match /$pattern/") ;;
    *) reasons+=("bad regex /$pattern/ (grep -E refuses it)") ;;
  esac
  if grep -Eq 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|runtime error:' "$err"; then
    reasons+=("stderr holds a sanitizer report")
  fi
  if [ "$expected" != 70 ] && grep -q 'internal error' "$err"; then
    reasons+=("stderr says 'internal error' (a bug in gridlock, not a bad input)")
  fi
  local ms=$(((${end//[.,]/} - ${start//[.,]/}) / 1000))
  if [ ${#reasons[@]} -eq 0 ]; then
    printf 'pass\n%s\n' "$ms" >"$result"
  else
    {
      echo fail
      echo "$rc"
      printf '%s\n' "${reasons[@]}"
    } >"$result"
  fi
  rm -rf "$dir"
}

started=$EPOCHREALTIME
for ((i = 0; i < total; i++)); do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n
  done
  run_case "$i" &
done
wait
finished=$EPOCHREALTIME

failed=0
skipped=0
slow=()
for ((i = 0; i < total; i++)); do
  result="$tmp/result/$i"
  verdict=$(head -n 1 "$result" 2>/dev/null || echo lost)
  case "$verdict" in
    pass)
      ms=$(sed -n 2p "$result")
      [ "${ms:-0}" -lt 2000 ] || slow+=("${where[i]} ($((ms / 1000)).$(((ms % 1000) / 100)) s)")
      ;;
    skip) skipped=$((skipped + 1)) ;;
    *)
      failed=$((failed + 1))
      echo "FAIL ${where[i]}: ${command[i]}"
      if [ "$verdict" = fail ]; then
        if [ "${malformed[i]}" = 0 ]; then
          echo "  expected exit ${expect[i]} and stderr /${regex[i]}/; got exit $(sed -n 2p "$result"):"
        fi
        sed -n '3,$p' "$result" | sed 's/^/  - /'
      else
        echo "  the case left no result (the runner was interrupted?)"
      fi
      if [ -s "$tmp/out/$i.err" ]; then
        echo "  stderr (first lines):"
        head -n 6 "$tmp/out/$i.err" | cut -c1-300 | sed 's/^/  | /'
      fi
      ;;
  esac
done
if [ ${#slow[@]} -gt 0 ]; then
  echo "note: ${#slow[@]} case(s) took 2 s or more (keep each well under 2 s): ${slow[*]}"
fi
elapsed=$(((${finished//[.,]/} - ${started//[.,]/}) / 1000))
echo "$total cases, $failed failed, $skipped skipped in $((elapsed / 1000)).$(((elapsed % 1000) / 100)) s"
[ "$failed" -eq 0 ]
