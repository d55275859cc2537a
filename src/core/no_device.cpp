// The no-GPU message: what gpuprobe looked for and what to check, never CUDA's bare text.
#include "gpuprobe/core/no_device.hpp"

#include <fmt/format.h>

namespace gpuprobe {
namespace {

std::string cuda_version(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

// What CUDA_VISIBLE_DEVICES adds to a message, or "".
std::string visible_note(const std::optional<std::string>& visible) {
  if (!visible) return "";
  return fmt::format(" (CUDA_VISIBLE_DEVICES='{}' limits which GPUs gpuprobe sees)",
                     visible->substr(0, 64));
}

}  // namespace

std::string no_device_message(NoDeviceCause cause, int driver_version, int runtime_version,
                              const std::optional<std::string>& visible_devices,
                              const std::string& cuda_name) {
  const std::string head =
      "no usable NVIDIA GPU: gpuprobe looked for CUDA devices through the "
      "NVIDIA driver";
  switch (cause) {
    case NoDeviceCause::kNoDriver:
      return head +
             " and found no driver (libcuda.so.1 could not be loaded); check that "
             "`nvidia-smi` lists a GPU: if it does not, install or load the NVIDIA driver";
    case NoDeviceCause::kOldDriver:
      return head + fmt::format(
                        ": the driver supports CUDA {} and this gpuprobe was built with CUDA {}; "
                        "check the driver version `nvidia-smi` shows and update it, or build "
                        "gpuprobe with a CUDA toolkit the driver supports",
                        cuda_version(driver_version), cuda_version(runtime_version));
    case NoDeviceCause::kNoDevice:
      return head + fmt::format(
                        " (CUDA {}) and the driver reports no GPU{}; check that `nvidia-smi` "
                        "lists one",
                        cuda_version(driver_version), visible_note(visible_devices));
    case NoDeviceCause::kUnavailable:
      return head +
             " and its GPUs are busy or unavailable (compute mode exclusive or "
             "prohibited); check `nvidia-smi` for the compute mode and other processes";
    case NoDeviceCause::kOther:
      break;
  }
  return head + fmt::format(" and the driver refused ({}){}; check that `nvidia-smi` lists a GPU",
                            cuda_name, visible_note(visible_devices));
}

}  // namespace gpuprobe
