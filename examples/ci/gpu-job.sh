#!/usr/bin/env bash
# The gpuprobe steps of a CI job on a self-hosted GPU runner (github-actions.yml and gitlab-ci.yml
# call this): three health-checked runs of every probe, a regression gate against the baseline's
# runs, and a Markdown summary. Usage: gpu-job.sh GPUPROBE BASELINE_DIR OUT_DIR
#
# Exit: 0 all good; 4 a health check or the regression gate failed (the other steps still run,
# so the summary is complete); anything else: gpuprobe could not run.
# GPUPROBE_RESULTS_FROM=DIR takes run-1..3.json (or .json.gz) from DIR instead of measuring (CTest uses it to
# run every other step on committed results, without a GPU).
set -uo pipefail
gpuprobe=$1 baseline=$2 out=$3
mkdir -p "$out"
status=0
note() { [ "$1" -gt "$status" ] && status=$1; return 0; }

# 1. Three runs (each its own process: some rows hold one level per CUDA context), each checked
#    against this GPU's reference expectations (expectations/<gpu>.txt) and kept as JSON.
for i in 1 2 3; do
  if [ -n "${GPUPROBE_RESULTS_FROM:-}" ]; then
    from=$GPUPROBE_RESULTS_FROM/run-$i.json
    [ -f "$from" ] || from=$from.gz
    cp "$from" "$out/${from##*/}"
    "$gpuprobe" check "$out/${from##*/}" --quiet --md "$out/check-$i.md"
  else
    "$gpuprobe" check --quiet --json "$out/run-$i.json" --md "$out/check-$i.md"
  fi
  rc=$?
  [ "$rc" -eq 4 ] && note 4 && continue
  [ "$rc" -ne 0 ] && exit "$rc"
done

# 2. The regression gate: the baseline's three runs against these, pooled per side; exit 4 on a
#    row slower beyond 5% with its whole 95% interval.
"$gpuprobe" compare "$baseline"/run-[0-9]*.json* vs "$out"/run-[0-9]*.json* --fail-on-regression 5 \
  --quiet --md "$out/compare.md"
rc=$?
[ "$rc" -eq 4 ] && note 4
[ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && exit "$rc"

# 3. The summary a CI system shows (GitHub: $GITHUB_STEP_SUMMARY; GitLab: an artifact).
{
  echo "# gpuprobe: $(date -u +%Y-%m-%dT%H:%MZ)"
  grep -h -A200 '^## Expectations' "$out/check-1.md" || echo "(no expectations)"
  echo
  cat "$out/compare.md"
} >"$out/summary.md"
exit "$status"
