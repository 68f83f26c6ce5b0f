#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Starts the Studio under Xvfb and saves a screenshot of every panel to docs/screenshots/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
out=${1:-$here/docs/screenshots}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
xvfb-run -a -s "-screen 0 1920x1200x24" "$build_dir/app/studio/passlab" --screenshots "$out" \
  "$here/samples/shaders/bowling_pin.sl"
ls "$out"
