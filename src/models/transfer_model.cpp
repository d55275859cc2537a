// PCIe link arithmetic for the transfer probe's model.
#include "gpuprobe/models/transfer_model.hpp"

#include <cmath>

namespace gpuprobe::models {

double pcie_raw_gbps(double gts_per_lane, int width) {
  if (gts_per_lane <= 0 || width <= 0) return 0;
  double efficiency = 128.0 / 130.0;
  if (gts_per_lane <= 5.0) efficiency = 8.0 / 10.0;
  if (gts_per_lane >= 64.0) efficiency = 1.0;  // PAM4 + FLIT mode: no line encoding overhead
  return gts_per_lane * width * efficiency / 8.0;
}

int pcie_generation(double gts_per_lane) {
  const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(gts_per_lane - rates[i]) < 0.01) return i + 1;
  }
  return 0;
}

}  // namespace gpuprobe::models
