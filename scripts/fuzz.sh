#!/usr/bin/env bash
# Runs gpuprobe's libFuzzer targets (fuzz/) for a while each, from the committed seed corpus.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 600 s, every target)
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_OUT (default $FUZZ_BUILD/fuzz-runs).
# Builds with clang: CXX=clang++ cmake -B build-fuzz -DGPUPROBE_FUZZ=ON -DGPUPROBE_BUILD_TESTS=OFF.
# Each target's new inputs go to $FUZZ_OUT/<target>/corpus (the seeds stay as committed), a
# crash to $FUZZ_OUT/<target>/crash-*; the log ends with libFuzzer's final statistics
# (stat::number_of_executed_units: the executions). Exits 1 if a target found something.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
build=${FUZZ_BUILD:-build-fuzz}
out=${FUZZ_OUT:-$build/fuzz-runs}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_units fuzz_axes fuzz_expect fuzz_result fuzz_gzip)
if [ ! -x "$build/fuzz/${targets[0]}" ]; then
  CXX=${CXX:-clang++} cmake -S . -B "$build" -DGPUPROBE_FUZZ=ON -DGPUPROBE_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
fi
cmake --build "$build" -j "${JOBS:-2}" --target "${targets[@]}" >/dev/null
status=0
for t in "${targets[@]}"; do
  mkdir -p "$out/$t/corpus"
  log="$out/$t/log.txt"
  echo "fuzz: $t for ${seconds}s (log $log)"
  if ! "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$out/$t/" "$out/$t/corpus" "fuzz/corpus/$t" \
      >"$log" 2>&1; then
    echo "fuzz: $t FOUND A PROBLEM: $(ls "$out/$t"/crash-* "$out/$t"/leak-* "$out/$t"/timeout-* 2>/dev/null | head -1)"
    status=1
  fi
  grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$log" | tail -2 | sed "s/^/fuzz: $t: /"
done
exit $status
