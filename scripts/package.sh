#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds Passlab's .deb, checks it (lintian, desktop-file-validate, appstreamcli) and tests the
# installed product: the package unpacked into a temporary root, run with the source and build
# trees hidden (a private mount namespace lays an empty folder over them), so nothing can come from
# them. Outside the default test run.
#
#   scripts/package.sh              build, check, test; the .deb is left in build-package/
#   PASSLAB_PACKAGE_BUILD_DIR=DIR   build elsewhere
#   PASSLAB_DPKG_INSTALL=1          also `apt-get install` the .deb on this machine (root), test
#                                   /usr/bin/passlab-cli, and remove the package again
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${PASSLAB_PACKAGE_BUILD_DIR:-$here/build-package}
say() { printf '\npackage: %s\n' "$*"; }

# What a fresh Debian 12 machine needs: the build's own set-up (into this build folder, so the
# grammars and the bunny land beside the package build), then the packaging tools.
PASSLAB_BUILD_DIR=$build_dir bash "$here/scripts/setup.sh"
tools=(lintian desktop-file-utils appstream dpkg-dev help2man xvfb xauth util-linux)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

say "building in $build_dir (Release, with Debian's hardening flags)"
# dpkg-buildflags: -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2, relro and now-binding.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS)
CFLAGS="$(dpkg-buildflags --get CFLAGS) $CPPFLAGS"; CXXFLAGS="$(dpkg-buildflags --get CXXFLAGS) $CPPFLAGS"
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CFLAGS CXXFLAGS LDFLAGS
# Passed explicitly: CMake reads the environment's flags only when it first configures a folder.
cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPASSLAB_TESTS=OFF -DPASSLAB_BENCH=OFF \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS" >/dev/null
cmake --build "$build_dir" --target passlab passlab-cli passlab_docs
rm -f "$build_dir"/passlab_*.deb
(cd "$build_dir" && cpack -G DEB >/dev/null)
deb=$(ls "$build_dir"/passlab_*.deb)
say "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends

say "desktop-file-validate"
desktop-file-validate "$here/packaging/org.passlab.Passlab.desktop" && echo "no problems"
say "appstreamcli validate"
appstreamcli validate --no-net --explain "$build_dir/packaging/org.passlab.Passlab.metainfo.xml"
say "lintian"
lintian_out=$(lintian --info --display-info --no-tag-display-limit "$deb" 2>&1 || true)
echo "${lintian_out:-no tags}"
if grep -q '^E: ' <<<"$lintian_out"; then echo "package: lintian reports errors" >&2; exit 1; fi

# The installed product, away from the source: unpack, then run it in a mount namespace where
# the source tree (and the build folder, if elsewhere) are empty.
root=$(mktemp -d /tmp/passlab-root.XXXXXX)
work=$(mktemp -d /tmp/passlab-installed-test.XXXXXX)
trap 'rm -rf "$root" "$work"' EXIT
dpkg-deb -x "$deb" "$root"
say "unpacked into $root; testing it with $here hidden"
cat > "$work/test_installed.sh" <<'TEST'
#!/usr/bin/env bash
# Runs inside the namespace: the installed programs on the installed samples.
set -euo pipefail
root=$1; work=$2; hidden=$3
fail() { echo "installed-product test: $*" >&2; exit 1; }
[ -z "$(ls -A "$hidden")" ] || fail "the source tree is still visible"
bin=$root/usr/bin; share=$root/usr/share/passlab
export XDG_RUNTIME_DIR=$work/xdg; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
export HOME=$work/home; mkdir -p "$HOME"
unset PASSLAB_DATA_DIR

"$bin/passlab-cli" --version
# The presets and the samples come from share/passlab beside bin/.
"$bin/passlab-cli" partition "$share/samples/shaders/wood.sl" --target PC5 --algo rds > "$work/partition.txt" \
  || fail "partition of the installed wood.sl on the installed PC5 preset"
grep -q "passes" "$work/partition.txt" || fail "partition printed no passes"
head -3 "$work/partition.txt"
"$bin/passlab-cli" render "$share/samples/shaders/bowling_pin.sl" --scene "$share/samples/scenes/bowling_pin.json" \
  --target PC5 --store fbuffer --size 64x64 --output "$work/pin.png" || fail "render of the installed bowling-pin scene"
[ -s "$work/pin.png" ] || fail "render wrote no image"
echo "rendered $work/pin.png"
# The RPU: its machine preset and runtime library from share/passlab/rpu, the bunny from deps/.
"$bin/passlab-cli" rpu render "$share/samples/rpu/ceramic.sl" --scene "$share/samples/scenes/rpu_bunny.json" --size 32x32 \
  --output "$work/bunny.png" > /dev/null || fail "RPU render of the installed bunny scene"
echo "rendered $work/bunny.png on the RPU"
# A relocated install works: the same files under another prefix.
mkdir -p "$work/elsewhere" && cp -a "$root/usr/." "$work/elsewhere/"
"$work/elsewhere/bin/passlab-cli" partition "$work/elsewhere/share/passlab/samples/shaders/wood.sl" --target PC2 > /dev/null \
  || fail "the relocated install"
echo "relocated install: ok"
# A wrong PASSLAB_DATA_DIR is named in the diagnostic.
if PASSLAB_DATA_DIR=$work/none "$bin/passlab-cli" partition "$share/samples/shaders/wood.sl" --target PC5 > "$work/bad.txt" 2>&1; then
  fail "a missing data folder went unnoticed"
fi
grep -q "$work/none" "$work/bad.txt" || fail "the diagnostic does not name the data folder: $(cat "$work/bad.txt")"
echo "missing data folder: $(head -1 "$work/bad.txt")"
# The Studio, on its default sample (found in share/passlab), under Xvfb.
out=$(xvfb-run -a -s "-screen 0 1600x1000x24" "$bin/passlab" --startup-time 2>"$work/studio.err") \
  || fail "the installed Studio did not start: $(tail -5 "$work/studio.err")"
echo "$out"
grep -q "usable window after" <<<"$out" || fail "the Studio printed no startup time"
out=$(xvfb-run -a -s "-screen 0 1600x1000x24" "$bin/passlab" --startup-time "$share/samples/shaders/wood.sl" 2>>"$work/studio.err") \
  || fail "the installed Studio on wood.sl"
echo "wood.sl: $out"
TEST
chmod +x "$work/test_installed.sh"
hide=("$here")
case "$build_dir" in "$here"/*) ;; *) hide+=("$build_dir") ;; esac
mounts=""
for d in "${hide[@]}"; do mounts+="mount -t tmpfs passlab-hidden '$d' && "; done
ns=(unshare --mount --propagation private)
[ "$(id -u)" -ne 0 ] && ns=(unshare --mount --map-root-user --propagation private)
"${ns[@]}" bash -c "${mounts} '$work/test_installed.sh' '$root' '$work' '$here'"

if [ "${PASSLAB_DPKG_INSTALL:-0}" = 1 ]; then
  say "apt-get install $(basename "$deb")"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
  /usr/bin/passlab-cli partition /usr/share/passlab/samples/shaders/wood.sl --target PC5 | head -2
  man -w passlab-cli passlab
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq passlab >/dev/null
fi
say "ok: $deb"
