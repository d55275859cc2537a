#!/usr/bin/env bash
# Runs `gpuprobe all --json` from an earlier build and from this tree, alternately, and compares
# them with `gpuprobe compare --fail-on-regression PCT`: a restructuring must not move numbers.
# Usage: scripts/before-after.sh BEFORE_DIR [PCT] [ROUNDS]
#   BEFORE_DIR: the earlier source tree (e.g. `git archive <rev> | tar -x -C .before`), built
#   here into BEFORE_DIR/build; this tree must already be built in ./build (scripts/gpu-check.sh).
# Results in $OUT (default /tmp/gpuprobe-out): before-N.json, after-N.json, compare-N.txt.
set -uo pipefail
OUT=${OUT:-/tmp/gpuprobe-out}
before=$1
pct=${2:-3}
rounds=${3:-2}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
rev=$(cat "$before/.git-rev" 2>/dev/null || echo before)
cmake -S "$before" -B "$before/build" -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
  -DGPUPROBE_BUILD_TESTS=OFF -DGPUPROBE_GIT="$rev" >"$OUT/before-build.log" 2>&1 &&
  cmake --build "$before/build" -j16 >>"$OUT/before-build.log" 2>&1 || { tail -20 "$OUT/before-build.log"; exit 1; }
status=0
for i in $(seq 1 "$rounds"); do
  "$before/build/gpuprobe" all --json "$OUT/before-$i.json" --no-color >"$OUT/before-$i.txt" 2>&1
  ./build/gpuprobe all --json "$OUT/after-$i.json" --no-color >"$OUT/after-$i.txt" 2>&1
  ./build/gpuprobe --no-color compare "$OUT/before-$i.json" "$OUT/after-$i.json" \
    --fail-on-regression "$pct" >"$OUT/compare-$i.txt" 2>&1
  rc=$?
  echo "round $i: compare --fail-on-regression $pct -> exit $rc; $(grep -E 'matched rows|regression' "$OUT/compare-$i.txt" | head -3 | tr '\n' ' ')"
  [ $rc -ne 0 ] && status=$rc
done
exit $status
