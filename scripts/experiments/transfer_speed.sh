#!/usr/bin/env bash
# Issue 29's transfer-speed measurements on the GPU machine: the default sweep timed (untraced,
# then traced with the round processes' own lines), variants of the rounds, and the slow careful
# reference run, one after another in one session.
# Usage: scripts/experiments/transfer_speed.sh GPUPROBE OUT_DIR [VARIANT ...]
#   VARIANT: default | traced | slow | all | NAME=ARGS (transfer with ARGS, e.g. "mt25=--min-time 0.025")
#   (default: default traced slow)
set -uo pipefail
g=$1 out=$2; shift 2
mkdir -p "$out"
variants=("$@"); [ ${#variants[@]} -eq 0 ] && variants=(default traced slow)
wall() {  # wall NAME ENV... -- ARGS...: one gpuprobe run, its wall seconds appended to walls.txt
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  env "$@" >"$out/$name.txt" 2>"$out/$name.err"
  local rc=$?
  printf '%-16s rc=%d %6.2f s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" |
    tee -a "$out/walls.txt"
}
for v in "${variants[@]}"; do
  case $v in
    default) wall default "$g" transfer --no-color --json "$out/default.json.gz" ;;
    traced) wall traced GPUPROBE_TRACE="$out/trace.txt" "$g" transfer --no-color \
              --json "$out/traced.json.gz" ;;
    slow) wall slow "$g" transfer --no-color --max-noise 0.25% --max-time 2 \
            --json "$out/slow.json.gz" ;;
    *=*) read -r -a args <<<"${v#*=}"
         wall "${v%%=*}" "$g" transfer --no-color "${args[@]}" --json "$out/${v%%=*}.json.gz" ;;
    all) wall all "$g" all --no-color --json "$out/all.json.gz" ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
done
