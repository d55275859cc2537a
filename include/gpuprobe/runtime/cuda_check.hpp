// Checking every CUDA runtime call: a failed call becomes a RunError naming call and place.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace gpuprobe::runtime {

// Throws RunError (or NoDeviceError for missing device/driver errors) describing `expr`.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expr, const char* file,
                                   int line);

// The one line for a CUDA status that means no usable GPU (no driver, an old one, no device,
// devices unavailable), in gpuprobe's words (core/no_device.hpp), with the driver's version.
std::string no_device_text(cudaError_t status);

// Checks the last launch: cudaGetLastError, throwing as above with `what` as the call.
void check_launch(const char* what, const char* file, int line);

}  // namespace gpuprobe::runtime

#define GP_CUDA(expr)                                                               \
  do {                                                                              \
    const cudaError_t gp_status_ = (expr);                                          \
    if (gp_status_ != cudaSuccess)                                                  \
      ::gpuprobe::runtime::throw_cuda_error(gp_status_, #expr, __FILE__, __LINE__); \
  } while (0)

#define GP_CHECK_LAUNCH(what) ::gpuprobe::runtime::check_launch(what, __FILE__, __LINE__)
