#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up, configures and builds Passlab with Ninja into build/, or PASSLAB_BUILD_DIR (extra cmake
# arguments are passed through). Every build folder gets the fetched dependencies (grammars, the
# bunny) in its own _deps: scripts/setup.sh does nothing where they are present.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
PASSLAB_BUILD_DIR=$build_dir "$here/scripts/setup.sh"
args=(-G Ninja -S "$here" -B "$build_dir")
[ "${CI:-}" = "true" ] && args+=(-DPASSLAB_WERROR=ON)
cmake "${args[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
