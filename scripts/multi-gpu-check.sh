#!/usr/bin/env bash
# On a machine of several GPUs: builds gpuprobe, then runs the stages asked for, keeping every
# output in $OUT (default /tmp/multi-gpu) for scripts/multi_gpu_compare.py to set side by side.
#   facts      topology, NVLink status, `gpuprobe info`
#   reference  ROUNDS (3) alternating rounds of: gpuprobe peer (512 MiB bandwidth of every path,
#              4 KiB time per copy, the pointer chase at several chain sizes, and on 3+ GPUs the
#              patterns), host-links, then nvbandwidth's matching testcases, then
#              p2pBandwidthLatencyTest
#   asym       4 KiB copies with the harness on each GPU in turn (--device 0,1 and 1,0): an
#              asymmetry that follows the harness is the timing's, one that stays is the link's
#   contention ROUNDS alternating rounds of: the peer patterns and host-links at 512 MiB, then
#              nvbandwidth's all_to_one_read_ce, one_to_all_write_ce, host_to_all_memcpy_ce,
#              all_to_host_memcpy_ce (and the one-GPU host copies)
#   smcopy     ROUNDS alternating rounds of the SM copy paths at 512 MiB (sm-read, sm-write, one
#              way and both) and nvbandwidth's read_sm, write_sm and bidirectional read_sm
#   matrices   one `peer` over every ordered pair at 4 KiB and 512 MiB, every P2P path and the
#              pointer chase: the src x dst matrices
#   gate       GATE_RUNS (6) same-build `gpuprobe --device all all` runs, then one more beside
#              gpu_load filling GPU 1's host-to-device link
#   ctest      ctest -L gpu (CTEST_GPU: a -R filter; default every GPU test)
# The reference tools and the load come prebuilt in $REFKIT (scripts/build-reference-tools.sh,
# and nvcc scripts/load/gpu_load.cu): nvbandwidth, p2pBandwidthLatencyTest, gpu_load.
# Usage: [REFKIT=DIR] [STAGES="facts reference gate ctest"] scripts/multi-gpu-check.sh
set -uo pipefail
OUT=${OUT:-/tmp/multi-gpu}
STAGES=${STAGES:-facts reference ctest}
ROUNDS=${ROUNDS:-3}
GATE_RUNS=${GATE_RUNS:-6}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on these machines
log() { echo "== $*" | tee -a "$OUT/check.log"; }
timed() {  # timed NAME CMD...: stdout to NAME.txt, stderr to NAME.err, rc and wall time logged
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
  log "$name: rc=$? $((SECONDS - t0)) s: $*"
}
has() { [[ " $STAGES " == *" $1 "* ]]; }
tool() { [ -n "${REFKIT:-}" ] && [ -x "$REFKIT/$1" ]; }

