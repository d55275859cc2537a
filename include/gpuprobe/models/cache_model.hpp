// The `cache` probe's first-principles peaks: the per-SM L1/shared data path and the DRAM bus.
#pragma once

#include <cstdint>

namespace gpuprobe::models {

// Bytes the L1/shared data path of one SM returns per clock (Volta to Hopper: 128, a warp's
// 32 x 4-byte words per cycle).
inline constexpr double kL1BytesPerClockPerSm = 128;

// Aggregate L1/shared peak in GB/s: 128 B/clk/SM x SMs x the clock (MHz) measured during the run.
double l1_peak_gbps(int sm_count, double clock_mhz);

// DRAM peak in GB/s from what the runtime reports: 2 (double data rate) x memory clock x bus width.
// 0 when either is unknown.
double dram_peak_gbps(std::int64_t memory_clock_khz, int bus_width_bits);

}  // namespace gpuprobe::models
