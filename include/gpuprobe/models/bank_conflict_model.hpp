// First-principles shared-memory bank model: wavefronts and n-way conflicts of a warp access.
#pragma once

#include <cstdint>
#include <span>

// The index expressions below are shared with the kernels (probes/bank_conflicts_kernels.cu),
// so the model is applied to exactly the addresses the kernels use. Host-only otherwise.
#ifdef __CUDACC__
#define GP_BANK_HD __host__ __device__
#else
#define GP_BANK_HD
#endif

namespace gpuprobe::models {

// ---------------------------------------------------------------------------------------
// The model (compute capability >= 5.0).
//
// Shared memory has 32 banks, each 4 bytes wide; the 4-byte word at byte address a lies in
// bank (a / 4) mod 32. Each bank delivers one word per wavefront (one pass of the data stage,
// 32 banks x 4 B = 128 B). A warp instruction of width w bytes (4, 8 or 16) per lane covers,
// for lane l at byte address a_l (a multiple of w), the w/4 consecutive words a_l/4 ...
// a_l/4 + w/4 - 1.
//
// The lanes are split into phases served one after another: a phase is 128 / w consecutive
// lanes (32 lanes for 4-byte, 16 for 8-byte, 8 for 16-byte accesses), so a conflict-free
// phase moves exactly 128 B. Within a phase, a bank must serve every *distinct* word mapped
// to it (lanes touching the same word are served together: broadcast for loads, a single
// write for stores), so the phase needs
//     wavefronts(phase) = max over banks of |distinct words in that bank|
// and the instruction needs
//     wavefronts_per_request = sum over phases with at least one active lane.
// The ideal is one wavefront per non-empty phase (1, 2, 4 for a full warp at w = 4, 8, 16),
// and
//     conflict_ways = wavefronts_per_request / ideal_wavefronts
// (1 = conflict-free, 32 = fully serialised 4-byte access). For a full warp at element
// stride s > 0 this is gcd(s, 128 / w) (gcd(s, 32) for 4-byte words) as long as no two lanes
// wrap onto the same element, and 1 for s = 0 (every lane on the same element).
//
// Assumptions: the phase split for 8- and 16-byte accesses is by lane number as above, and
// the hardware never merges two phases into one wavefront (a real GPU may serve an 8-byte
// broadcast in 1 wavefront instead of 2; the measurement and the counters will show it).
// ---------------------------------------------------------------------------------------

inline constexpr int kBanks = 32;
inline constexpr int kBankBytes = 4;
inline constexpr int kWavefrontBytes = kBanks * kBankBytes;  // 128
inline constexpr int kWarpSize = 32;

struct AccessPrediction {
  double wavefronts = 0;        // shared-memory wavefronts (transactions) per instruction
  double ideal_wavefronts = 0;  // non-empty phases: the conflict-free minimum
  double conflict_ways = 0;     // wavefronts / ideal_wavefronts (0 when no lane is active)
};

// One warp instruction: byte_addresses[l] is the address lane l accesses (lanes 0..n-1 active,
// n <= 32), each a multiple of width_bytes. Throws std::invalid_argument for a width other
// than 4, 8 or 16, more than 32 lanes or a misaligned address.
AccessPrediction predict_warp_access(std::span<const std::uint64_t> byte_addresses,
                                     int width_bytes);

// ---------------------------------------------------------------------------------------
// Stride micro-probe. Lane l of every warp accesses element stride_element_index(l, stride,
// capacity) of an array of `width_bytes` elements: (l * stride) mod capacity, with capacity
// = kStrideRegionBytes / width_bytes elements (a multiple of 32 words, so the wrap keeps the
// bank of every word). Stride 0 is the broadcast case: every lane on element 0.
// The kernel adds the same element offset to every lane on each unrolled step; a uniform
// shift by whole elements permutes the banks and so leaves the prediction unchanged.
// ---------------------------------------------------------------------------------------

inline constexpr std::uint32_t kStrideRegionBytes = 32768;  // no wrap for stride <= 64 at 16 B

GP_BANK_HD constexpr std::uint32_t stride_capacity(int width_bytes) {
  return kStrideRegionBytes / static_cast<std::uint32_t>(width_bytes);
}

GP_BANK_HD constexpr std::uint32_t stride_element_index(std::uint32_t lane, std::uint64_t stride,
                                                        std::uint32_t capacity) {
  return static_cast<std::uint32_t>((lane * stride) % capacity);
}

// The prediction for one warp instruction of the stride probe (loads and stores alike).
AccessPrediction predict_stride_access(std::uint64_t stride, int width_bytes);

// ---------------------------------------------------------------------------------------
// Transpose tile (32 x 32 fp32 elements, thread block 32 x 8, each thread 4 elements).
// tile_word(layout, row, col) is the word offset of element (row, col) inside the tile:
//   plain     row * 32 + col               (float tile[32][32])
//   padded    row * 33 + col               (float tile[32][33])
//   swizzled  row * 32 + (col ^ row)       (float tile[32][32], XOR-swizzled columns)
// The kernels write tile element (ty + j, tx) (row write, global rows read coalesced) and
// read element (tx, ty + j) (column read), for ty = warp 0..7 and j = 0, 8, 16, 24; lane = tx.
// ---------------------------------------------------------------------------------------

inline constexpr int kTileDim = 32;
inline constexpr int kBlockRows = 8;

enum class TileLayout { kPlain, kPadded, kSwizzled };

GP_BANK_HD constexpr int tile_pitch(TileLayout layout) {
  return layout == TileLayout::kPadded ? kTileDim + 1 : kTileDim;
}

GP_BANK_HD constexpr int tile_words(TileLayout layout) {
  return kTileDim * tile_pitch(layout);
}

GP_BANK_HD constexpr int tile_word(TileLayout layout, int row, int col) {
  return row * tile_pitch(layout) + (layout == TileLayout::kSwizzled ? (col ^ row) : col);
}

enum class TileAccess { kRowWrite, kColumnRead };

// Mean over the kernel's warp instructions of that kind (8 warps x 4 steps per tile; the
// mean equals total wavefronts / total instructions, as counters report it).
AccessPrediction predict_tile_access(TileLayout layout, TileAccess access);

}  // namespace gpuprobe::models
