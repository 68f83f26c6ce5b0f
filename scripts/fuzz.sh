#!/usr/bin/env bash
# Builds the libFuzzer target with clang (ASan + UBSan) and fuzzes the front end for a while.
# Usage: scripts/fuzz.sh [seconds=600]   (outside the default test run)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
build_dir=$here/build-fuzz
cmake -G Ninja -S "$here" -B "$build_dir" -DPASSLAB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build_dir" --target frontend_fuzz
corpus=$build_dir/corpus
mkdir -p "$corpus"
cp -n "$here"/samples/shaders/*.sl "$here"/samples/lights/*.sl "$corpus"/ 2>/dev/null || true
cd "$build_dir"
exec ./tests/fuzz/frontend_fuzz -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
  -dict="$here/tests/fuzz/rsl.dict" -artifact_prefix="$build_dir/" \
  -print_final_stats=1 "$corpus"
