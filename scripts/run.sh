#!/usr/bin/env bash
# The main job: set up, build, and print the headless report on the default sample.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh"
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
exec "$build_dir/app/cli/passlab-cli" report "${1:-$here/samples/shaders/bowling_pin.sl}"
