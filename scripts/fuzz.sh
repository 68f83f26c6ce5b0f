#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/ and fuzzes one of them, or
# each in turn, for a while (outside the default test run; CI runs every target briefly and repeatably as a smoke test).
# Usage: scripts/fuzz.sh [seconds=600] [target|all]
#   targets: frontend rpu_asm rpu_compile combiners scene mesh target rpu_machine project
# The corpus of each target grows in build-fuzz/corpus_<target>, seeded from the samples; a
# finding is saved as build-fuzz/<target>-crash-... (reproduce: build-fuzz/tests/fuzz/<target>_fuzz FILE).
# PASSLAB_FUZZ_RUNS=N stops each target after N inputs, and PASSLAB_FUZZ_SEED=S fixes libFuzzer's
# random seed: together they make a run nearly repeatable (CI's smoke): the same mutations from
# the same corpus, up to small differences in coverage feedback between runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
which=${2:-frontend}
all=(frontend rpu_asm rpu_compile combiners scene mesh target rpu_machine project)
build_dir=${PASSLAB_FUZZ_BUILD_DIR:-$here/build-fuzz}
if [ "$which" = all ]; then targets=("${all[@]}"); else targets=("$which"); fi
build=("${targets[@]/%/_fuzz}")
[[ " ${targets[*]} " == *" rpu_asm "* ]] && build+=(passlab-cli)  # its seeds are the samples compiled
# Several fuzz.sh runs may share a build folder (one target each, on a machine's cores): they set
# up and build it one at a time.
mkdir -p "$build_dir"
(
  flock 9
  PASSLAB_BUILD_DIR=$build_dir "$here/scripts/setup.sh"
  cmake -G Ninja -S "$here" -B "$build_dir" -DPASSLAB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  cmake --build "$build_dir" --target "${build[@]}"
) 9>"$build_dir/.fuzz-build.lock"

# Seeds for one target's corpus folder.
seed() {
  local target=$1 corpus=$2 f
  case $target in
    rpu_asm)
      # What the compiler makes of the RPU samples (the fuzz build's own compiler, so no other build is needed).
      for f in "$here"/samples/rpu/*.sl; do
        "$build_dir/app/cli/passlab-cli" rpu compile "$f" -o "$corpus/$(basename "$f" .sl).s" >/dev/null 2>&1 || true
      done
      rm -f "$corpus"/*.epts ;;
    rpu_compile) cp -n "$here"/samples/rpu/*.sl "$here"/resources/rpu/runtime.sl "$here"/tests/data/rsl/*.sl "$corpus"/ 2>/dev/null || true ;;
    combiners) cp -n "$here"/samples/combiners/*.sl "$here"/samples/shaders/*.sl "$here"/tests/data/conformance/combiners_*.sl "$corpus"/ 2>/dev/null || true ;;
    scene) cp -n "$here"/samples/scenes/*.json "$here"/resources/conform/*.json "$corpus"/ ;;
    mesh)
      # The fuzzer reads the first byte as the format (mesh_fuzz.cpp's list), the rest as the file.
      local -A index=([obj]=0 [ply]=1 [gltf]=2 [glb]=3 [stl]=4 [off]=5)
      for f in "$here"/tests/fuzz/seeds/mesh/*; do
        { printf "\\x0$(printf %o "${index[${f##*.}]}")"; cat "$f"; } > "$corpus/$(basename "$f")"
      done ;;
    target) cp -n "$here"/resources/targets/*.json "$corpus"/ ;;
    rpu_machine) cp -n "$here"/resources/rpu/*.json "$corpus"/ ;;
    project) ;;  # its seeds are all in tests/fuzz/seeds/project
    *) cp -n "$here"/samples/shaders/*.sl "$here"/samples/lights/*.sl "$here"/tests/data/rsl/*.sl "$corpus"/ 2>/dev/null || true ;;
  esac
  # Inputs that once found a problem stay in the corpus (tests/fuzz/seeds/<target>/).
  if [ "$target" != mesh ] && [ -d "$here/tests/fuzz/seeds/$target" ]; then cp -n "$here/tests/fuzz/seeds/$target"/* "$corpus"/; fi
}

# Third-party leaks (Graphviz) are not findings: the test suites' suppressions.
export LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan.supp:print_suppressions=0
status=0
for target in "${targets[@]}"; do
  corpus=$build_dir/corpus_$target
  mkdir -p "$corpus"
  seed "$target" "$corpus"
  case $target in
    rpu_asm) dict=$here/tests/fuzz/rpu_asm.dict ;;
    scene | target | rpu_machine | project) dict=$here/tests/fuzz/json.dict ;;
    mesh) dict=$here/tests/fuzz/mesh.dict ;;
    *) dict=$here/tests/fuzz/rsl.dict ;;
  esac
  max_len=8192
  [ "$target" = mesh ] && max_len=65536
  log=$build_dir/fuzz_$target.log
  echo "fuzz: $target for $seconds s (log: $log)"
  repeatable=()
  [ -n "${PASSLAB_FUZZ_RUNS:-}" ] && repeatable+=(-runs="$PASSLAB_FUZZ_RUNS")
  [ -n "${PASSLAB_FUZZ_SEED:-}" ] && repeatable+=(-seed="$PASSLAB_FUZZ_SEED")
  if (cd "$build_dir" && ./tests/fuzz/"${target}"_fuzz -max_total_time="$seconds" -max_len=$max_len -timeout=20 "${repeatable[@]}" \
        -rss_limit_mb=4096 -dict="$dict" -artifact_prefix="$build_dir/${target}-" -print_final_stats=1 "$corpus") >"$log" 2>&1; then
    # The last status line (runs, coverage, features, corpus) and the run count.
    grep -E '^#[0-9]+' "$log" | tail -1
    grep -E '^stat::number_of_executed_units' "$log" || true
  else
    status=1
    echo "fuzz: $target FOUND A PROBLEM:"
    grep -E 'ERROR|SUMMARY|Test unit written|Slowest unit|==[0-9]+==' "$log" | head -20
  fi
done
exit $status
