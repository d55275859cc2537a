// The `occupancy` probe's model: the launch shape a resident-warp count gets, the bytes each SM
// has in flight (the one arithmetic the kernels' launches and the analysis share), where each
// thread's loads fall (shared with the kernels and their checks) and Little's law: the bandwidth
// a number of bytes in flight sustains at a latency, and the bytes in flight a bandwidth needs.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define GP_OCC_HD __host__ __device__
#else
#define GP_OCC_HD
#endif

namespace gpuprobe::models {

inline constexpr int kOccupancyBlockWarps = 4;  // the largest block: 4 warps (128 threads)
inline constexpr int kOccupancyMaxBlocks = 32;  // resident blocks per SM the hardware allows

// How `warps` resident warps per SM are made: blocks of gcd(warps, 4) warps, warps / that many
// blocks per SM (1, 2, 3 warps: one block; 6: three blocks of 2; 64: sixteen blocks of 4).
struct BlockShape {
  int block_threads = 0;
  int blocks_per_sm = 0;
};
GP_OCC_HD inline BlockShape block_shape(int warps) {
  int w = kOccupancyBlockWarps;
  while (w > 1 && warps % w != 0)
    w /= 2;
  return {w * 32, warps / w};
}
// Whether `warps` per SM can be made of such blocks (at most kOccupancyMaxBlocks per SM).
inline bool shape_fits(int warps) {
  return warps >= 1 && block_shape(warps).blocks_per_sm <= kOccupancyMaxBlocks;
}

// Bytes one SM has in flight: every resident thread's `ilp` independent accesses of `width`
// bytes (the loads a warp waits for; for a write, the stores it issues per step).
GP_OCC_HD inline std::uint64_t bytes_in_flight(int warps, int ilp, int width) {
  return static_cast<std::uint64_t>(warps) * 32u * static_cast<std::uint64_t>(ilp) *
         static_cast<std::uint64_t>(width);
}

// The vector (of `width` bytes) that access j of thread `thread` of block `block` touches in
// step `step` of a grid of `blocks` blocks of `block_threads`: a step covers blocks x
// block_threads x ilp vectors, a block's share of it is contiguous, and access j of a warp reads
// 32 consecutive vectors (coalesced).
GP_OCC_HD inline std::uint64_t stream_vector(std::uint64_t step, int j, std::uint32_t block,
                                             std::uint32_t thread, std::uint32_t block_threads,
                                             std::uint32_t blocks, int ilp) {
  const std::uint64_t per_block = static_cast<std::uint64_t>(block_threads) * ilp;
  return step * per_block * blocks + block * per_block +
         static_cast<std::uint64_t>(j) * block_threads + thread;
}

// The word a write leaves at 32-bit word index `word` (seed has bit 31 set: never 0, the poison,
// for the first 2^31 words).
GP_OCC_HD inline std::uint32_t occupancy_written(std::uint64_t word, std::uint32_t seed) {
  return static_cast<std::uint32_t>(word) ^ seed;
}

// Steps every thread of the grid makes over at most `bytes`: whole steps only, so every thread
// makes the same number (the streamed bytes are steps x the step's bytes, a little under `bytes`).
std::uint64_t stream_steps(std::uint64_t bytes, std::uint64_t threads, int ilp, int width);

// Little's law. A stream whose bandwidth counts `counted` bytes for each byte in flight (a read
// or a write: 1; a copy: 2, its reads in flight and read + written bytes counted) sustains
// counted x bytes-in-flight-per-SM x SMs / latency, at most the plateau (bytes/s).
double little_bandwidth(double in_flight_per_sm, int sm_count, double latency_s, double plateau,
                        double counted);
// The bytes in flight per SM that reach `fraction` of the plateau at that latency.
double knee_bytes(double fraction, double plateau, double latency_s, int sm_count, double counted);
// The latency that `in_flight_per_sm` sustaining `bandwidth` implies (Little's law backwards:
// the loaded latency at a measured point).
double implied_latency(double in_flight_per_sm, int sm_count, double bandwidth, double counted);

}  // namespace gpuprobe::models
