#!/usr/bin/env bash
# Builds the reference tools the multi-GPU checks run beside gpuprobe, on a machine without a GPU,
# into one small folder to carry to the GPU machine (whose tree limit leaves no room for Boost):
# nvbandwidth (Boost.program_options linked statically from Debian 12's packages, NVML and the
# driver linked against link-time stand-ins; the GPU machine's driver libraries load at run time)
# and cuda-samples' p2pBandwidthLatencyTest (static cudart). Kernels for sm_90.
# Usage: scripts/build-reference-tools.sh NVBANDWIDTH_SRC CUDA_SAMPLES_SRC OUT_DIR
#   e.g. NVBANDWIDTH_SRC = a checkout of NVIDIA/nvbandwidth v0.8, OUT_DIR = .refkit/bin
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 NVBANDWIDTH_SRC CUDA_SAMPLES_SRC OUT_DIR" >&2; exit 2; }
NVB=$(realpath "$1"); SAMPLES=$(realpath "$2"); mkdir -p "$3"; OUT=$(realpath "$3")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
"$ROOT/scripts/fetch-nvml-header.sh" >/dev/null
NVML_INC=$(dirname "$(find /usr/local/cuda/include "$ROOT/.deps/nvml/include" -name nvml.h 2>/dev/null | head -1)")
(cd "$WORK" && chmod 777 . && apt-get download libboost1.74-dev libboost-program-options1.74-dev \
   libboost-program-options1.74.0 >/dev/null && for d in *.deb; do dpkg -x "$d" boost; done)
# The NVML functions nvbandwidth calls, as a link-time stand-in with the driver library's soname.
cat >"$WORK/nvml_stub.c" <<'C'
#include "nvml.h"
nvmlReturn_t nvmlInit(void) { return NVML_ERROR_UNKNOWN; }
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* u, nvmlDevice_t* d) { (void)u; (void)d; return NVML_ERROR_UNKNOWN; }
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t d) { (void)d; return NVML_ERROR_UNKNOWN; }
const char* nvmlErrorString(nvmlReturn_t r) { (void)r; return ""; }
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned n) { (void)v; (void)n; return NVML_ERROR_UNKNOWN; }
C
gcc -shared -fPIC -I "$NVML_INC" -Wl,-soname,libnvidia-ml.so.1 "$WORK/nvml_stub.c" \
  -o "$WORK/libnvidia-ml.so"
B=$WORK/boost/usr
cmake -S "$NVB" -B "$WORK/nvb" -DCMAKE_CUDA_ARCHITECTURES=90 -DBoost_ROOT="$B" \
  -DBoost_NO_SYSTEM_PATHS=ON -DBoost_INCLUDE_DIR="$B/include" \
  -DCMAKE_PREFIX_PATH="$B/lib/x86_64-linux-gnu/cmake" -DCMAKE_CXX_FLAGS="-I$NVML_INC" -DCMAKE_CUDA_FLAGS="-I$NVML_INC" \
  -DCMAKE_EXE_LINKER_FLAGS="-L$WORK -L/usr/local/cuda/lib64/stubs" >"$WORK/nvb.log" 2>&1 &&
  cmake --build "$WORK/nvb" -j "$(nproc)" >>"$WORK/nvb.log" 2>&1 || { grep -m5 -B2 -A3 error "$WORK/nvb.log"; exit 1; }
cp "$WORK/nvb/nvbandwidth" "$OUT/"
nvcc -O3 -arch=sm_90 -I "$SAMPLES/Common" \
  "$SAMPLES/Samples/5_Domain_Specific/p2pBandwidthLatencyTest/p2pBandwidthLatencyTest.cu" \
  -o "$OUT/p2pBandwidthLatencyTest"
echo "built: $(ls "$OUT")  (nvbandwidth $(sed -n 's/.*NVBANDWIDTH_VERSION "\(.*\)"/\1/p' "$NVB/version.h"))"
