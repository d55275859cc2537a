// First-principles model of the coalescing probe's offset and stride copy kernels: sectors and
// lines per warp request, and DRAM fetch blocks per warp.
#pragma once

#include <cstdint>
#include <span>

namespace gpuprobe::models {

inline constexpr int kWarpLanes = 32;    // lanes in one warp-wide request
inline constexpr int kSectorBytes = 32;  // the unit global memory moves (cc >= 6.0)
inline constexpr int kLineBytes = 128;   // an L1/L2 cache line: 4 sectors

// The two copy kernels: out[i] = in[i + offset] and out[i] = in[i * stride].
enum class CopyPattern { kOffset, kStride };

// Distinct 32-byte sectors one warp-wide access touches when lane l (0..31) accesses element
// first_element + l * step_elements, each element_bytes wide, with element 0 at a 256-byte
// aligned address. element_bytes must be a power of two from 1 to 32 and step >= 1;
// throws std::invalid_argument otherwise.
int warp_sectors(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes);

// Distinct 32-byte sectors a warp-wide access touches whose lanes access the given elements
// (any order, repeats allowed), each element_bytes wide, element 0 aligned (same width check).
int warp_sectors_at(std::span<const std::uint64_t> elements, int element_bytes);

// Distinct 128-byte lines the same access touches (same arguments and checks).
int warp_lines(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes);

// The DRAM fetch block the model uses for a granularity the driver reports
// (cudaLimitMaxL2FetchGranularity, bytes; 0 = not reported): rounded down to a power of two
// and kept within [kSectorBytes, kLineBytes] (the L2 never fetches less than a sector).
int model_fetch_bytes(std::uint64_t reported_bytes);

// The model of one sweep point (pattern, element width, offset or stride in elements).
//
// Request level: each warp's load and store are counted in sectors and in lines as the SM's
// L1 sends them on (per request), averaged over 8 consecutive warps (warp k starts
// 32 * element_bytes * k bytes in, so the misalignment repeats every 8 warps or fewer; for
// 4-byte elements and wider every warp sees the same one).
//
// DRAM level: every DRAM fetch moves one aligned block of fetch_bytes (G) bytes. Distinct
// G-byte blocks per warp over a long run of consecutive warps, loads and stores: a block two
// neighbouring warps share (the extra sector of a misaligned offset) is fetched once, a block
// that holds a single element of a wide stride costs G bytes for it. The loads' upper bound
// counts each block once per request that touches it instead: a shared block fetched again for
// the second request (it missed while the first fetch was in flight, or after the block left the
// L2). A copy whose requests start G-aligned shares no block, and both counts agree.
struct CopyPrediction {
  double load_sectors_per_request = 0;           // sectors
  double store_sectors_per_request = 0;          // sectors (stores are unit-stride and aligned)
  double load_lines_per_request = 0;             // 128-B lines
  double sector_efficiency = 0;                  // %: useful load bytes / loaded sector bytes
  double predicted_relative_bandwidth = 0;       // x: (ld+st sectors) at baseline / here
  int fetch_bytes = kSectorBytes;                // G used by the DRAM level
  double dram_bytes_per_warp = 0;                // B: distinct ld+st G-blocks per warp x G
  double dram_load_bytes_per_warp = 0;           // B: the loads' part of it
  double dram_store_bytes_per_warp = 0;          // B: the stores' part of it
  double dram_load_bytes_per_warp_refetch = 0;   // B: loads, G-blocks per request x G (bound)
  double predicted_relative_bandwidth_dram = 0;  // x: DRAM bytes at baseline / here
};

// The baseline of both sweeps is the aligned unit-stride copy (offset 0 / stride 1) of the
// same width. offset_or_stride: elements; a stride must be >= 1, an offset may be 0.
// fetch_bytes: G, a power of two from kSectorBytes to kLineBytes.
// Throws std::invalid_argument for bad arguments (see warp_sectors).
CopyPrediction predict_copy(CopyPattern pattern, int element_bytes, std::uint64_t offset_or_stride,
                            int fetch_bytes = kSectorBytes);

// Bytes of distinct 32-byte sectors one launch that copies `elements` elements touches, input
// and output together (the launch's DRAM working set). Closed form, exact.
std::uint64_t copy_touched_bytes(CopyPattern pattern, int element_bytes,
                                 std::uint64_t offset_or_stride, std::uint64_t elements);

// Elements of the input one launch needs: elements + offset, or (elements - 1) * stride + 1.
std::uint64_t copy_input_elements(CopyPattern pattern, std::uint64_t offset_or_stride,
                                  std::uint64_t elements);

}  // namespace gpuprobe::models
