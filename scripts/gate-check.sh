#!/usr/bin/env bash
# The regression gate's acceptance run on a GPU machine: six same-build `gpuprobe all` runs, each
# a separate process, compared pair by pair with --fail-on-regression 5; then `all` again while a
# second process loads the PCIe link (pcie-h2d) and while one streams HBM, each compared with the
# last quiet run; and the default `transfer` sweep timed with counters.
# Usage: scripts/gate-check.sh            (after scripts/gpu-check.sh or any build in ./build)
# Results: $OUT/gate.log (summary) and $OUT/gate.tgz (run-*.json, load-*.json, compare-*.txt,
# load generator logs); OUT defaults to /tmp/gpuprobe-out.
set -uo pipefail
OUT=${OUT:-/tmp/gpuprobe-out}
RUNS=${RUNS:-6}
W=$(mktemp -d)
mkdir -p "$OUT" "$W/gate"
cd "$(dirname "$0")/.."
G=./build/gpuprobe
log() { echo "$*" | tee -a "$OUT/gate.log"; }
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

# compare_pair NAME A B: compare B with A at 5%, keep the table, log the exit code and counts.
compare_pair() {
  local name=$1 a=$2 b=$3
  $G compare "$a" "$b" --fail-on-regression 5 --no-color --json "$W/gate/$name.json" \
    >"$W/gate/$name.txt" 2>"$W/gate/$name.err"
  local rc=$?
  log "$name: exit $rc; $(python3 scripts/compare-counts.py "$W/gate/$name.json") $(head -c 300 "$W/gate/$name.err")"
}

[ -x $G ] || { echo "gate-check: build gpuprobe first (scripts/gpu-check.sh)" >&2; exit 2; }
nvcc -O3 -arch=sm_90 -o "$W/gpu_load" scripts/load/gpu_load.cu || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader |
  tee -a "$OUT/gate.log"

for i in $(seq 1 "$RUNS"); do
  t0=$(date +%s.%N)
  $G all --json "$W/gate/run-$i.json" --no-color >"$W/gate/run-$i.txt" 2>"$W/gate/run-$i.err"
  log "run-$i: gpuprobe all -> exit $?, $(seconds_since "$t0") s"
done
for i in $(seq 2 "$RUNS"); do
  compare_pair "compare-run-$((i - 1))-run-$i" "$W/gate/run-$((i - 1)).json" "$W/gate/run-$i.json"
done

# load_run NAME MODE: `gpuprobe all` while gpu_load MODE runs beside it.
load_run() {
  local name=$1 mode=$2
  "$W/gpu_load" "$mode" 120 >"$W/gate/$name-gpu_load.out" 2>"$W/gate/$name-gpu_load.err" &
  local load=$!
  until grep -q ready "$W/gate/$name-gpu_load.out"; do
    kill -0 $load 2>/dev/null || { log "$name: gpu_load $mode did not start"; return; }
    sleep 0.1
  done
  local t0; t0=$(date +%s.%N)
  $G all --json "$W/gate/$name.json" --no-color >"$W/gate/$name.txt" 2>"$W/gate/$name.err"
  log "$name: gpuprobe all beside gpu_load $mode -> exit $?, $(seconds_since "$t0") s"
  kill $load; wait $load
  log "$name: $(tail -1 "$W/gate/$name-gpu_load.err")"
  compare_pair "compare-run-$RUNS-$name" "$W/gate/run-$RUNS.json" "$W/gate/$name.json"
}
load_run load-transfer pcie-h2d
load_run load-coalescing hbm

t0=$(date +%s.%N)
$G transfer --json "$W/gate/transfer.json" --no-color >"$W/gate/transfer.txt" 2>&1
log "gpuprobe transfer (default sweep, counters) -> exit $?, $(seconds_since "$t0") s"
tar -C "$W" -czf "$OUT/gate.tgz" gate
