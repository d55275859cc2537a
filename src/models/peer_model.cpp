// Link arithmetic for the peer probe's model: NVLink generations and PCIe links.
#include "gpuprobe/models/peer_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuprobe/models/transfer_model.hpp"

namespace gpuprobe::models {

// Per link, per direction, GB/s, from NVIDIA's architecture whitepapers: NVLink 1 (P100,
// 4 links, 160 GB/s total both ways) 20; NVLink 2 (V100, 6 links, 300 GB/s) 25; NVLink 3 (A100,
// 12 links, 600 GB/s) 25; NVLink 4 (H100, 18 links, 900 GB/s) 25; NVLink 5 (B200, 18 links,
// 1.8 TB/s) 50. The totals count both directions: links x per-direction rate x 2.
double nvlink_link_gbps(int generation) {
  switch (generation) {
    case 1:
      return 20.0;
    case 2:
    case 3:
    case 4:
      return 25.0;
    case 5:
      return 50.0;
    default:
      return 0.0;
  }
}

// PCIe: transfer_model's pcie_raw_gbps (the PCI-SIG base specifications' line rates and
// encodings: 8b/10b to 5 GT/s, 128b/130b from 8 GT/s).
double link_raw_gbps(const PeerLink& link) {
  if (link.lanes <= 0) return 0.0;
  if (link.kind == LinkKind::kNvlink) return nvlink_link_gbps(link.generation) * link.lanes;
  if (link.kind == LinkKind::kPcie) return pcie_raw_gbps(link.gts, link.lanes);
  return 0.0;
}

double staged_raw_gbps(double src_pcie_gbps, double dst_pcie_gbps) {
  if (src_pcie_gbps <= 0 || dst_pcie_gbps <= 0) return 0.0;
  return 1.0 / (1.0 / src_pcie_gbps + 1.0 / dst_pcie_gbps);
}

double pipelined_staged_raw_gbps(double src_pcie_gbps, double dst_pcie_gbps) {
  if (src_pcie_gbps <= 0 || dst_pcie_gbps <= 0) return 0.0;
  return std::min(src_pcie_gbps, dst_pcie_gbps);
}

std::string link_text(const PeerLink& link) {
  if (link.kind == LinkKind::kNvlink)
    return fmt::format("NVLink{} x{}", link.generation, link.lanes);
  if (link.kind == LinkKind::kPcie)
    return fmt::format("PCIe gen{} x{}", link.generation, link.lanes);
  return "unknown";
}

}  // namespace gpuprobe::models
