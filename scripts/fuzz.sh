#!/usr/bin/env bash
# Builds a libFuzzer target with clang (ASan + UBSan) and fuzzes it for a while.
# Usage: scripts/fuzz.sh [seconds=600] [frontend|rpu_asm|rpu_compile]   (outside the default test run)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
target=${2:-frontend}
build_dir=$here/build-fuzz
cmake -G Ninja -S "$here" -B "$build_dir" -DPASSLAB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build_dir" --target "${target}_fuzz"
corpus=$build_dir/corpus_$target
mkdir -p "$corpus"
case $target in
  rpu_asm)
    dict=$here/tests/fuzz/rpu_asm.dict
    # Seeds: what the compiler makes of the RPU samples.
    for f in "$here"/samples/rpu/*.sl; do
      "$here"/build/app/cli/passlab-cli rpu compile "$f" -o "$corpus/$(basename "$f" .sl).s" >/dev/null 2>&1 || true
    done
    rm -f "$corpus"/*.epts ;;
  rpu_compile)
    dict=$here/tests/fuzz/rsl.dict
    cp -n "$here"/samples/rpu/*.sl "$here"/resources/rpu/runtime.sl "$here"/tests/data/rsl/*.sl "$corpus"/ 2>/dev/null || true ;;
  *)
    dict=$here/tests/fuzz/rsl.dict
    cp -n "$here"/samples/shaders/*.sl "$here"/samples/lights/*.sl "$here"/tests/data/rsl/*.sl "$corpus"/ 2>/dev/null || true ;;
esac
cd "$build_dir"
exec ./tests/fuzz/"${target}"_fuzz -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
  -dict="$dict" -artifact_prefix="$build_dir/${target}-" \
  -print_final_stats=1 "$corpus"
