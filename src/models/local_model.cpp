// The `local` probe's model: host references of its kernels' outputs, the spill traffic and its
// cost bounds, waves and the latency-bound chase.
#include "gpuprobe/models/local_model.hpp"

#include <array>
#include <cmath>

namespace gpuprobe::models {

std::uint32_t compute_expected(std::uint32_t seed, std::uint32_t lane, std::uint32_t steps) {
  std::array<std::uint32_t, kComputeValues> a{};
  for (int k = 0; k < kComputeValues; ++k)
    a[k] = local_start(seed, lane, k, kComputeValues);
  for (std::uint32_t s = 0; s < steps; ++s)
    for (int k = 0; k < kComputeValues; ++k)
      a[k] = compute_update(a[k], a[(k + 1) % kComputeValues]);
  std::uint32_t out = 0;
  for (int k = 0; k < kComputeValues; ++k)
    out ^= a[k] + static_cast<std::uint32_t>(k);
  return out;
}

std::uint32_t memory_fold(std::uint32_t seed, std::uint32_t lane) {
  std::uint32_t s = 0;
  for (int k = 0; k < kMemoryValues; ++k)
    s = s * 31u + local_start(seed, lane, k, kMemoryValues);
  return s;
}

std::uint32_t memory_expected(std::uint32_t end_line, std::uint32_t fold) {
  std::uint32_t power = 1;
  for (int k = 0; k < kMemoryValues; ++k)
    power *= 31u;
  return end_line * power + fold;
}

SpillTraffic spill_traffic(double local_bytes, double threads, double touches) {
  SpillTraffic t;
  t.bytes_per_thread = local_bytes * touches;
  t.load_sectors = t.bytes_per_thread * threads / 32.0;
  t.store_sectors = t.load_sectors;
  return t;
}

double spill_footprint(double local_bytes, int blocks_per_sm, int threads_per_block) {
  return local_bytes * blocks_per_sm * threads_per_block;
}

double spill_bandwidth_seconds(const SpillTraffic& t, double threads, double bytes_per_second) {
  if (bytes_per_second <= 0) return 0;
  return 2.0 * t.bytes_per_thread * threads / bytes_per_second;
}

double spill_latency_seconds(double touches, double waves, double latency_seconds) {
  return touches * waves * latency_seconds;
}

double launch_waves(double blocks, int blocks_per_sm, int sm_count) {
  const double per_wave = static_cast<double>(blocks_per_sm) * sm_count;
  return per_wave <= 0 ? 0 : std::ceil(blocks / per_wave);
}

double chase_seconds(double waves, double steps, double latency_seconds) {
  return waves * steps * latency_seconds;
}

}  // namespace gpuprobe::models
