#!/usr/bin/env bash
# A scripted sweep: the stride collapse of coalescing at each element width, one JSON per width,
# and one CSV of every row for a spreadsheet. Usage: sweep.sh GPUPROBE OUT_DIR [extra flags]
# (CTest runs it with --plan: the same commands, no GPU.)
set -euo pipefail
gpuprobe=$1 out=$2
shift 2
mkdir -p "$out"
for width in 4 8 16; do
  "$gpuprobe" coalescing --pattern stride --strides 1:32:x2 --widths "$width" --quiet \
    --json "$out/stride-$width.json" --csv "$out/stride-$width.csv" "$@"
done
# One CSV: the first file's header, then every file's rows.
head -1 "$out/stride-4.csv" >"$out/sweep.csv"
for width in 4 8 16; do tail -n +2 "$out/stride-$width.csv" >>"$out/sweep.csv"; done
echo "sweep: $(($(wc -l <"$out/sweep.csv") - 1)) lines (rows, then findings, per width) in $out/sweep.csv"
