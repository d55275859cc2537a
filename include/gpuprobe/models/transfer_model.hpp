// First-principles limits for host<->device transfers: the PCIe link's raw data rate.
#pragma once

namespace gpuprobe::models {

// Raw data rate of a PCIe link in one direction, GB/s (1e9 B/s), after line encoding
// (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s, 1b/1b-FLIT from 64 GT/s) but before packet
// overhead (TLP headers, flow control), which typically costs another 5-15%.
// Returns 0 when the link is unknown (gts or width <= 0).
double pcie_raw_gbps(double gts_per_lane, int width);

// Generation number for a per-lane rate (2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6),
// 0 if not a standard rate.
int pcie_generation(double gts_per_lane);

}  // namespace gpuprobe::models
