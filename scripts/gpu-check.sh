#!/usr/bin/env bash
# Builds gpuprobe on the GPU machine, runs the GPU tests and the probes, and packs the results.
# Usage: scripts/gpu-check.sh [probe ...]   (default: every probe, then `gpuprobe all`)
# Results: $OUT/check.log (summary) and $OUT/results.tgz (build/ctest logs, per-probe
# .txt/.json/.err); OUT defaults to /tmp/gpuprobe-out.
set -uo pipefail
OUT=${OUT:-/tmp/gpuprobe-out}
W=$(mktemp -d)
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
log() { echo "== $*" | tee -a "$OUT/check.log"; }
timed() {  # timed NAME ARGS...: runs gpuprobe ARGS, keeps NAME.txt/.json/.err, logs rc and wall time
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  ./build/gpuprobe "$@" --json "$W/$name.json" --csv "$W/$name.csv" --md "$W/$name.md" --no-color \
    >"$W/$name.txt" 2>"$W/$name.err"
  local rc=$?
  log "gpuprobe $* -> rc=$rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s wall; $(tail -1 "$W/$name.err")"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee -a "$OUT/check.log"
log "build"
git_rev=$(cat .git-rev 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if ! { cmake -B build -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DGPUPROBE_GIT="$git_rev" \
         >"$W/build.log" 2>&1 &&
       cmake --build build -j16 >>"$W/build.log" 2>&1; }; then
  tail -40 "$W/build.log" | tee -a "$OUT/check.log"
  tar -C "$W" -czf "$OUT/results.tgz" .
  exit 1
fi
if [ "${SKIP_CTEST:-0}" != 1 ]; then
log "ctest (every label; the GPU is present)"
(cd build && ctest --output-on-failure >"$W/ctest.log" 2>&1)
log "ctest rc=$?"
grep -E "tests passed|tests failed|Failed|\*\*\*|Skipped|Not Run" "$W/ctest.log" | tail -30 | tee -a "$OUT/check.log"
fi

if [ "${SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  log "compute-sanitizer (small sweeps)"
  for tool in memcheck racecheck; do
    # racecheck slows shared-memory kernels ~1000x: only the small ladder and one short stride row.
    for args in "transfer --sizes 4KiB,1MiB --samples 1" \
                "coalescing --offsets 0,1 --strides 1,2 --widths 4,16 --samples 1" \
                "bank-conflicts --ladder --size 256 --samples 1" ; do
      [ $tool = racecheck ] && [[ $args == transfer* ]] && continue
      compute-sanitizer --tool $tool --error-exitcode 9 ./build/gpuprobe $args --quiet \
        >"$W/sanitize-$tool-${args%% *}.log" 2>&1
      log "$tool $args -> rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/sanitize-$tool-${args%% *}.log" | tail -1)"
    done
  done
fi

probes=("$@")
if [ ${#probes[@]} -eq 0 ]; then mapfile -t probes < <(./build/gpuprobe list | awk '{print $1}'); fi
for p in "${probes[@]}"; do timed "$p" "$p"; done
[ ${#probes[@]} -gt 0 ] && [[ " ${probes[*]} " == *" transfer "* ]] && timed transfer-pinned transfer --pinned
timed all all

# LADDER_EXPERIMENT=1: is the ladder's first copy slower under `all`'s short stopping rule, or
# only after the other probes? Same ladder, several rules, standalone and inside `all`.
if [ "${LADDER_EXPERIMENT:-0}" = 1 ]; then
  log "ladder experiment"
  timed ladder-default bank-conflicts --ladder
  timed ladder-quick-1 bank-conflicts --ladder --min-time 0.005 --max-time 0.1 --max-noise 3%
  timed ladder-quick-2 bank-conflicts --ladder --min-time 0.005 --max-time 0.1 --max-noise 3%
  timed ladder-samples-5 bank-conflicts --ladder --samples 5
  timed ladder-samples-100 bank-conflicts --ladder --samples 100
  timed coalescing-then-ladder all  # second `all`: the position effect again?
  for f in "$W"/ladder-*.json "$W"/coalescing-then-ladder.json "$W"/all.json "$W"/bank-conflicts.json; do
    [ -f "$f" ] && python3 - "$f" <<'PY' | tee -a "$OUT/check.log"
import json, sys
r = json.load(open(sys.argv[1]))
for res in r["results"]:
    if res["probe"] != "bank-conflicts": continue
    for row in res["rows"]:
        if row["params"].get("kernel") == "copy":
            m = row["metrics"]["bandwidth"]
            again = [n for n in res["notes"] if "copy again" in n]
            tail = again[0].split("copy again at the end: ")[1] if again else "?"
            print(f"{sys.argv[1].split('/')[-1]}: copy {m['median']:.0f} GB/s n={m['n']} "
                  f"min {m['min']:.0f} max {m['max']:.0f}; again: {tail}")
PY
  done
fi
tar -C "$W" -czf "$OUT/results.tgz" .
