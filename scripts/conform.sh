#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A long conformance run, outside the default tests (docs/conformance.md): for MINUTES minutes,
# semantics-preserving transformations of every sample, then generated programs of every
# family, each through every backend (or only the named ones: ir, fragment, combiners, rpu,
# decoupled) against the reference interpreter, one program per core at a time. Failures are
# reduced and saved under build/conformance/<date>/ with the seed or transformation they came from.
# Prints programs per second, the share of programs each backend accepted, and the failures.
# Usage: scripts/conform.sh [minutes=10] [backend...]
# PASSLAB_CONFORM_PROGRAMS=N runs N generated programs in all instead of a time budget (the closing run of
# the conformance issue: 100,000); PASSLAB_CONFORM_SEED=S repeats a run's seed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-10}
shift || true
only=$(IFS=,; echo "$*")
build_dir=${PASSLAB_BUILD_DIR:-$here/build}
"$here/scripts/build.sh" >/dev/null
cli=$build_dir/app/cli/passlab-cli
out=$build_dir/conformance/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
jobs=$(nproc)
args=(--reduce --save "$out" --jobs "$jobs" --timeout 120)
[ -n "$only" ] && args+=(--only "$only")
# The seed of this run's generated programs: different every run, printed so it can be repeated.
seed=${PASSLAB_CONFORM_SEED:-$(( $(date +%s) % 1000000000 ))}
budget=(--minutes "$minutes") what="$minutes minutes"
if [ -n "${PASSLAB_CONFORM_PROGRAMS:-}" ]; then
  # --generate counts programs per family (three families).
  budget=(--generate $(( (PASSLAB_CONFORM_PROGRAMS + 2) / 3 ))) what="$PASSLAB_CONFORM_PROGRAMS generated programs"
fi
echo "conform: $what on $jobs cores, generated programs from seed $seed; failures go to $out"
status=0
# Every sample, as it is and in 20 transformed versions (a few minutes at most).
samples=("$here"/samples/shaders/*.sl "$here"/samples/combiners/*.sl "$here"/samples/rpu/*.sl)
"$cli" conform "${samples[@]}" --transforms 20 --seed "$seed" "${args[@]}" | tee "$out/samples.txt" || status=1
# Generated programs for the rest of the time.
start=$(date +%s)
"$cli" conform "${budget[@]}" --seed "$seed" --progress 1000 "${args[@]}" | tee "$out/generated.txt" || status=1
echo "took $(( $(date +%s) - start )) s; reports in $out"
exit $status
