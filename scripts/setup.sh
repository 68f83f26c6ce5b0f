#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs everything a fresh Debian 12 machine needs to build, test and run Passlab (idempotent).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${PASSLAB_BUILD_DIR:-$here/build}

packages=(
  build-essential cmake ninja-build pkg-config git clang libclang-rt-14-dev
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libqscintilla2-qt6-dev
  libgraphviz-dev graphviz libtree-sitter-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev libpng-dev libassimp-dev
  xvfb xauth help2man
  libegl-dev libopengl-dev libegl-mesa0 libgl1-mesa-dri
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm fetches the grammars; a machine whose Node.js already ships npm must not get Debian's npm.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Tree-sitter grammars: published npm packages that ship a generated src/parser.c (ABI 14).
# They are unpacked into the build tree, never committed.
grammars=(tree-sitter-c@0.23.6 tree-sitter-glsl@0.2.0)
grammar_dir=$build_dir/_deps/grammars
mkdir -p "$grammar_dir"
# A second build folder (build-asan, build-fuzz…) copies what another build folder of this checkout
# already fetched at the same version instead of fetching it again: copy_fetched DIR-UNDER-_deps PACKAGE@VERSION.
copy_fetched() {
  local sub=$1 want=$2 other
  for other in "$here"/build*/_deps/"$sub"; do
    [ "$other" != "$build_dir/_deps/$sub" ] && [ "$(cat "$other/.version" 2>/dev/null)" = "$want" ] || continue
    rm -rf "${build_dir:?}/_deps/$sub"
    mkdir -p "$(dirname "$build_dir/_deps/$sub")"
    cp -a "$other" "$build_dir/_deps/$sub"
    echo "setup: $want copied from $other"
    return 0
  done
  return 1
}
for g in "${grammars[@]}"; do
  name=${g%@*}
  stamp=$grammar_dir/$name/.version
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$g" ]; then continue; fi
  copy_fetched "grammars/$name" "$g" && continue
  echo "setup: fetching $g"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$g" >/dev/null)
  rm -rf "${grammar_dir:?}/$name"
  mkdir -p "$grammar_dir/$name"
  tar -xzf "$tmp"/*.tgz -C "$grammar_dir/$name" --strip-components=1
  rm -rf "$tmp"
  echo "$g" > "$stamp"
done
# The Stanford bunny of the RPU's result images (thesis ch. 12): the npm package `bunny` (public
# domain) ships it as JavaScript arrays; node writes it out as an OBJ file beside them.
bunny=bunny@1.0.1
bunny_dir=$build_dir/_deps/bunny
if { [ ! -f "$bunny_dir/bunny.obj" ] || [ "$(cat "$bunny_dir/.version" 2>/dev/null)" != "$bunny" ]; } &&
   ! copy_fetched bunny "$bunny"; then
  echo "setup: fetching $bunny"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$bunny" >/dev/null)
  rm -rf "$bunny_dir"
  mkdir -p "$bunny_dir"
  tar -xzf "$tmp"/*.tgz -C "$bunny_dir" --strip-components=1
  rm -rf "$tmp"
  node -e '
    const b = require(process.argv[1]);
    let out = "# The Stanford bunny, from the npm package bunny@1.0.1 (public domain)\n";
    for (const p of b.positions) out += "v " + p.join(" ") + "\n";
    for (const c of b.cells) out += "f " + c.map((i) => i + 1).join(" ") + "\n";
    process.stdout.write(out);' "$bunny_dir/index.js" > "$bunny_dir/bunny.obj.tmp"
  mv "$bunny_dir/bunny.obj.tmp" "$bunny_dir/bunny.obj"
  echo "$bunny" > "$bunny_dir/.version"
fi
echo "setup: done"
