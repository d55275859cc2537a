#!/usr/bin/env bash
# Makes nvml.h available to the build: the CUDA toolkit's own where it has one, otherwise NVIDIA's
# nvidia-nvml-dev wheel (pinned) fetched with pip and unpacked into .deps/nvml/include (git-ignored).
# gpuprobe compiles against the header only: libnvidia-ml.so.1 is opened at run time.
# Environment: CUDACXX (nvcc, to find the toolkit), NVML_DEV_VERSION (default 13.0.87).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${NVML_DEV_VERSION:-13.0.87}
DEST=.deps/nvml/include

# The toolkit's include folders, from nvcc's place (CUDACXX, PATH, the usual install).
toolkit_has_header() {
  local nvcc=${CUDACXX:-$(command -v nvcc || true)}
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  [ -z "$nvcc" ] && return 1
  local root
  root=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
  for dir in "$root/include" "$root"/targets/*/include; do
    [ -f "$dir/nvml.h" ] && return 0
  done
  return 1
}

if [ -f "$DEST/nvml.h" ] || toolkit_has_header; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "fetch-nvml-header: nvml.h is not in the CUDA toolkit; fetching nvidia-nvml-dev==$VERSION" >&2
if ! python3 -m pip download --quiet --no-deps "nvidia-nvml-dev==$VERSION" -d "$work" >&2; then
  echo "fetch-nvml-header: could not download nvidia-nvml-dev==$VERSION with pip; install a CUDA" \
    "toolkit that has include/nvml.h, or put nvml.h into $DEST yourself" >&2
  exit 2
fi
mkdir -p "$DEST"
python3 - "$work" "$DEST" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/nvidia_nvml_dev-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith("/include/nvml.h")]
    if not names:
        sys.exit("fetch-nvml-header: the wheel holds no include/nvml.h")
    with z.open(names[0]) as src, open(sys.argv[2] + "/nvml.h.tmp", "wb") as dst:
        dst.write(src.read())
PY
mv "$DEST/nvml.h.tmp" "$DEST/nvml.h"
echo "fetch-nvml-header: $DEST/nvml.h" >&2
