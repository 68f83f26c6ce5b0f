#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up, builds and runs every test suite (the README's test command; .ci/run calls it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh" "$@"
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
