#!/usr/bin/env bash
# GPU test: gpuprobe under Nsight Compute. ncu owns CUPTI, so gpuprobe's counters are refused:
# the run must still exit 0, keep its timing, and say why in JSON (counters.state "refused" with
# a reason). Exit 77 (skipped) without a GPU or without ncu. Usage: ncu_refusal.sh GPUPROBE
set -u
bin=$1
command -v ncu >/dev/null || { echo "SKIP: ncu not found"; exit 77; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ncu --nvtx --nvtx-include "gpuprobe/coalescing/stride 32, 4 B/" -c 1 \
  --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
  "$bin" coalescing --pattern stride --strides 1,32 --widths 4 --samples 3 \
  --json "$out/r.json" >"$out/out.txt" 2>&1
rc=$?
cat "$out/out.txt"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc under ncu"; exit 1; }
python3 - "$out/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["status"] == "ok", r["status"]
c = r["counters"]
assert c and c["state"] == "refused" and c["reason"], c
assert all(row["metrics"]["bandwidth"]["median"] > 0 for row in r["rows"])
assert any(f["id"] == "counters_unavailable" for f in r["findings"])
print("refused as expected:", c["reason"])
PY
grep -q "Profiling \"copy_kernel\"" "$out/out.txt" || { echo "FAIL: ncu profiled no kernel in the NVTX range"; exit 1; }
echo PASS
