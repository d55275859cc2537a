// Conversion of CUDA error codes into gpuprobe errors with one clear line.
#include "gpuprobe/runtime/cuda_check.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <optional>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/no_device.hpp"

namespace gpuprobe::runtime {

void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  const std::string where = fmt::format("{}:{}", base ? base + 1 : file, line);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
      status == cudaErrorDevicesUnavailable || status == cudaErrorCompatNotSupportedOnDevice) {
    throw NoDeviceError(no_device_text(status));
  }
  if (status == cudaErrorNoKernelImageForDevice) {
    throw NoDeviceError(
        fmt::format("this gpuprobe build has no kernels for this GPU ({}); rebuild "
                    "with -DCMAKE_CUDA_ARCHITECTURES=native",
                    cudaGetErrorName(status)));
  }
  throw RunError(fmt::format("CUDA error {} ({}) in {} at {}", cudaGetErrorName(status),
                             cudaGetErrorString(status), expr, where));
}

std::string no_device_text(cudaError_t status) {
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);  // 0 when no driver can be loaded
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaGetLastError();
  NoDeviceCause cause = NoDeviceCause::kOther;
  if (status == cudaErrorInsufficientDriver)
    cause = driver == 0 ? NoDeviceCause::kNoDriver : NoDeviceCause::kOldDriver;
  else if (status == cudaErrorNoDevice)
    cause = NoDeviceCause::kNoDevice;
  else if (status == cudaErrorDevicesUnavailable)
    cause = NoDeviceCause::kUnavailable;
  std::optional<std::string> visible;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) visible = v;
  return no_device_message(cause, driver, runtime, visible, cudaGetErrorName(status));
}

void check_launch(const char* what, const char* file, int line) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, what, file, line);
}

}  // namespace gpuprobe::runtime
