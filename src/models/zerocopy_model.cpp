// PCIe byte accounting of the zerocopy probe's access patterns (see zerocopy_model.hpp).
#include "gpuprobe/models/zerocopy_model.hpp"

namespace gpuprobe::models {

std::uint64_t payload_bytes(const HostAccess& a) {
  return a.elements * static_cast<std::uint64_t>(a.element_bytes);
}

std::uint64_t span_bytes(const HostAccess& a) {
  if (a.elements == 0) return 0;
  const auto w = static_cast<std::uint64_t>(a.element_bytes);
  return (a.elements - 1) * a.stride * w + w;
}

std::uint64_t chunks_touched(const HostAccess& a, int chunk_bytes) {
  if (a.elements == 0 || chunk_bytes <= 0) return 0;
  const auto c = static_cast<std::uint64_t>(chunk_bytes);
  const std::uint64_t spacing = a.stride * static_cast<std::uint64_t>(a.element_bytes);
  if (spacing >= c) return a.elements;  // an element never straddles: w divides c and spacing
  return (span_bytes(a) + c - 1) / c;
}

std::uint64_t link_bytes(const HostAccess& a, int chunk_bytes) {
  if (!a.zero_copy) return span_bytes(a);
  return a.reuse * chunks_touched(a, chunk_bytes) * static_cast<std::uint64_t>(chunk_bytes);
}

double link_bytes_per_payload(const HostAccess& a, int chunk_bytes) {
  const std::uint64_t payload = payload_bytes(a);
  if (payload == 0) return 0;
  return static_cast<double>(link_bytes(a, chunk_bytes)) / static_cast<double>(payload);
}

}  // namespace gpuprobe::models
