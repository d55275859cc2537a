// Conversion of CUDA error codes into gpuprobe errors with one clear line.
#include "gpuprobe/runtime/cuda_check.hpp"

#include <fmt/format.h>

#include <cstring>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::runtime {

void throw_cuda_error(cudaError_t status, const char* expr, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  const std::string where = fmt::format("{}:{}", base ? base + 1 : file, line);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
      status == cudaErrorDevicesUnavailable || status == cudaErrorCompatNotSupportedOnDevice) {
    throw NoDeviceError(
        fmt::format("no usable CUDA device: {} ({}) — check the NVIDIA driver "
                    "and CUDA_VISIBLE_DEVICES",
                    cudaGetErrorString(status), cudaGetErrorName(status)));
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

void check_launch(const char* what, const char* file, int line) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, what, file, line);
}

}  // namespace gpuprobe::runtime
