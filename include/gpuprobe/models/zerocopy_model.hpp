// First-principles PCIe traffic of the zerocopy probe's access patterns: the transaction-layer
// packets (TLPs) a kernel's reads or writes of mapped host memory (zero-copy), or the explicit
// copy of the copy mode, put on the link, headers included.
#pragma once

#include <cstdint>

namespace gpuprobe::models {

// The L2's units: a read miss to host memory asks for whole 32-byte sectors of one 128-byte line.
inline constexpr int kZeroCopySectorBytes = 32;
inline constexpr int kZeroCopyLineBytes = 128;
// PCIe TLP headers (PCIe base spec): a completion with data has a 3-DW header, a memory write or
// read request with a 64-bit address a 4-DW one.
inline constexpr int kCompletionHeaderBytes = 12;
inline constexpr int kRequestHeaderBytes = 16;
// The copy engines move the span in TLPs of the link's maximum payload size.
inline constexpr int kCopyTlpPayloadBytes = 256;

// One operation of the probe: `elements` elements of `element_bytes` bytes (4, 8 or 16), element
// i at byte i x stride x element_bytes of a 128-byte-aligned host buffer, each pass touching every
// element once, `reuse` passes. Zero-copy: every pass crosses the link; copy: the span crosses
// once (cudaMemcpyAsync), the passes then use device memory.
struct HostAccess {
  bool zero_copy = true;
  std::uint64_t stride = 1;  // elements
  int element_bytes = 4;
  std::uint64_t elements = 0;
  std::uint64_t reuse = 1;
};

// What crosses the link in the data's direction (read: completions towards the GPU; write:
// write requests towards the host): TLPs, the data they carry, and data + headers.
struct LinkTraffic {
  std::uint64_t tlps = 0;
  std::uint64_t data_bytes = 0;
  std::uint64_t link_bytes = 0;
};

// Bytes the kernel uses: elements x element_bytes (counted once, whatever the reuse).
std::uint64_t payload_bytes(const HostAccess& a);
// Bytes of host memory from the first element to the end of the last: (n-1) s w + w.
std::uint64_t span_bytes(const HostAccess& a);

// One zero-copy pass. Reads: one request per 128-byte line touched, for the sectors from its
// first to its last touched sector; its completion carries them plus a 3-DW header. Writes: one
// write per run of contiguous written bytes within a line (a TLP's byte enables cannot skip
// bytes in between), carrying exactly those bytes plus a 4-DW header.
LinkTraffic pass_traffic(const HostAccess& a, bool write);
// The whole operation: zero-copy reuse x pass_traffic; copy the span once in TLPs of
// kCopyTlpPayloadBytes (each with its read-completion or write header).
LinkTraffic link_traffic(const HostAccess& a, bool write);
// link_traffic(...).link_bytes / payload_bytes: 0 without payload.
double link_bytes_per_payload(const HostAccess& a, bool write);

}  // namespace gpuprobe::models
