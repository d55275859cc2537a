#!/usr/bin/env bash
# The installed package, as a user gets it: builds the .deb in BUILD_DIR (cpack), installs it with
# dpkg -i, runs the installed /usr/bin/gpuprobe from outside the source tree (--version, list,
# check on a committed run against the installed reference bounds, report, the man page, the bash
# completion), then removes the package. Needs root (dpkg -i): fails, saying so, without it.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1"); src=$(realpath "$2")
fail() { echo "package_test: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root to dpkg -i the package (CI runs as root)"
(cd "$build" && rm -f gpuprobe_*.deb && cpack -G DEB >/dev/null) || fail "cpack -G DEB failed"
deb=$(ls "$build"/gpuprobe_*.deb)
dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb failed"
trap 'dpkg -r gpuprobe >/dev/null' EXIT
work=$(mktemp -d); cd "$work"
g=/usr/bin/gpuprobe
$g --version | grep -q '^CUPTI API' || fail "--version names no CUPTI: $($g --version)"
$g list | grep -q '^transfer ' || fail "list names no transfer probe"
run=$src/examples/results/h100/check/run-14.json.gz  # a run of every probe: every bound applies
out=$($g check "$run" 2>&1) || fail "check $run exited $?: $(echo "$out" | tail -1)"
echo "$out" | grep -q 'expectations from /usr/share/gpuprobe/expectations/' ||
  fail "check did not use the installed reference bounds: $(echo "$out" | head -1)"
if python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  $g report "$run" -o page.html >/dev/null 2>report.err || fail "report exited $?: $(tail -1 report.err)"
  grep -q '<html' page.html || fail "report wrote no page"
else
  echo "package_test: matplotlib missing: report not run" >&2
fi
[ -f /usr/share/man/man1/gpuprobe.1 ] || fail "no man page installed"
if command -v man >/dev/null; then
  man -P cat gpuprobe 2>/dev/null | grep -q 'EXIT STATUS' || fail "man gpuprobe shows no EXIT STATUS"
fi
words=$(bash -c 'source /usr/share/bash-completion/completions/gpuprobe
  COMP_WORDS=(gpuprobe tra); COMP_CWORD=1; _gpuprobe; echo "${COMPREPLY[@]}"')
[ "$words" = "transfer" ] || fail "bash completion of 'tra' gave '$words'"
echo "package_test: $(basename "$deb") installed and works"
