#!/usr/bin/env bash
# Configures and builds Passlab with Ninja into build/ (extra cmake arguments are passed through).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
args=(-G Ninja -S "$here" -B "$build_dir")
[ "${CI:-}" = "true" ] && args+=(-DPASSLAB_WERROR=ON)
cmake "${args[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
