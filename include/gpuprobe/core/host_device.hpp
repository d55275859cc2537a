// GP_HOST_DEVICE: marks a function that both nvcc's kernels and the host-only code compile (the
// arithmetic a kernel and its host-side verification or analysis share).
#pragma once

#if defined(__CUDACC__)
#define GP_HOST_DEVICE __host__ __device__
#else
#define GP_HOST_DEVICE
#endif
