#!/usr/bin/env bash
# Where the default `transfer` sweep spends its wall time (issue 29): the sweep as it is, then
# without counters, with one round, and both; one traced run (GPUPROBE_TRACE=1) for the timeline.
# Usage: scripts/experiments/transfer_time.sh GPUPROBE OUT_DIR [extra transfer args]
set -uo pipefail
g=$1 out=$2; shift 2
mkdir -p "$out"
wall() {  # wall NAME ARGS...: runs gpuprobe transfer ARGS quietly, prints the wall seconds
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  "$g" transfer -q --no-color "$@" --json "$out/$name.json" 2>"$out/$name.err"
  local rc=$?
  printf '%-28s rc=%d %6.2f s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" |
    tee -a "$out/walls.txt"
}
wall default "$@"
wall no-counters --no-counters "$@"
wall one-round --rounds 1 "$@"
wall one-round-no-counters --rounds 1 --no-counters "$@"
GPUPROBE_TRACE="$out/trace.txt" "$g" transfer -q --no-color "$@" >/dev/null
echo "trace: $(wc -l <"$out/trace.txt") lines"
