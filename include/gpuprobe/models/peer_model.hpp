// First-principles limits for GPU-to-GPU copies: the raw data rate of the link between two GPUs.
#pragma once

#include <string>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe::models {

// How two GPUs of one host are joined, as far as the build can tell.
enum class LinkKind { kUnknown, kPcie, kNvlink };

struct PeerLink {
  LinkKind kind = LinkKind::kUnknown;
  int generation = 0;  // NVLink 1..5, or PCIe 1..6
  int lanes = 0;       // NVLink links between the pair, or PCIe lanes (the narrower end)
  double gts = 0;      // PCIe GT/s per lane (the slower end); unused for NVLink
  // NVLink: the per-link rate one way as NVML reports it, GB/s; 0: the generation's whitepaper
  // rate (nvlink_link_gbps). Unused for PCIe.
  double link_gbps = 0;
  bool via_nvswitch = false;  // NVLink: the links end at an NVSwitch that reaches the peer
};

// A link and where its facts came from: "nvml", "sysfs", or "" (nothing known).
struct ChosenLink {
  PeerLink link;
  std::string source;
};

// Raw data rate of one NVLink link in one direction, GB/s (1e9 B/s); 0 for an unknown generation.
double nvlink_link_gbps(int generation);
// Raw one-direction data rate of a link, GB/s; 0 when the link is unknown.
double link_raw_gbps(const PeerLink& link);
// A copy staged through pinned host memory, device-to-host then host-to-device one after the
// other: its bandwidth is 1 / (1/a + 1/b) for the two PCIe links' raw rates a and b (GB/s);
// 0 when either is unknown.
double staged_raw_gbps(double src_pcie_gbps, double dst_pcie_gbps);
// The driver's own path with P2P off (cudaMemcpyPeerAsync between GPUs without peer access): it
// stages through host memory in chunks, the device-to-host chunk k+1 beside the host-to-device
// chunk k, so both PCIe links work at once and the slower one sets the rate: min(a, b) (GB/s);
// 0 when either is unknown.
double pipelined_staged_raw_gbps(double src_pcie_gbps, double dst_pcie_gbps);
// "NVLink4 x18", "NVLink4 x18 via NVSwitch", "PCIe gen5 x16", "unknown".
std::string link_text(const PeerLink& link);
// The GT/s per lane of a PCIe generation (1..6: 2.5 ... 64); 0 for any other.
double pcie_gts_of_generation(int generation);
// One GPU's PCIe link: NVML's maximum generation and width where NVML gave them (a GPU idles at
// a lower generation and trains up under load; the maximum is what a copy gets), else sysfs's
// current speed and width; kind kUnknown with source "" when neither is known.
ChosenLink pcie_link_of(const DeviceInfo& device);
// The link a copy from `src` to `dst` takes: NVLink where NVML reports active NVLinks between
// them (in src's or dst's peer_links; its per-link rate where given), else the narrower of the
// two PCIe links (pcie_link_of each; the source "nvml" only when both ends came from NVML).
ChosenLink peer_link_between(const DeviceInfo& src, const DeviceInfo& dst);

// How a copy between two GPUs travels: over the link between them (P2P), or through host memory,
// either as two whole copies one after the other (serial) or as the driver does it without peer
// access, in chunks with both PCIe links busy at once (pipelined).
enum class PeerPath { kP2p, kStagedSerial, kStagedPipelined };

// A copy path's link and raw limit (GB/s; 0 when unknown): a P2P copy's is the link between the
// GPUs; a staged copy's is staged_raw_gbps (serial) or pipelined_staged_raw_gbps (pipelined) of
// the two PCIe links, shown as the narrower PCIe link; bidir doubles it (the links are full
// duplex).
struct PathLimit {
  ChosenLink link;
  double raw_gbps = 0;
};
PathLimit peer_path_limit(const DeviceInfo& src, const DeviceInfo& dst, PeerPath path, bool bidir);

}  // namespace gpuprobe::models
