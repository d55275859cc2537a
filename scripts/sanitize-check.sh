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
# summary line per run on stdout; exits 1 if any run reported an error or ran out of time.
# The four tools run at once (one process each, the probes in turn; timing does not matter under
# a sanitizer), each run limited to SANITIZE_TIMEOUT seconds (default 600: racecheck on bank-conflicts took 417 s on an H100).
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
# racecheck instruments every shared-memory access: the stride sweep's long loops of them take
# minutes per launch there, so racecheck checks one stride of each operation.
declare -A race_sweeps=(
  [bank-conflicts]="bank-conflicts --size 256 --strides 1 --widths 4 --ops load,store"
)
probes=(transfer coalescing bank-conflicts overlap zerocopy l2-persist)
limit=${SANITIZE_TIMEOUT:-600}
common=(--no-counters --samples 3 --rounds 1 --quiet)
tools=("memcheck --leak-check full" racecheck initcheck synccheck)

if [ "$mode" = plan ]; then
  status=0
  for p in "${probes[@]}"; do
    # shellcheck disable=SC2086
    if "$bin" --no-counters --quiet ${sweeps[$p]} --plan; then echo "ok: $p sweep is valid"
    else echo "FAIL: $p sweep: ${sweeps[$p]}"; status=1; fi
  done
  for p in "${!race_sweeps[@]}"; do
    # shellcheck disable=SC2086
    if "$bin" --no-counters --quiet ${race_sweeps[$p]} --plan; then echo "ok: $p racecheck sweep is valid"
    else echo "FAIL: $p racecheck sweep: ${race_sweeps[$p]}"; status=1; fi
  done
  exit $status
fi

[ "$mode" = print ] || mkdir -p "$out"

# sweep_of TOOL PROBE: the probe's sweep under that tool.
sweep_of() {
  if [ "$1" = racecheck ] && [ -n "${race_sweeps[$2]:-}" ]; then echo "${race_sweeps[$2]}"
  else echo "${sweeps[$2]}"; fi
}

# run_tool TOOL...: every probe under one tool, in turn; one summary line per run.
run_tool() {
  local tool="$*" name=${1}
  for p in "${probes[@]}"; do
    # shellcheck disable=SC2206,SC2046
    local cmd=(compute-sanitizer --tool $tool --error-exitcode 99 "$bin" "${common[@]}"
               $(sweep_of "$name" "$p"))
    if [ "$mode" = print ]; then
      printf '%q ' "${cmd[@]}"
      echo
      continue
    fi
    local log="$out/$name-$p.log" t0=$SECONDS
    timeout "$limit" "${cmd[@]}" >"$log" 2>&1
    local rc=$?
    local summary
    summary=$(grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 2 | tr '\n' ' ')
    if [ $rc -eq 0 ]; then echo "ok: $name $p ($((SECONDS - t0)) s): $summary"
    elif [ $rc -eq 124 ]; then echo "FAIL: $name $p: no verdict within $limit s (log $log)"
    else echo "FAIL: $name $p: exit $rc: $summary (log $log)"; fi
  done
}

if [ "$mode" = print ]; then
  for tool in "${tools[@]}"; do
    # shellcheck disable=SC2086
    run_tool $tool
  done
  exit 0
fi
pids=()
for tool in "${tools[@]}"; do
  # shellcheck disable=SC2086
  run_tool $tool >"$out/summary-${tool%% *}.txt" &
  pids+=($!)
done
wait "${pids[@]}"
cat "$out"/summary-*.txt
! grep -q "^FAIL" "$out"/summary-*.txt
