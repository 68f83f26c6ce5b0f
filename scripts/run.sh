#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job: set up, build, and open the Studio on the default sample; where there is no
# display, print the headless report of the same sample instead.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/build.sh"
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
shader=${1:-$here/samples/shaders/bowling_pin.sl}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$build_dir/app/studio/passlab" ]; then
  exec "$build_dir/app/studio/passlab" "$shader"
fi
echo "run: no display; printing the headless report (the Studio needs DISPLAY or WAYLAND_DISPLAY)" >&2
exec "$build_dir/app/cli/passlab-cli" report "$shader"
