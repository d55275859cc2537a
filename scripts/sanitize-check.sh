#!/usr/bin/env bash
# compute-sanitizer on every probe (GPU machine): memcheck (with leak check), racecheck,
# initcheck and synccheck, each on a small sweep of each probe. Timing numbers under the
# sanitizer mean nothing: only the sanitizer's verdict counts (its exit code, and its summary
# "ERROR SUMMARY: 0 errors"). Counters are off (CUPTI and compute-sanitizer exclude each other).
#
# Usage: scripts/sanitize-check.sh [GPUPROBE] [OUT_DIR]
#        scripts/sanitize-check.sh --print [GPUPROBE]   the commands only, nothing run
#        scripts/sanitize-check.sh --plan [GPUPROBE]    each probe's sweep through --plan (no GPU):
#                                                       checks that every command line is valid
# Default GPUPROBE: build/gpuprobe; OUT_DIR: sanitize-out. Logs: OUT_DIR/<tool>-<probe>.log, a
# summary line per run on stdout; exits 1 if any run reported an error.
set -u
mode=run
case "${1:-}" in
  --print) mode=print; shift ;;
  --plan) mode=plan; shift ;;
esac
bin=${1:-build/gpuprobe}
out=${2:-sanitize-out}

# Small sweeps: every kernel and copy path of each probe, few points, few samples.
declare -A sweeps=(
  [transfer]="transfer --sizes 4KiB,1MiB --direction h2d,d2h,bidir"
  [coalescing]="coalescing --widths 4,16 --offsets 0,1 --strides 1,32 --l2-multiple 1"
  [bank-conflicts]="bank-conflicts --size 256 --strides 0,1,2,32 --widths 4,16"
  [overlap]="overlap --size 1MiB --streams 1,2 --workload balanced --timeline"
  [zerocopy]="zerocopy --bytes 1MiB --reuse 1,2 --strides 1,32 --widths 4,16 --blocks 0,1"
  [l2-persist]="l2-persist --setaside 50 --hot 50 --workload phases,bpg"
)
probes=(transfer coalescing bank-conflicts overlap zerocopy l2-persist)
common=(--no-counters --samples 3 --rounds 1 --quiet)
tools=("memcheck --leak-check full" racecheck initcheck synccheck)

if [ "$mode" = plan ]; then
  status=0
  for p in "${probes[@]}"; do
    # shellcheck disable=SC2086
    if "$bin" --no-counters --quiet ${sweeps[$p]} --plan; then echo "ok: $p sweep is valid"
    else echo "FAIL: $p sweep: ${sweeps[$p]}"; status=1; fi
  done
  exit $status
fi

[ "$mode" = print ] || mkdir -p "$out"
status=0
for tool in "${tools[@]}"; do
  name=${tool%% *}
  for p in "${probes[@]}"; do
    # shellcheck disable=SC2206
    cmd=(compute-sanitizer --tool $tool --error-exitcode 99 "$bin" "${common[@]}" ${sweeps[$p]})
    if [ "$mode" = print ]; then
      printf '%q ' "${cmd[@]}"
      echo
      continue
    fi
    log="$out/$name-$p.log"
    "${cmd[@]}" >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 2 | tr '\n' ' ')
    if [ $rc -eq 0 ]; then echo "ok: $name $p: $summary"
    else echo "FAIL: $name $p: exit $rc: $summary (log $log)"; status=1; fi
  done
done
exit $status
