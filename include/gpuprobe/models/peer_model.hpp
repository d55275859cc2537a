// First-principles limits for GPU-to-GPU copies: the raw data rate of the link between two GPUs.
#pragma once

#include <string>

namespace gpuprobe::models {

// How two GPUs of one host are joined, as far as the build can tell.
enum class LinkKind { kUnknown, kPcie, kNvlink };

struct PeerLink {
  LinkKind kind = LinkKind::kUnknown;
  int generation = 0;  // NVLink 1..5, or PCIe 1..6
  int lanes = 0;       // NVLink links between the pair, or PCIe lanes (the narrower end)
  double gts = 0;      // PCIe GT/s per lane (the slower end); unused for NVLink
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
// "NVLink4 x18", "PCIe gen5 x16", "unknown".
std::string link_text(const PeerLink& link);

}  // namespace gpuprobe::models
