#!/usr/bin/env bash
# A session's acceptance runs on the GPU machine: build, the GPU tests, five `gpuprobe check` runs
# in a row (each `all` against the GPU's reference expectations, its JSON kept: five same-build
# runs for compare and the findings), one check with an expectation no GPU meets (exit 4, naming
# it), one check with PCIe load beside it (scripts/load), and the example runs named in
# ACCEPTANCE_EXAMPLES ("name:args;name:args").
# ACCEPTANCE_REFERENCE_RUNS=N first runs `gpuprobe all --json` N times (separate processes) and
# makes this GPU's reference expectations from them (scripts/make-expectations.py, python3 alone):
# the checks that follow use that file (GPUPROBE_EXPECTATIONS_DIR), so a GPU whose committed
# reference is stale or missing gets fresh bounds in the same session; runs and file are packed.
# Results: $OUT/acceptance.log (summary) and $OUT/acceptance.tgz; OUT defaults to /tmp/gpuprobe-out.
set -uo pipefail
OUT=${OUT:-/tmp/gpuprobe-out}
W=$(mktemp -d)
mkdir -p "$OUT" "$W/runs"
cd "$(dirname "$0")/.."
log() { echo "== $*" | tee -a "$OUT/acceptance.log"; }
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
pack() { tar -C "$W" -czf "$OUT/acceptance.tgz" .; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv | tee -a "$OUT/acceptance.log"
git_rev=$(cat .git-rev 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if ! { cmake -B build -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
         -DGPUPROBE_GIT="$git_rev" ${ACCEPTANCE_CMAKE_ARGS:-} >"$W/build.log" 2>&1 &&
       cmake --build build -j16 >>"$W/build.log" 2>&1; }; then
  tail -40 "$W/build.log" | tee -a "$OUT/acceptance.log"; pack; exit 1
fi
log "build $git_rev ok; warnings: $(grep -c "warning:" "$W/build.log")"
grep -A3 "warning:" "$W/build.log" | head -40 | tee -a "$OUT/acceptance.log"
if [ "${SKIP_CTEST:-0}" != 1 ]; then
  (cd build && ctest -L gpu --output-on-failure >"$W/ctest-gpu.log" 2>&1)
  log "ctest -L gpu rc=$?"
  grep -E "tests passed|tests failed|\(Failed\)|Not Run" "$W/ctest-gpu.log" | tail -20 | tee -a "$OUT/acceptance.log"
fi

reference_runs=${ACCEPTANCE_REFERENCE_RUNS:-0}
if [ "$reference_runs" -gt 0 ]; then
  mkdir -p "$W/reference/runs" "$W/reference/expectations"
  for i in $(seq 1 "$reference_runs"); do
    t0=$(date +%s.%N)
    ./build/gpuprobe all --no-color --json "$W/reference/runs/all-$i.json" \
      >"$W/reference/runs/all-$i.txt" 2>"$W/reference/runs/all-$i.err"
    log "reference run $i: gpuprobe all -> rc=$?, $(seconds_since "$t0") s"
  done
  cp expectations/generic.txt "$W/reference/expectations/"
  if file=$(python3 scripts/make-expectations.py --out-dir "$W/reference/expectations" \
              "$W"/reference/runs/all-*.json 2>"$W/reference/make-expectations.err"); then
    export GPUPROBE_EXPECTATIONS_DIR="$W/reference/expectations"
    log "reference expectations from $reference_runs runs: reference/expectations/$(basename "$file") ($(grep -c '^[^#]' "$file") bounds, $(grep -c '^# not gated' "$file") not gated); the checks below use it"
  else
    log "make-expectations.py failed; the checks below use the committed expectations/"
    tail -5 "$W/reference/make-expectations.err" | tee -a "$OUT/acceptance.log"
  fi
fi

for i in 1 2 3 4 5; do
  t0=$(date +%s.%N)
  ./build/gpuprobe check --no-color --json "$W/runs/run-$i.json" >"$W/runs/run-$i.txt" 2>"$W/runs/run-$i.err"
  log "check $i -> rc=$?, $(seconds_since "$t0") s; $(grep -c '^  pass\|^  inconclusive' "$W/runs/run-$i.txt") pass/inconclusive, $(grep -c '^  fail\|^  unmatched\|^  error' "$W/runs/run-$i.txt") failed"
done

# A bound no GPU meets (a pinned copy at 10 TB/s): exit 4, and stderr names it.
impossible='transfer[memory=pinned,direction=h2d,bytes>=64MiB].bandwidth >= 10TB/s'
t0=$(date +%s.%N)
./build/gpuprobe check --no-color --json "$W/check-impossible.json" --expect "$impossible" \
  >"$W/check-impossible.txt" 2>"$W/check-impossible.err"
log "check --expect '$impossible' -> rc=$? (4 expected), $(seconds_since "$t0") s"
grep "expectation failed" "$W/check-impossible.err" | head -3 | cut -c1-300 | tee -a "$OUT/acceptance.log"

nvcc -O3 -arch=sm_90 -o "$W/gpu_load" scripts/load/gpu_load.cu && {
  "$W/gpu_load" pcie-h2d 120 >"$W/load.out" 2>"$W/load.err" &
  load=$!
  until grep -q ready "$W/load.out" 2>/dev/null; do kill -0 $load 2>/dev/null || break; sleep 0.2; done
  t0=$(date +%s.%N)
  ./build/gpuprobe check --no-color --json "$W/check-under-load.json" >"$W/check-under-load.txt" 2>"$W/check-under-load.err"
  log "check beside gpu_load pcie-h2d -> rc=$?, $(seconds_since "$t0") s"
  grep "expectation failed" "$W/check-under-load.err" | head -5 | cut -c1-300 | tee -a "$OUT/acceptance.log"
  kill $load; wait $load 2>/dev/null
}

IFS=';' read -ra examples <<<"${ACCEPTANCE_EXAMPLES:-}"
for e in "${examples[@]}"; do
  name=${e%%:*} args=${e#*:}
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  ./build/gpuprobe $args --no-color --json "$W/$name.json" >"$W/$name.txt" 2>"$W/$name.err"
  log "gpuprobe $args -> rc=$?, $(seconds_since "$t0") s"
done
pack
