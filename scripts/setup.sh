#!/usr/bin/env bash
# Configures and builds gpuprobe in ./build, installing missing Debian/Ubuntu packages if needed.
# Environment: BUILD_DIR (default build), CUDA_ARCH (default: "native" when a GPU is visible,
# else 90; "portable": the list in CMakeLists.txt), JOBS (default: all cores), UNITY (default ON).
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

# Kernels: for the GPU that is here ("native"); where none is, no kernel runs, so one architecture
# (sm_90) proves the CUDA code compiles at a seventh of the cost of the portable list. CUDA_ARCH
# overrides both ("portable": CMakeLists.txt's list, sm_75 to sm_120, as a release build wants).
arch_args=()
if [ "${CUDA_ARCH:-}" = portable ]; then
  arch_args=()
elif [ -n "${CUDA_ARCH:-}" ]; then
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH")
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES=native)
else
  arch_args=(-DCMAKE_CUDA_ARCHITECTURES=90)
  echo "setup: no GPU visible: kernels built for sm_90 only (CUDA_ARCH=portable: every target)" >&2
fi
# ccache, where installed, shares objects between this build and the sanitizer and fuzz builds
# (scripts/ccache-env.sh) and across clones.
launcher_args=()
if command -v ccache >/dev/null 2>&1; then
  # shellcheck source=scripts/ccache-env.sh
  . scripts/ccache-env.sh
  launcher_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

# nvml.h (compile time only; NVML itself is the driver's, opened at run time): the toolkit's, or
# NVIDIA's nvidia-nvml-dev wheel unpacked into .deps/nvml/include.
scripts/fetch-nvml-header.sh

# UNITY=ON (the default) compiles the libraries' host sources in batches (CMakeLists.txt,
# GPUPROBE_UNITY_BUILD); UNITY=OFF file by file, for a developer's one-file rebuilds.
configure() {
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DGPUPROBE_UNITY_BUILD="${UNITY:-ON}" \
    "${arch_args[@]}" "${launcher_args[@]}" "$@"
}

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
