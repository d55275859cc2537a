// Kernels of the bank-conflicts probe: the transpose ladder and the shared-memory stride loops.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpuprobe/core/mismatches.hpp"
#include "gpuprobe/models/bank_conflict_model.hpp"

namespace gpuprobe::bank {

// ---- Transpose ladder: n x n fp32, row-major, n a multiple of 32 -------------------------
// Every kernel runs grid (n/32, n/32) of blocks (32, 8); each block moves one 32 x 32 tile,
// each thread 4 elements (rows ty, ty+8, ty+16, ty+24).
enum class TransposeKernel {
  kCopy,      // out[r][c] = in[r][c]: same tile loop, no transpose (the roofline)
  kNaive,     // out[c][r] = in[r][c] straight from global: coalesced reads, strided writes
  kTiled,     // through float tile[32][32]: column reads conflict 32-way
  kPadded,    // through float tile[32][33]
  kSwizzled,  // through a 32 x 32 tile with column c of row r stored at c ^ r
};

void launch_transpose(TransposeKernel kernel, const float* in, float* out, int n,
                      cudaStream_t stream);

// The elements with out[r][c] != pattern_word(c * n + r, seed), i.e. where out is not the
// transpose of a matrix filled by fill_pattern_device(seed). Synchronises `stream`.
Mismatches verify_transpose(const float* out, int n, std::uint32_t seed, cudaStream_t stream);

// ---- Stride loops -----------------------------------------------------------------------
// Each thread (lane l of its warp) sits on element e_l = models::stride_element_index(l,
// stride, capacity) of a shared array of `width_bytes` elements and runs `outer` steps of
// kStrideUnroll shared instructions: step j, instruction i accesses element e_l + (j & 1) + i.
// Loads add up every word read and write the sum to out[thread]; stores write element e the
// value whose words are seed + (word index), then, after a barrier, out[thread] = sum of the
// words of elements e_l and e_l + kStrideUnroll.
// The model's op, so that a row's op is the one the model is evaluated with.
using SharedOp = models::AccessOp;

inline constexpr int kStrideThreads = 256;  // 8 warps per block
inline constexpr int kStrideUnroll = 32;    // shared instructions per step (fully unrolled)

// Resident blocks per SM of the stride kernel for this op and width (occupancy API), >= 1.
int stride_blocks_per_sm(SharedOp op, int width_bytes);

// Launches `blocks` blocks of kStrideThreads threads; out holds blocks * kStrideThreads words.
void launch_shared_stride(SharedOp op, int width_bytes, std::uint32_t stride, std::uint32_t outer,
                          std::uint32_t seed, int blocks, std::uint32_t* out, cudaStream_t stream);

// What every thread with this lane number writes to out[] (host reference of the kernels).
std::uint32_t expected_stride_output(SharedOp op, int width_bytes, std::uint32_t stride,
                                     std::uint32_t outer, std::uint32_t seed, std::uint32_t lane);

// The threads whose word in out[] (`words` of them, as launch_shared_stride wrote them) differs
// from expected_stride_output for its lane. Synchronises `stream`.
Mismatches verify_stride_output(SharedOp op, int width_bytes, std::uint32_t stride,
                                std::uint32_t outer, std::uint32_t seed, const std::uint32_t* out,
                                std::size_t words, cudaStream_t stream);

}  // namespace gpuprobe::bank
