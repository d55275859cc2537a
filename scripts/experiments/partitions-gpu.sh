#!/usr/bin/env bash
# partitions on the GPU machine (issue 34, part 2): run from the repo root with prebuilt binaries
# at $BIN/gpuprobe and $BIN/gpuprobe_gpu_tests; everything lands in $OUT. About 2-3 minutes:
#   1. the per-slice / per-channel counters CUPTI lists here (the analysis uses the .max/.avg
#      rollups of lts__t_sectors_srcunit_tex and dram__bytes; this says what else exists);
#   2. the GPU tests of partitions;
#   3. the default run (JSON gzipped, the table), timed: must stay <= 20 s;
#   4. the quick run (`all`'s defaults), timed: ~1-2 s;
#   5. `gpuprobe all`, timed: must stay <= 30 s with partitions in it;
#   6. ncu's per-instance L2 slice / DRAM traffic for one aligned and one padded stride, when ncu
#      is installed (the rollups' check: max/avg should match the busiest instance / the mean).
set -u
BIN=${BIN:-build}
OUT=${OUT:-out}
mkdir -p "$OUT"
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "[time] $(echo "$(date +%s.%N) - $s" | bc) s rc=$rc: $*"; return $rc; }

{
  "$BIN/gpuprobe" --list-metrics lts__t_sectors_srcunit_tex
  "$BIN/gpuprobe" --list-metrics dram__bytes
  "$BIN/gpuprobe" --list-metrics fbpa__dram
  "$BIN/gpuprobe" --list-metrics ltcfabric
} > "$OUT/partitions-metrics.txt" 2>&1
if command -v ncu >/dev/null; then
  ncu --query-metrics --chip gh100 2>/dev/null | grep -E '^(lts__t_sectors|dram__bytes|fbpa__dram)' \
    > "$OUT/partitions-ncu-metrics.txt"
fi

t "$BIN/gpuprobe_gpu_tests" --gtest_filter='Partitions*' 2>&1 | tail -30 > "$OUT/partitions-gpu-tests.txt"

t "$BIN/gpuprobe" --no-color partitions --json "$OUT/partitions.json.gz" \
  > "$OUT/partitions.txt" 2>&1
t "$BIN/gpuprobe" --no-color partitions --wide --strides 256,2KiB,4KiB,2MiB --transpose 8192 \
  > "$OUT/partitions-wide.txt" 2>&1
t "$BIN/gpuprobe" --no-color partitions --strides 256:1MiB:x4 --transpose 4096 --max-buffer 4GiB \
  --json "$OUT/partitions-quick.json.gz" > "$OUT/partitions-quick.txt" 2>&1
t "$BIN/gpuprobe" --no-color all --json "$OUT/all.json.gz" > "$OUT/all.txt" 2>&1

if command -v ncu >/dev/null; then
  for s in 2MiB 1MiB; do
    for pad in 0 256; do
      ncu --metrics lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex.max,lts__t_sectors_srcunit_tex.avg,dram__bytes.sum,dram__bytes.max,dram__bytes.avg \
        --print-metric-instances values -k regex:stream_kernel -c 1 \
        "$BIN/gpuprobe" --no-counters partitions --mode stride --order row --strides $s \
        --pads $pad > "$OUT/partitions-ncu-$s-$pad.txt" 2>&1
    done
  done
fi
grep -h '\[time\]' "$OUT"/*.txt 2>/dev/null
ls -la "$OUT"
