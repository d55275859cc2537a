// The `local` probe's model: the values its kernels compute (shared with the kernels, so the host
// can check every result), the spill traffic the compiler's stack frame implies, and what that
// traffic and the chase cost at measured L1/L2 latencies and the L1 data path.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define GP_LOCAL_HD __host__ __device__
#else
#define GP_LOCAL_HD
#endif

namespace gpuprobe::models {

inline constexpr int kLocalThreads = 256;         // threads per block of both kernels
inline constexpr int kComputeValues = 64;         // live values the compute kernel updates per step
inline constexpr int kMemoryValues = 96;          // values the memory kernel keeps across its chase
inline constexpr std::uint32_t kValueLanes = 64;  // threads t and t + 64 start from the same values
inline constexpr std::uint32_t kLineWords = 32;   // a chase line: 32 words, one per lane of a warp

// A 32-bit mixer (the start values).
GP_LOCAL_HD inline std::uint32_t local_mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Start value k of `n` for the threads whose index mod kValueLanes is `lane`.
GP_LOCAL_HD inline std::uint32_t local_start(std::uint32_t seed, std::uint32_t lane, int k, int n) {
  return local_mix(seed + lane * static_cast<std::uint32_t>(n) + static_cast<std::uint32_t>(k));
}

// The line global warp `warp` of the memory kernel starts its chase on.
GP_LOCAL_HD inline std::uint32_t chase_start(std::uint64_t warp, std::uint32_t lines) {
  return static_cast<std::uint32_t>((warp * 2654435761ull) % lines);
}

// One step of the compute kernel on value k (the next value, k + 1 mod n, already read): a
// multiply-add modulo 2^32, so the host computes the same bits.
GP_LOCAL_HD inline std::uint32_t compute_update(std::uint32_t value, std::uint32_t next) {
  return value * 1664525u + next;
}

// Host references of the kernels' outputs.
// The compute kernel's output for `lane` after `steps` steps (every value updated in order
// k = 0..n-1 each step, then folded: xor of value k + k).
std::uint32_t compute_expected(std::uint32_t seed, std::uint32_t lane, std::uint32_t steps);
// The memory kernel folds its kMemoryValues values onto the chase's end line e as
// s = s x 31 + value k, from s = e: e x 31^n + memory_fold(seed, lane).
std::uint32_t memory_fold(std::uint32_t seed, std::uint32_t lane);
std::uint32_t memory_expected(std::uint32_t end_line, std::uint32_t fold);

// The spill traffic the compiler's numbers imply: each byte of the per-thread stack frame
// (cudaFuncAttributes::localSizeBytes) stored and loaded `touches` times per thread (every step
// of a loop that keeps the spilled values live; once for values spilled around a loop), in
// 32-byte sectors: local memory interleaves the threads' words, so a warp's 4-byte spill access
// is 4 whole sectors.
struct SpillTraffic {
  double bytes_per_thread = 0;  // each way (stored, and loaded)
  double load_sectors = 0;
  double store_sectors = 0;
};
SpillTraffic spill_traffic(double local_bytes, double threads, double touches);

// Where one SM's spills live: the stack frames of its resident threads (bytes).
double spill_footprint(double local_bytes, int blocks_per_sm, int threads_per_block);

// What the spill traffic costs at best, two ways: through the L1 data path (the bytes each way
// over bytes_per_second of all SMs) and as exposed latency (each warp waits one round trip per
// touch: touches x latency per wave, waves one after the other). Both in seconds.
double spill_bandwidth_seconds(const SpillTraffic& t, double threads, double bytes_per_second);
double spill_latency_seconds(double touches, double waves, double latency_seconds);

// Waves of a launch: blocks / (blocks per SM x SMs), rounded up; 0 when nothing fits.
double launch_waves(double blocks, int blocks_per_sm, int sm_count);

// The memory kernel's chase when latency-bound: each warp's `steps` dependent loads one L2 round
// trip apart, its waves one after the other.
double chase_seconds(double waves, double steps, double latency_seconds);

}  // namespace gpuprobe::models
