#!/usr/bin/env bash
# Configures and builds gpuprobe in ./build, installing missing Debian/Ubuntu packages if needed.
# Environment: BUILD_DIR (default build), CUDA_ARCH (default: "native" when a GPU is visible,
# else the portable list in CMakeLists.txt), JOBS (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
PACKAGES=(cmake g++ make libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev zlib1g-dev)

# nvcc: take it from PATH, CUDACXX, or the toolkit's usual place.
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ]; then
  for candidate in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
    if [ -x "$candidate" ]; then export CUDACXX=$candidate; break; fi
  done
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ]; then
  echo "setup: the CUDA toolkit (nvcc) was not found; install it or set CUDACXX=/path/to/nvcc" >&2
  exit 2
fi

install_packages() {
  command -v apt-get >/dev/null 2>&1 || return 1
  local missing=()
  for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 1
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

arch_args=()
if [ -n "${CUDA_ARCH:-}" ]; then
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH")
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES=native)
fi

configure() { cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${arch_args[@]}" "$@"; }

# Configure first: where the libraries are already there (any way they were installed),
# nothing is installed. Only if that fails are the missing Debian packages installed.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! configure >"$log" 2>&1; then
  if install_packages; then
    configure
  else
    cat "$log" >&2
    echo "setup: configuring failed; install: ${PACKAGES[*]}" >&2
    exit 2
  fi
fi
cmake --build "$BUILD_DIR" -j "$JOBS"
