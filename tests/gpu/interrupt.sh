#!/usr/bin/env bash
# GPU test: SIGINT/SIGTERM during a sweep. gpuprobe must stop within a second of the signal,
# exit 130 (SIGINT) or 143 (SIGTERM), leave no output file (nor its temporary), and hold the GPU
# no longer (no compute process left that was not there before); a second signal ends it at once
# (SIGINT and SIGTERM sent while the run is held stopped, so both arrive, the second exiting with
# "interrupted again"). Each probe is tried,
# l2-persist included (its persisting-L2 limit is reset on the way out), and transfer's round
# processes (none may outlive the run). Exit 77 (skipped)
# without a GPU. Usage: interrupt.sh GPUPROBE
set -u
bin=$1
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# interrupt SIGNAL EXPECTED_CODES TWICE PROBE ARGS...: start a long sweep, signal it after 3 s
# (TWICE=1: SIGNAL and SIGTERM, both pending before it runs on; its threads may take them in
# either order, so the exit code is the later one's), check the exit code, the time to stop and
# what is left behind.
interrupt() {
  local sig=$1 code=$2 twice=$3
  shift 3
  rm -f "$out"/r.json*
  local before
  before=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | sort | tr '\n' ' ')
  set -m  # job control: the background run gets SIGINT like a foreground one
  "$bin" --quiet --json "$out/r.json" --min-time 5 "$@" >"$out/log" 2>&1 &
  local pid=$!
  set +m
  sleep 3
  local start
  start=$(now_ms)
  if [ "$twice" = 1 ]; then
    kill -STOP "$pid" && kill -"$sig" "$pid" && kill -TERM "$pid" && kill -CONT "$pid"
  else
    kill -"$sig" "$pid"
  fi
  wait "$pid"
  local rc=$? took=$(($(now_ms) - start))
  local what="$* after SIG$sig$([ "$twice" = 1 ] && echo " and SIGTERM")"
  if [[ " $code " != *" $rc "* ]]; then
    echo "FAIL: $what: exit $rc, expected $code"; sed 's/^/  | /' "$out/log"; fail=1
  elif [ "$took" -ge 1000 ]; then
    echo "FAIL: $what: took $took ms to stop"; fail=1
  elif ls "$out"/r.json* >/dev/null 2>&1; then
    echo "FAIL: $what: left $(ls "$out"/r.json*)"; fail=1
  elif [ "$twice" = 1 ] && ! grep -q "interrupted again: exiting now" "$out/log"; then
    echo "FAIL: $what: the second signal did not end it"; sed 's/^/  | /' "$out/log"; fail=1
  elif sleep 0.3 && [ "$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | sort | tr '\n' ' ')" != "$before" ]; then
    echo "FAIL: $what: GPU processes before: [$before] after: [$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | tr '\n' ' ')]"; fail=1
  elif sleep 0.3 && pgrep -f -- "$bin __round" >/dev/null; then
    echo "FAIL: $what: a round process outlived it: $(pgrep -af -- "$bin __round")"; fail=1
  else
    echo "ok: $what: exit $rc in $took ms, no file left: $(tail -n 1 "$out/log")"
  fi
}

interrupt INT 130 0 transfer --pinned --sizes 64MiB,256MiB
interrupt TERM 143 0 transfer --pinned --sizes 64MiB,256MiB
interrupt INT "130 143" 1 transfer --pinned --sizes 64MiB,256MiB
# Small copies take each round in a process of their own (`__round`): signalled while one runs,
# the run stops it and exits; killed at once by a second signal, the round process follows.
# (--max-time 20 lets --min-time 5 hold: each round process then samples 3 points for 1 s each.)
interrupt INT 130 0 transfer --pinned --sizes 64KiB --max-time 20
interrupt INT "130 143" 1 transfer --pinned --sizes 64KiB --max-time 20
interrupt INT 130 0 coalescing
interrupt INT 130 0 bank-conflicts
interrupt INT 130 0 overlap
interrupt INT 130 0 zerocopy
interrupt INT 130 0 l2-persist
[ $fail -eq 0 ] && echo PASS
exit $fail
