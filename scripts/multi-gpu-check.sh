#!/usr/bin/env bash
# On a machine of several GPUs: builds gpuprobe (and, when REFKIT names a folder holding
# nvbandwidth v0.8, cuda-samples' p2pBandwidthLatencyTest and their build.sh, the reference
# tools), then records the topology, `gpuprobe info`, `peer`, `host-links`, the reference tools'
# matching testcases and the multi-GPU GPU tests. Results in $OUT (default /tmp/multi-gpu).
# Usage: [REFKIT=DIR] [PEER_SIZES=4KiB,512MiB] scripts/multi-gpu-check.sh
set -uo pipefail
OUT=${OUT:-/tmp/multi-gpu}
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
nvidia-smi -L | tee -a "$OUT/check.log"
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
nvidia-smi nvlink -s >"$OUT/nvlink.txt" 2>&1
rev=$(cat .git-rev 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ -n "${REFKIT:-}" ]; then "$REFKIT/build.sh" >"$OUT/refkit-build.log" 2>&1 & fi
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
         -DGPUPROBE_GIT="$rev" >"$OUT/build.log" 2>&1 &&
       cmake --build build -j "$(nproc)" --target gpuprobe gpuprobe_gpu_tests >>"$OUT/build.log" 2>&1; }; then
  tail -30 "$OUT/build.log"; exit 1
fi
wait
log "built $rev"
g=./build/gpuprobe
timed info "$g" info
timed peer "$g" --device all --no-color peer --sizes "${PEER_SIZES:-4KiB,512MiB}" --json "$OUT/peer.json"
timed host-links "$g" --device all --no-color host-links --json "$OUT/host-links.json"
if [ -n "${REFKIT:-}" ] && [ -x "$REFKIT/nvbandwidth/build/nvbandwidth" ]; then
  timed nvbandwidth "$REFKIT/nvbandwidth/build/nvbandwidth" -t device_to_device_memcpy_read_ce \
    device_to_device_memcpy_write_ce device_to_device_bidirectional_memcpy_read_ce \
    device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm \
    device_to_device_bidirectional_memcpy_read_sm device_to_device_latency_sm \
    host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_all_memcpy_ce all_to_host_memcpy_ce \
    all_to_one_read_ce one_to_all_write_ce
fi
if [ -n "${REFKIT:-}" ] && [ -x "$REFKIT/p2pBandwidthLatencyTest" ]; then
  timed p2pBandwidthLatencyTest "$REFKIT/p2pBandwidthLatencyTest"
fi
(cd build && ctest -L gpu -R "${CTEST_GPU:-Peer|HostLinks|LinkFacts|L2Persist}" --output-on-failure \
   >"$OUT/ctest-gpu.log" 2>&1)
log "ctest -L gpu: rc=$? $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
