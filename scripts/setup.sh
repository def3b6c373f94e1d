#!/usr/bin/env bash
# Installs every gridlock dependency from Debian packages and builds one preset.
# Usage: scripts/setup.sh [--deps-only] [PRESET]     (PRESET defaults to "release")
set -euo pipefail
cd "$(dirname "$0")/.."

deps_only=0
preset=release
for arg in "$@"; do
  case "$arg" in
    --deps-only) deps_only=1 ;;
    -h|--help) sed -n '2,3p' "$0"; exit 0 ;;
    *) preset="$arg" ;;
  esac
done

packages=(
  build-essential cmake ninja-build git pkg-config lld
  openmpi-bin libopenmpi-dev
  mpich libmpich-dev
  libsimgrid-dev jq
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libopen-trace-format2-dev otf2-tools
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libmicrohttpd-dev libhwloc-dev
  libscotch-dev libsqlite3-dev zlib1g-dev libbz2-dev liblzma-dev libeigen3-dev
  clang clang-format clang-tidy libclang-rt-14-dev ccache
  groff-base
  libjs-chart.js chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${packages[@]}"
else
  echo "setup: all Debian packages already installed" >&2
fi

if ((deps_only)); then
  exit 0
fi
echo "setup: building preset '$preset'" >&2
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
