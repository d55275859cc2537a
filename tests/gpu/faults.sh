#!/usr/bin/env bash
# GPU test: a sweep needing more device memory than the GPU has fails cleanly: exit 1, one
# line naming the size asked for, what is free, and what to shrink, no output file; the next
# run on the same GPU works (nothing leaked or held). Exit 77 (skipped) without a GPU.
# Usage: faults.sh GPUPROBE
set -u
bin=$1
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 1 TiB: more than any GPU's memory; pageable, so the device allocation is the one that fails.
"$bin" --json "$out/oom.json" transfer --memory pageable --direction h2d --sizes 1TiB \
  --samples 3 >"$out/log" 2>&1
rc=$?
cat "$out/log"
[ $rc -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
grep -q "out of device memory: asked for 1 TiB" "$out/log" || { echo "FAIL: no size named"; exit 1; }
grep -q "make the sweep smaller with --sizes" "$out/log" || { echo "FAIL: no way out named"; exit 1; }
"$bin" --quiet transfer --memory pinned --direction h2d --sizes 64MiB --samples 3 ||
  { echo "FAIL: the next run on the GPU failed"; exit 1; }
echo PASS
