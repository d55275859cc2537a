// Tiny kernels with known counter values, for the counter GPU tests (launchers only, no CUDA
// types).
#pragma once

#include <cstddef>

namespace gpuprobe::counters::testing {

// out[i] = in[i] for `bytes` bytes (a multiple of 16), 16-byte vector loads: every byte read
// once from DRAM when the buffer is larger than L2.
void launch_copy(const void* in, void* out, std::size_t bytes);

// out[i] = in[i * 32] for i < count (4-byte floats): every warp load touches 32 sectors.
void launch_stride32_load(const float* in, float* out, std::size_t count);

// n x n transpose (n a multiple of 32) through a 32x32 shared tile without padding: the tile is
// written by rows and read by columns, so every shared load is a 32-way bank conflict.
void launch_tile_transpose(const float* in, float* out, int n);

// Waits for the launches and throws std::runtime_error naming `what` on a CUDA error.
void sync_or_throw(const char* what);

}  // namespace gpuprobe::counters::testing
