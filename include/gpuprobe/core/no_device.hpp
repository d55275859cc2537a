// The no-GPU message in gpuprobe's words: what was looked for and what to check (host-only, so the
// unit tests see every case without a GPU).
#pragma once

#include <optional>
#include <string>

namespace gpuprobe {

// Why no CUDA device could be used, as the CUDA runtime said it.
enum class NoDeviceCause {
  kNoDriver,     // no NVIDIA driver (libcuda.so.1) could be loaded
  kOldDriver,    // a driver older than the CUDA runtime gpuprobe was built with
  kNoDevice,     // the driver sees no GPU (or CUDA_VISIBLE_DEVICES hides them all)
  kUnavailable,  // the GPUs are busy or prohibited (compute mode)
  kOther,        // anything else: CUDA's own name for it is added
};

// One line: "no usable NVIDIA GPU: ... ; check `nvidia-smi` ...". driver_version and
// runtime_version as CUDA gives them (13000 = 13.0; 0: no driver); `visible_devices` is
// CUDA_VISIBLE_DEVICES when set; `cuda_name` CUDA's error name for kOther.
std::string no_device_message(NoDeviceCause cause, int driver_version, int runtime_version,
                              const std::optional<std::string>& visible_devices,
                              const std::string& cuda_name = "");

}  // namespace gpuprobe
