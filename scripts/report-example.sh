#!/usr/bin/env bash
# Regenerates the committed report example (examples/results/h100-vs-h200.html.gz: the page,
# gzipped for the tree budget) and the README's
# plot (docs/images/h100-vs-h200-coalescing.png) from the committed H100 and H200 runs.
# Usage: scripts/report-example.sh [path/to/gpuprobe]   (run from the repository root)
set -euo pipefail
gpuprobe=${1:-./build/gpuprobe}
a=examples/results/h100/all.json.gz
b=examples/results/h200/all.json.gz
note="A (H100) and B (H200) are one build (b930db810714), 2026-11-28: gpuprobe all, every probe's \
quick run (peer skipped: it needs two GPUs)."
tmp=$(mktemp -d)
trap 'rm -r "$tmp"' EXIT
"$gpuprobe" report "$a" "$b" -o "$tmp/h100-vs-h200.html" \
  --title "gpuprobe: H100 vs H200" --note "$note"
gzip -9 -n -c "$tmp/h100-vs-h200.html" >examples/results/h100-vs-h200.html.gz
# zopfli, as every .gz of the tree (scripts/squeeze-gz.py), where it is installed
if python3 -c 'import zopfli' 2>/dev/null; then
  python3 scripts/squeeze-gz.py examples/results/h100-vs-h200.html.gz
fi
"$gpuprobe" report "$a" "$b" --format png -o "$tmp"
# 64 colours, no dithering: the plot's few flat colours survive, the file is a quarter the size
python3 -c 'import sys; from PIL import Image
Image.open(sys.argv[1]).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT,
  dither=Image.Dither.NONE).save(sys.argv[2], optimize=True)' \
  "$tmp/coalescing-relative.png" docs/images/h100-vs-h200-coalescing.png
echo "report-example: examples/results/h100-vs-h200.html.gz, docs/images/h100-vs-h200-coalescing.png"
