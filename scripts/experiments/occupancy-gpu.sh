#!/usr/bin/env bash
# Issue 34 part 1 (`gpuprobe occupancy`) on the GPU machine, run from the repository root with
# prebuilt binaries: the default run (JSON for the docs' measured tables), the quick run `all`
# makes, `gpuprobe all` timed, the GPU tests of occupancy and of local (whose latency chase moved
# into latency's kernels), the best copy of cache and coalescing beside the plateau, the counter
# names, and a small run under compute-sanitizer. About 3-4 minutes on an H100.
# Usage: BIN=build OUT=/tmp/out scripts/experiments/occupancy-gpu.sh
set -uo pipefail
BIN=${BIN:-build}
OUT=${OUT:-/tmp/occupancy-out}
mkdir -p "$OUT"
g="$BIN/gpuprobe"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
run() {  # run NAME TIMEOUT ARGS...: one command, its output in NAME.txt/.err, rc and wall time logged
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s.%N)
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
  local rc=$?
  log "$name: rc=$rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s: $*"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,memory.used \
  --format=csv | tee -a "$OUT/summary.txt"
# 1. The default run (docs' tables; must take <= 20 s) and the quick run `all` makes (~1-2 s).
run occupancy 120 "$g" occupancy --no-color --json "$OUT/occupancy.json.gz"
run occupancy-quick 60 "$g" occupancy --no-color --warps 2,8,32,64 --at-warps 8 --ilp 1,8 \
  --width 4,16 --bytes 512MiB --json "$OUT/occupancy-quick.json.gz"
# 2. `gpuprobe all` (must stay <= 30 s with occupancy in it).
run all 120 "$g" all --no-color --json "$OUT/all.json.gz"
# 3. GPU tests: occupancy's, and local's (its latency chase now goes through latency::time_chase).
run gpu-tests 180 "$BIN/gpuprobe_gpu_tests" --gtest_filter='Occupancy*:Local*:Latency*'
# 4. The best copy and read of cache (device scope, DRAM sizes) and coalescing (aligned unit
#    stride) on this GPU: the plateau should be within 3 % of them.
run cache-device 90 "$g" cache --no-color --scope device --op read,copy --device-sizes 512MiB,1GiB \
  --json "$OUT/cache-device.json.gz"
run coalescing-base 90 "$g" coalescing --no-color --pattern offset --offsets 0 \
  --json "$OUT/coalescing-base.json.gz"
# 5. The counter names the probe asks for, as this driver's CUPTI lists them.
run metrics 60 "$g" --list-metrics warps_active
# 6. A small run under compute-sanitizer (out-of-bounds accesses, races in the checks).
if command -v compute-sanitizer >/dev/null; then
  run sanitizer 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$g" occupancy --no-color \
    --no-counters --warps 1,4 --at-warps 2 --ilp 1,8 --width 4,16 --bytes 64MiB --samples 2
fi
# What to read: the findings and the timings.
log "findings of the default run"
grep -E "plateau|knee|route|writes need|latency|counters:|not measured|working set" \
  "$OUT/occupancy.txt" | tee -a "$OUT/summary.txt"
grep -E "occupancy|took|total" "$OUT/all.err" | tail -5 | tee -a "$OUT/summary.txt"
tail -5 "$OUT/gpu-tests.txt" | tee -a "$OUT/summary.txt"