nvidia-smi -L | tee -a "$OUT/check.log"
gpus=$(nvidia-smi -L | grep -c '^GPU')
# REV: the commit measured (the GPU machine's copy may carry a stale .git): pass it in.
rev=${REV:-$(cat .git-rev 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
         -DGPUPROBE_GIT="$rev" >"$OUT/build.log" 2>&1 &&
       cmake --build build -j "$(nproc)" --target gpuprobe gpuprobe_gpu_tests >>"$OUT/build.log" 2>&1; }; then
  tail -30 "$OUT/build.log"; exit 1
fi
log "built $rev; stages: $STAGES"
g=./build/gpuprobe

if has facts; then
  nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
  nvidia-smi nvlink -s >"$OUT/nvlink.txt" 2>&1
  timed info "$g" --device all info
fi

if has reference; then
  latency_sizes=4KiB,1MiB,16MiB,128MiB,512MiB
  nvb_tests=(device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce
    device_to_device_bidirectional_memcpy_read_ce device_to_device_memcpy_read_sm
    device_to_device_memcpy_write_sm device_to_device_bidirectional_memcpy_read_sm
    device_to_device_latency_sm host_to_device_memcpy_ce device_to_host_memcpy_ce
    host_to_all_memcpy_ce all_to_host_memcpy_ce)
  [ "$gpus" -ge 3 ] && nvb_tests+=(all_to_one_read_ce one_to_all_write_ce)
  for r in $(seq 1 "$ROUNDS"); do
    timed "peer-bw-$r" "$g" --device all --no-color peer --mode ce,ce-write,sm-read,sm-write,ce-nop2p \
      --direction uni,bidir --sizes 512MiB --json "$OUT/peer-bw-$r.json"
    timed "peer-small-$r" "$g" --device all --no-color peer --mode ce,ce-write,sm-read,sm-write \
      --direction uni --sizes 16,4KiB --json "$OUT/peer-small-$r.json"
    timed "peer-chase-$r" "$g" --device all --no-color peer --mode sm-latency \
      --sizes "$latency_sizes" --json "$OUT/peer-chase-$r.json"
    if [ "$gpus" -ge 3 ]; then
      timed "peer-patterns-$r" "$g" --device all --no-color peer \
        --pattern all-to-one,one-to-all,all-to-all --mode ce,ce-write --sizes 512MiB \
        --json "$OUT/peer-patterns-$r.json"
    fi
    timed "host-links-$r" "$g" --device all --no-color host-links --sizes 512MiB \
      --json "$OUT/host-links-$r.json"
    tool nvbandwidth && timed "nvbandwidth-$r" "$REFKIT/nvbandwidth" -t "${nvb_tests[@]}"
    tool p2pBandwidthLatencyTest && timed "p2p-$r" "$REFKIT/p2pBandwidthLatencyTest"
  done
fi

if has contention; then
  for r in $(seq 1 "$ROUNDS"); do
    timed "peer-patterns-$r" "$g" --device all --no-color peer \
      --pattern all-to-one,one-to-all,all-to-all --mode ce,ce-write --sizes 512MiB \
      --json "$OUT/peer-patterns-$r.json"
    timed "host-links-$r" "$g" --device all --no-color host-links --sizes 512MiB \
      --json "$OUT/host-links-$r.json"
    tool nvbandwidth && timed "nvbandwidth-$r" "$REFKIT/nvbandwidth" -t all_to_one_read_ce \
      one_to_all_write_ce host_to_all_memcpy_ce all_to_host_memcpy_ce host_to_device_memcpy_ce \
      device_to_host_memcpy_ce
  done
fi

if has smcopy; then
  for r in $(seq 1 "$ROUNDS"); do
    timed "peer-bw-$r" "$g" --device all --no-color peer --mode sm-read,sm-write \
      --direction uni,bidir --sizes 512MiB --json "$OUT/peer-bw-$r.json"
    tool nvbandwidth && timed "nvbandwidth-$r" "$REFKIT/nvbandwidth" -t \
      device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm \
      device_to_device_bidirectional_memcpy_read_sm
  done
fi

if has matrices; then
  timed matrices "$g" --device all --no-color peer --mode ce,ce-write,sm-read,sm-write,sm-latency \
    --sizes 4KiB,512MiB --json "$OUT/matrices.json"
  tool p2pBandwidthLatencyTest && timed p2p "$REFKIT/p2pBandwidthLatencyTest"
fi

if has asym; then
  for r in 1 2; do
    for order in 0,1 1,0; do
      timed "asym-home${order%%,*}-$r" "$g" --device "$order" --no-color peer --mode ce,ce-write,sm-read,sm-write \
        --direction uni --sizes 4KiB,64KiB --json "$OUT/asym-home${order%%,*}-$r.json"
    done
  done
fi

if has gate; then
  for r in $(seq 1 "$GATE_RUNS"); do
    timed "all-$r" "$g" --device all --no-color all --json "$OUT/all-$r.json"
  done
  if tool gpu_load; then
    "$REFKIT/gpu_load" pcie-h2d 600 1 >"$OUT/load.txt" 2>"$OUT/load.err" &
    load=$!
    for _ in $(seq 1 100); do grep -q ready "$OUT/load.txt" 2>/dev/null && break; sleep 0.1; done
    timed all-loaded "$g" --device all --no-color all --json "$OUT/all-loaded.json"
    kill -TERM "$load"; wait "$load"
    log "gpu_load: $(tail -1 "$OUT/load.err")"
  fi
fi

if has ctest; then
  t0=$SECONDS
  (cd build && ctest -L gpu ${CTEST_GPU:+-R "$CTEST_GPU"} --output-on-failure \
     >"$OUT/ctest-gpu.log" 2>&1)
  log "ctest -L gpu: rc=$? $((SECONDS - t0)) s $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
fi
