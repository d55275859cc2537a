// A device's link facts (PCIe, NUMA, links to the other GPUs) as short texts for the renderers'
// device lines (host-only).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gpuprobe/core/units.hpp"
#include "render_layout.hpp"

namespace gpuprobe::render_detail {
namespace {

std::string pcie_text(const DeviceInfo& d) {
  if (d.pcie_generation > 0 && d.pcie_link_width > 0) {
    std::string text = fmt::format("PCIe gen{} x{}", d.pcie_generation, d.pcie_link_width);
    if (d.pcie_max_generation > 0 && d.pcie_max_width > 0)
      text += fmt::format(" (max gen{} x{})", d.pcie_max_generation, d.pcie_max_width);
    return text;
  }
  if (d.pcie_link_gts > 0 && d.pcie_link_width > 0)
    return fmt::format("PCIe {} GT/s x{}", format_number(d.pcie_link_gts), d.pcie_link_width);
  return "PCIe link unknown";
}

std::string p2p_text(const PeerLinkInfo& l) {
  if (l.p2p_read.empty() && l.p2p_write.empty() && l.p2p_atomics.empty()) return {};
  auto one = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  return fmt::format(", P2P read {} / write {} / atomics {}", one(l.p2p_read), one(l.p2p_write),
                     one(l.p2p_atomics));
}

std::string peer_text(const PeerLinkInfo& l) {
  std::string text = fmt::format("to GPU {}: ", l.peer);
  if (l.nvlinks > 0) {
    text += l.nvlink_generation > 0 ? fmt::format("NVLink{} x{}", l.nvlink_generation, l.nvlinks)
                                    : fmt::format("NVLink x{}", l.nvlinks);
    if (l.via_nvswitch) text += " via NVSwitch";
    if (l.nvlink_gbps_per_link > 0)
      text += fmt::format(", {} GB/s per link", format_number(l.nvlink_gbps_per_link));
  } else {
    text += "no NVLink";
  }
  text += p2p_text(l);
  if (!l.topology.empty()) text += ", " + l.topology;
  return text;
}

}  // namespace

std::vector<std::string> link_fact_parts(const DeviceInfo& d) {
  if (d.link_source.empty()) return {};
  std::vector<std::string> parts{fmt::format("{} ({})", pcie_text(d), d.link_source)};
  if (d.numa_node) parts.push_back(fmt::format("NUMA node {}", *d.numa_node));
  if (!d.cpu_affinity.empty()) parts.push_back(fmt::format("CPUs {}", d.cpu_affinity));
  for (const auto& link : d.peer_links)
    parts.push_back(peer_text(link));
  if (!d.nvml_unavailable.empty()) parts.push_back("no NVML: " + d.nvml_unavailable);
  return parts;
}

}  // namespace gpuprobe::render_detail
