// The `cache` probe's peaks (include/gpuprobe/models/cache_model.hpp).
#include "gpuprobe/models/cache_model.hpp"

namespace gpuprobe::models {

double l1_peak_gbps(int sm_count, double clock_mhz) {
  if (sm_count <= 0 || clock_mhz <= 0) return 0;
  return kL1BytesPerClockPerSm * sm_count * clock_mhz * 1e6 / 1e9;
}

double dram_peak_gbps(std::int64_t memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0;
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

}  // namespace gpuprobe::models
