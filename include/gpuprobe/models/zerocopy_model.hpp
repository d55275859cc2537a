// First-principles PCIe traffic of the zerocopy probe's access patterns: the bytes a kernel's
// reads or writes of host memory (zero-copy) or the explicit copy (copy mode) move on the link.
#pragma once

#include <cstdint>

namespace gpuprobe::models {

// The write chunk of the model: the GPU's L2 writes host memory one 32-byte sector at a time,
// a partly written sector as a whole sector's write (byte-masked).
inline constexpr int kZeroCopyWriteChunkBytes = 32;

// One operation of the probe: `elements` elements of `element_bytes` bytes, element i at byte
// i x stride x element_bytes of the host buffer (stride 1: contiguous), each pass touching every
// element once, `reuse` passes. Zero-copy: every pass crosses the link; copy: the host buffer's
// span crosses once (cudaMemcpyAsync of the whole span), the passes then use device memory.
struct HostAccess {
  bool zero_copy = true;
  std::uint64_t stride = 1;  // elements
  int element_bytes = 4;
  std::uint64_t elements = 0;
  std::uint64_t reuse = 1;
};

// Bytes the kernel uses: elements x element_bytes (counted once, whatever the reuse).
std::uint64_t payload_bytes(const HostAccess& a);
// Bytes of host memory from the first element to the end of the last: (n-1) s w + w.
std::uint64_t span_bytes(const HostAccess& a);
// Aligned chunks of chunk_bytes (a power of two >= element_bytes) one pass touches: one per
// element when elements are chunk_bytes or more apart, else every chunk of the span.
std::uint64_t chunks_touched(const HostAccess& a, int chunk_bytes);
// Bytes on the link in the data's direction for the whole operation: zero-copy reuse x chunks x
// chunk_bytes; copy the span once (an explicit copy moves whole pages, not chunks).
std::uint64_t link_bytes(const HostAccess& a, int chunk_bytes);
// link_bytes / payload_bytes: for zero-copy about reuse x min(stride, chunk / element_bytes).
double link_bytes_per_payload(const HostAccess& a, int chunk_bytes);

}  // namespace gpuprobe::models
