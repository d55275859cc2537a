#!/usr/bin/env bash
# The fleet step of gpuprobe-fleet.sbatch: the fleet table as Markdown beside the results, the
# outlier GPUs on stderr, exit 4 when there is one. Usage: fleet-report.sh GPUPROBE RESULTS_DIR
set -uo pipefail
gpuprobe=$1 dir=$2
"$gpuprobe" fleet "$dir" --fail-on-outlier --quiet --md "$dir/fleet.md" --json "$dir/fleet.json"
rc=$?
grep -E '^- Warning:' "$dir/fleet.md" >&2
exit "$rc"
