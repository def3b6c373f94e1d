#!/usr/bin/env bash
# Builds the Debian package from a built tree (cpack -G DEB), installs it with apt-get, runs the
# installed tools and man pages, and removes it again (issue 28; docs/install.md). Needs root (CI).
#   scripts/deb-check.sh [BUILD_DIR=build/ci]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath -- "${1:-build/ci}")
[ -f "$build/CPackConfig.cmake" ] || { echo "deb-check: '$build' has no CPack configuration" >&2; exit 2; }
fail() { echo "deb-check: FAILED: $*" >&2; exit 1; }
# shellcheck source=/dev/null
source scripts/mpi-env.sh
if dpkg-query -W -f='${Status}' gridlock 2>/dev/null | grep -q "install ok installed"; then
  fail "a gridlock package is already installed; remove it first (apt-get remove gridlock)"
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
rm -f "$build"/gridlock_*.deb
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { tail -20 "$build/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$build"/gridlock_*.deb)
info=$(dpkg-deb -I "$deb")
sed -n '/Package:/,/Description:/p' <<<"$info" >&2
grep -q "^ Depends:.*libfmt" <<<"$info" || fail "the package does not depend on fmt's run-time library"
remove() { $sudo apt-get remove -y -q gridlock >/dev/null 2>&1 || true; }
trap remove EXIT
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$deb" >"$build/apt.log" 2>&1 ||
  { tail -20 "$build/apt.log" >&2; fail "apt-get install $deb"; }
[ "$(command -v gridlock)" = /usr/bin/gridlock ] || fail "gridlock is not /usr/bin/gridlock"
gridlock version | grep -q "^gridlock " || fail "installed gridlock version"
gridlock sim /usr/share/doc/gridlock/examples/sim/pingpong.goal -q >/dev/null || fail "installed gridlock sim"
[ -f /usr/share/gridlock/systems/crystal.json ] || fail "system presets not installed"
gridlock predict systems | grep -q '^crystal ' || fail "installed gridlock predict systems"
# gridlock report reads Chart.js from libjs-chart.js, a dependency of the package.
gridlock sim /usr/share/doc/gridlock/examples/sim/pingpong.goal -q --json "$build/deb-sim.json" >/dev/null &&
  gridlock report -q "$build/deb-sim.json" -o "$build/deb-report.html" || fail "installed gridlock report"
gridlock-bench --version | grep -q "^gridlock-bench " || fail "installed gridlock-bench --version"
[ -f /usr/share/man/man1/gridlock-bench-load.1 ] || fail "man page gridlock-bench-load.1 not installed"
[ -f /usr/share/bash-completion/completions/gridlock ] || fail "bash completion not installed"
[ -f /usr/lib/cmake/gridlock/gridlockConfig.cmake ] || fail "CMake package not installed"
echo "deb-check: $(basename "$deb") installs with apt-get, runs, and is removed again"
