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
  if (link.kind == LinkKind::kNvlink) {
    const double per_link = link.link_gbps > 0 ? link.link_gbps : nvlink_link_gbps(link.generation);
    return per_link * link.lanes;
  }
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
  if (link.kind == LinkKind::kNvlink) {
    const std::string generation = link.generation > 0 ? std::to_string(link.generation) : "";
    return fmt::format("NVLink{} x{}{}", generation, link.lanes,
                       link.via_nvswitch ? " via NVSwitch" : "");
  }
  if (link.kind == LinkKind::kPcie)
    return fmt::format("PCIe gen{} x{}", link.generation, link.lanes);
  return "unknown";
}

double pcie_gts_of_generation(int generation) {
  constexpr double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (generation < 1 || generation > 6) return 0.0;
  return kRates[generation - 1];
}

ChosenLink pcie_link_of(const DeviceInfo& d) {
  ChosenLink out;
  const double nvml_gts = pcie_gts_of_generation(d.pcie_max_generation);
  if (d.link_source == "nvml" && nvml_gts > 0 && d.pcie_max_width > 0) {
    out.link = {LinkKind::kPcie, d.pcie_max_generation, d.pcie_max_width, nvml_gts};
    out.source = "nvml";
  } else if (d.pcie_link_gts > 0 && d.pcie_link_width > 0) {
    out.link = {LinkKind::kPcie, pcie_generation(d.pcie_link_gts), d.pcie_link_width,
                d.pcie_link_gts};
    out.source = "sysfs";
  }
  return out;
}

namespace {

const PeerLinkInfo* link_to(const DeviceInfo& from, int peer) {
  for (const auto& l : from.peer_links)
    if (l.peer == peer && l.nvlinks > 0) return &l;
  return nullptr;
}

// The narrower of two GPUs' PCIe links; "nvml" only when both ends came from NVML.
ChosenLink narrower_pcie(const DeviceInfo& src, const DeviceInfo& dst) {
  const ChosenLink a = pcie_link_of(src), b = pcie_link_of(dst);
  if (a.link.kind != LinkKind::kPcie || b.link.kind != LinkKind::kPcie) return {};
  ChosenLink out;
  out.link.kind = LinkKind::kPcie;
  out.link.gts = std::min(a.link.gts, b.link.gts);
  out.link.generation = pcie_generation(out.link.gts);
  out.link.lanes = std::min(a.link.lanes, b.link.lanes);
  out.source = a.source == "nvml" && b.source == "nvml" ? "nvml" : "sysfs";
  return out;
}

}  // namespace

ChosenLink peer_link_between(const DeviceInfo& src, const DeviceInfo& dst) {
  const PeerLinkInfo* nv = link_to(src, dst.index);
  if (!nv) nv = link_to(dst, src.index);
  if (!nv) return narrower_pcie(src, dst);
  const PeerLink link{LinkKind::kNvlink,        nv->nvlink_generation, nv->nvlinks, 0.0,
                      nv->nvlink_gbps_per_link, nv->via_nvswitch};
  return {link, "nvml"};
}

PathLimit peer_path_limit(const DeviceInfo& src, const DeviceInfo& dst, PeerPath path, bool bidir) {
  PathLimit out;
  if (path == PeerPath::kP2p) {
    out.link = peer_link_between(src, dst);
    out.raw_gbps = link_raw_gbps(out.link.link);
  } else {
    out.link = narrower_pcie(src, dst);
    const double a = link_raw_gbps(pcie_link_of(src).link);
    const double b = link_raw_gbps(pcie_link_of(dst).link);
    out.raw_gbps =
        path == PeerPath::kStagedSerial ? staged_raw_gbps(a, b) : pipelined_staged_raw_gbps(a, b);
  }
  if (bidir) out.raw_gbps *= 2.0;
  return out;
}

}  // namespace gpuprobe::models
