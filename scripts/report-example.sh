#!/usr/bin/env bash
# Regenerates the committed report example (examples/results/h100-vs-h200.html) and the README's
# plot (docs/images/h100-vs-h200-coalescing.png) from the committed H100 and H200 runs.
# Usage: scripts/report-example.sh [path/to/gpuprobe]   (run from the repository root)
set -euo pipefail
gpuprobe=${1:-./build/gpuprobe}
a=examples/results/h100/check/all.json
b=examples/results/h200/all.json
note="B (H200) is an older build (74a8863a2282, schema 1, 2026-11-23) that had three probes: \
transfer, coalescing and bank-conflicts. Overlap, zerocopy and l2-persist are on the H100 side \
only, and B's rows have no per-round samples, so compare decides B/A with the noise band instead \
of the bootstrap. Regenerating the H200 run with the current build (all six probes) needs the \
GPU: see examples/results/README.md."
"$gpuprobe" report "$a" "$b" -o examples/results/h100-vs-h200.html \
  --title "gpuprobe: H100 vs H200" --note "$note"
tmp=$(mktemp -d)
trap 'rm -r "$tmp"' EXIT
"$gpuprobe" report "$a" "$b" --format png -o "$tmp"
cp "$tmp/coalescing-relative.png" docs/images/h100-vs-h200-coalescing.png
echo "report-example: examples/results/h100-vs-h200.html, docs/images/h100-vs-h200-coalescing.png"
