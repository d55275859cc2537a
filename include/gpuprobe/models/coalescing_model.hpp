// First-principles sector model of the coalescing probe's offset and stride copy kernels.
#pragma once

#include <cstdint>

namespace gpuprobe::models {

inline constexpr int kWarpLanes = 32;    // lanes in one warp-wide request
inline constexpr int kSectorBytes = 32;  // the unit global memory moves (cc >= 6.0)

// The two copy kernels: out[i] = in[i + offset] and out[i] = in[i * stride].
enum class CopyPattern { kOffset, kStride };

// Distinct 32-byte sectors one warp-wide access touches when lane l (0..31) accesses element
// first_element + l * step_elements, each element_bytes wide, with element 0 at a 256-byte
// aligned address. element_bytes must be a power of two from 1 to 32 and step >= 1;
// throws std::invalid_argument otherwise.
int warp_sectors(std::uint64_t first_element, std::uint64_t step_elements, int element_bytes);

// The model of one sweep point (pattern, element width, offset or stride in elements).
//
// Request level: each warp's load and store are counted in sectors as the SM's L1 sends them
// on (sectors per request), averaged over 8 consecutive warps (every warp of these kernels
// starts 32 * element_bytes bytes after the previous one, a multiple of 32 B, so all warps
// see the same misalignment and the average equals each warp's count).
//
// DRAM level: distinct sectors per warp over a long run of consecutive warps. A sector that
// two neighbouring warps share (the fifth sector of a misaligned offset) is fetched from
// DRAM once; everything else is as at request level.
struct CopyPrediction {
  double load_sectors_per_request = 0;           // sectors
  double store_sectors_per_request = 0;          // sectors (stores are unit-stride and aligned)
  double sector_efficiency = 0;                  // %: useful load bytes / loaded sector bytes
  double predicted_relative_bandwidth = 0;       // x: (ld+st sectors) at baseline / here
  double dram_sectors_per_warp = 0;              // sectors: distinct ld+st sectors per warp
  double predicted_relative_bandwidth_dram = 0;  // x: DRAM sectors at baseline / here
};

// The baseline of both sweeps is the aligned unit-stride copy (offset 0 / stride 1) of the
// same width. offset_or_stride: elements; a stride must be >= 1, an offset may be 0.
// Throws std::invalid_argument for bad arguments (see warp_sectors).
CopyPrediction predict_copy(CopyPattern pattern, int element_bytes, std::uint64_t offset_or_stride);

// Bytes of distinct 32-byte sectors one launch that copies `elements` elements touches, input
// and output together (the launch's DRAM working set). Closed form, exact.
std::uint64_t copy_touched_bytes(CopyPattern pattern, int element_bytes,
                                 std::uint64_t offset_or_stride, std::uint64_t elements);

// Elements of the input one launch needs: elements + offset, or (elements - 1) * stride + 1.
std::uint64_t copy_input_elements(CopyPattern pattern, std::uint64_t offset_or_stride,
                                  std::uint64_t elements);

}  // namespace gpuprobe::models
