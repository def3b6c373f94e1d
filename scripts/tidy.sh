#!/usr/bin/env bash
# clang-tidy with every check of .clang-tidy, the Clang static analyzer included, on every library,
# tool and test source (tests/.clang-tidy leaves the analyzer out for the tests). CI runs the
# analyzer only on sources changed in the last 20 commits of main (scripts/test.sh, step clang-tidy);
# run this before a release or after a change to a widely included header.
#   scripts/tidy.sh [BUILD_DIR=build/tidy]   (a configured tree: its compile_commands.json; the
#   default is configured here with `cmake --preset tidy`, the ci tree's flags source by source: the
#   ci tree is a unity build, whose compile commands name the unity sources, not ours)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/tidy}
if [ -z "${1:-}" ]; then
  cmake --preset tidy >/dev/null
fi
[ -f "$build/compile_commands.json" ] || { echo "tidy.sh: configure $build first (cmake --preset tidy)" >&2; exit 2; }
mapfile -t files < <(git ls-files 'src/*.cpp' 'apps/*.cpp' 'tests/*.cpp')
run-clang-tidy-14 -quiet -p "$build" -j "$(nproc)" "${files[@]}"
