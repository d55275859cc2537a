// First-principles shared-memory bank model: wavefronts and n-way conflicts of a warp access.
#pragma once

#include <cstdint>
#include <span>

// The index expressions below are shared with the kernels (probes/bank_conflicts/kernels.cu),
// so the model is applied to exactly the addresses the kernels use. Host-only otherwise.
#ifdef __CUDACC__
#define GP_BANK_HD __host__ __device__
#else
#define GP_BANK_HD
#endif

namespace gpuprobe::models {

// ---------------------------------------------------------------------------------------
// The model (compute capability >= 5.0; phase sizes of loads as measured on sm_90, below).
//
// Shared memory has 32 banks, each 4 bytes wide; the 4-byte word at byte address a lies in
// bank (a / 4) mod 32. Each bank delivers one word per wavefront (one pass of the data stage,
// 32 banks x 4 B = 128 B). A warp instruction of width w bytes (4, 8 or 16) per lane covers,
// for lane l at byte address a_l (a multiple of w), the w/4 consecutive words a_l/4 ...
// a_l/4 + w/4 - 1.
//
// The lanes are split into phases of consecutive lanes, served one after another:
//     loads  (LDS):  32 lanes at 4 and 8 bytes, 16 lanes at 16 bytes
//     stores (STS):  32 lanes at 4 bytes, 16 at 8, 8 at 16 (128 B of lanes per phase)
// Within a phase, a bank must serve every *distinct* word mapped to it, one per wavefront
// (lanes touching the same word are served together: broadcast for loads, a single write
// for stores), so the phase needs
//     wavefronts(phase) = max over banks of |distinct words in that bank|
// and the instruction needs
//     wavefronts_per_request = sum over phases with at least one active lane.
// A phase cannot need fewer than ceil(distinct words / 32) wavefronts (32 banks, one word
// each per wavefront), which is its ideal; for a full warp of distinct elements that is 1, 2,
// 4 wavefronts at w = 4, 8, 16 for loads and stores alike. Then
//     conflict_ways = wavefronts_per_request / ideal_wavefronts
// (1 = conflict-free, 32 = fully serialised 4-byte access). For a full warp at element
// stride s > 0 this is gcd(s, 128 / w) (gcd(s, 32) for 4-byte words) as long as no two lanes
// wrap onto the same element, for both ops; for s = 0 (every lane on the same element) it is
// 1, with 1, 1, 2 wavefronts for loads and 1, 2, 4 for stores at w = 4, 8, 16.
//
// Revision (measured on an NVIDIA H100 80GB HBM3, sm_90, with this probe): the first version
// used phases of 128 B of lanes for loads as well (16 lanes at 8 B, 8 at 16 B). It predicted
// 2 and 4 wavefronts for 8- and 16-byte broadcast loads; the H100 took 1.05 and 2.09 cycles
// per instruction (2.04 and 4.07 at stride 1, where both rules predict 2 and 4). The load
// phases above reproduce every measured stride row (loads and stores, 4/8/16 B, strides 0..33
// and 64) within 10% and agree with the old rule on all of them except the 8- and 16-byte
// broadcast loads; the store phases were not changed (8- and 16-byte broadcast stores took 2
// and 4 cycles), and 4-byte accesses (the transpose tiles) are unaffected. This is a measured
// property of sm_90, not a general law: other architectures may split loads differently.
//
// Assumptions beyond what was measured: the stride sweep cannot tell the 32-lane phase of an
// 8-byte load (and the 16-lane phase of a 16-byte load) from 128-B phases that are merged
// only for broadcast-like accesses. The two differ on patterns the sweep does not produce:
// under this rule, half-warps whose conflicts fall in different banks overlap (lanes 0-15
// 16-way in banks 0-1 and lanes 16-31 16-way in banks 2-3: 16 wavefronts, not 32), and lanes
// of different half-warps reading the same word are served once. An answer on NVIDIA's
// developer forum describes the broadcast speed-up on cc 7.x instead as packing of returned
// registers when lane pairs (l, l^1) or (l, l^2) share addresses, which predicts the same
// numbers for every row measured here. The hardware is also assumed to retire one wavefront
// per clock per SM.
// ---------------------------------------------------------------------------------------

inline constexpr int kBanks = 32;
inline constexpr int kBankBytes = 4;
inline constexpr int kWavefrontBytes = kBanks * kBankBytes;  // 128
inline constexpr int kWarpSize = 32;

// A shared-memory load (LDS) or store (STS).
enum class AccessOp { kLoad, kStore };

// Lanes per phase (above) for a valid width (4, 8 or 16 bytes).
GP_BANK_HD constexpr int lanes_per_phase(int width_bytes, AccessOp op) {
  if (op == AccessOp::kLoad) return width_bytes == 16 ? 16 : 32;
  return kWavefrontBytes / width_bytes;
}

struct AccessPrediction {
  double wavefronts = 0;        // shared-memory wavefronts (transactions) per instruction
  double ideal_wavefronts = 0;  // sum over phases of ceil(distinct words / 32): the minimum
  double conflict_ways = 0;     // wavefronts / ideal_wavefronts (0 when no lane is active)
};

// One warp instruction `op`: byte_addresses[l] is the address lane l accesses (lanes 0..n-1
// active, n <= 32), each a multiple of width_bytes. Throws std::invalid_argument for a width
// other than 4, 8 or 16, more than 32 lanes or a misaligned address.
AccessPrediction predict_warp_access(std::span<const std::uint64_t> byte_addresses, int width_bytes,
                                     AccessOp op);

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

// The prediction for one warp instruction `op` of the stride probe.
AccessPrediction predict_stride_access(std::uint64_t stride, int width_bytes, AccessOp op);

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

// Row writes are 4-byte stores, column reads 4-byte loads (32-lane phases for both).
enum class TileAccess { kRowWrite, kColumnRead };

// Mean over the kernel's warp instructions of that kind (8 warps x 4 steps per tile; the
// mean equals total wavefronts / total instructions, as counters report it), each evaluated
// with its op (kRowWrite: store, kColumnRead: load).
AccessPrediction predict_tile_access(TileLayout layout, TileAccess access);

}  // namespace gpuprobe::models
