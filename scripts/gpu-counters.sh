#!/usr/bin/env bash
# Counter checks on the GPU machine, after scripts/gpu-check.sh built ./build: metric flags,
# a run under ncu (counters refused, exit 0; ncu scoped to one row by its NVTX range), and fresh
# counter-data fixtures for tests/fixtures/counters (GPUPROBE_CAPTURE_COUNTER_DATA).
# Results: $OUT/counters.log and $OUT/counters.tgz (outputs, captures).
set -uo pipefail
OUT=${OUT:-/tmp/gpuprobe-out}
W=$(mktemp -d)
mkdir -p "$OUT" "$W/cap"
cd "$(dirname "$0")/.."
log() { echo "== $*" | tee -a "$OUT/counters.log"; }
run() {  # run NAME CMD...: keeps NAME.out (stdout+stderr), logs rc and wall time
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  "$@" >"$W/$name.out" 2>&1
  local rc=$?
  log "$* -> rc=$rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s; $(tail -1 "$W/$name.out" | cut -c1-300)"
}
G=./build/gpuprobe
run list-metrics $G --list-metrics dram__bytes_read
run list-metrics-full $G --list-metrics dram__bytes_read.
run bad-metric $G coalescing --metrics dram__bytes_reed.sum
run extra-metric $G coalescing --pattern stride --strides 1,32 --widths 4 --metrics lts__t_sector_hit_rate.pct --json "$W/extra.json"
run no-counters $G coalescing --pattern stride --strides 1,32 --widths 4 --no-counters --json "$W/no-counters.json"
if command -v ncu >/dev/null; then
  run ncu ncu --nvtx --nvtx-include "gpuprobe/coalescing/stride 32, 4 B/" -c 1 \
    --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
    $G coalescing --pattern stride --strides 1,32 --widths 4 --samples 3 --json "$W/under-ncu.json"
  grep -E "==PROF==|sectors|requests|counters|warning" "$W/ncu.out" | head -20 | tee -a "$OUT/counters.log"
fi
GPUPROBE_CAPTURE_COUNTER_DATA="$W/cap" ./build/tests/gpuprobe_counters_gpu_tests \
  --gtest_filter=CountersGpu.CaptureFixtures >"$W/capture.log" 2>&1
log "capture rc=$? $(ls "$W/cap" | tr '\n' ' ')"
tar -C "$W" -czf "$OUT/counters.tgz" .
