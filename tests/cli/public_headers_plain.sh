#!/usr/bin/env bash
# The header rule (DEVELOPERS.md): every public header not listed in json_headers.txt is plain:
# it names no nlohmann, fmt or <x86intrin.h>, and includes no listed (JSON) header.
# Also fails if the list names a header that does not exist (a stale list hides nothing).
# Usage: public_headers_plain.sh INCLUDE_DIR JSON_HEADERS_TXT
set -euo pipefail
inc="$(realpath "$1")"
list="$2"
fail=0
mapfile -t json < <(grep -v '^[[:space:]]*\(#\|$\)' "$list")
for h in "${json[@]}"; do
  [ -f "$inc/$h" ] || { echo "FAIL: $list names $h, which is not in $inc" >&2; fail=1; }
done
is_json() {
  local x
  for x in "${json[@]}"; do [ "$x" = "$1" ] && return 0; done
  return 1
}
plain=0
while IFS= read -r path; do
  rel="${path#"$inc"/}"
  is_json "$rel" && continue
  plain=$((plain + 1))
  if grep -nE 'nlohmann|[<"]fmt/|x86intrin|\bJson\b' "$path"; then
    echo "FAIL: $rel is a plain header but uses nlohmann, fmt or x86intrin (move it to a *_json.hpp or src/)" >&2
    fail=1
  fi
  while IFS= read -r included; do
    if is_json "$included"; then
      echo "FAIL: $rel is a plain header but includes the JSON header $included" >&2
      fail=1
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"(gridlock\/[^"]+)".*/\1/p' "$path")
done < <(find "$inc/gridlock" -name '*.hpp' | sort)
[ "$plain" -gt 0 ] || { echo "FAIL: no plain headers found under $inc" >&2; exit 1; }
[ "$fail" -eq 0 ] || exit 1
echo "OK: $plain plain public headers, ${#json[@]} JSON headers"
