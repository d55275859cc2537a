// The `partitions` probe's address arithmetic (shared with its kernels, so the model sees exactly
// the addresses the kernels touch) and the GT200 partition model of the seeds: which of the 8
// DRAM partitions of 256 B the concurrently accessed addresses hit, and the slowdown that implies.
#pragma once

#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define GP_PART_HD __host__ __device__
#else
#define GP_PART_HD
#endif

namespace gpuprobe::models {

// ---------------------------------------------------------------------------------------
// The stride sweep. `streams` regions are read at once, region k starting at k x stride; each
// is read in steps of kChunkBytes (one warp pair: kStreamThreads threads x 4 B), so one stream
// touches one 256-B chunk at a time. A block of kStreamThreads threads reads kStreamsPerBlock
// streams, one load of each in flight per thread (region index r of the block: streams
// r x kStreamsPerBlock ... + kStreamsPerBlock - 1). When a region is longer than the stride,
// it goes on `streams` strides further (the rows of a matrix of pitch `stride`, `streams` rows
// per band), so regions never overlap, the buffer stays as dense as the stride allows, and the
// addresses read at one step by all streams stay exactly `stride` apart.
inline constexpr int kStreamThreads = 64;
inline constexpr std::uint64_t kChunkBytes = 256;  // kStreamThreads x 4 B
inline constexpr int kStreamsPerBlock = 4;
inline constexpr int kMaxStreamBlocksPerSm = 32;  // 32 x 64 threads: a full SM

// Where a stream is after `step` steps: its band (row of the pitch-`stride` matrix, in units
// of `streams` rows) and the column within it. The kernels step it on without dividing.
struct StreamPos {
  std::uint64_t band = 0, col = 0;
};
GP_PART_HD inline StreamPos stream_pos(std::uint64_t step, std::uint64_t stride) {
  const std::uint64_t pos = step * kChunkBytes;
  return {pos / stride, pos % stride};
}
GP_PART_HD inline void next_pos(StreamPos& p, std::uint64_t stride) {
  p.col += kChunkBytes;
  if (p.col == stride) {
    p.col = 0;
    ++p.band;
  }
}
// Byte offset of stream `k` at `p` (stride a multiple of kChunkBytes).
GP_PART_HD inline std::uint64_t stream_offset_at(std::uint64_t k, StreamPos p, std::uint64_t stride,
                                                 std::uint64_t streams) {
  return (k + p.band * streams) * stride + p.col;
}
// Byte offset of step `step` of stream `k`.
GP_PART_HD inline std::uint64_t stream_offset(std::uint64_t k, std::uint64_t step,
                                              std::uint64_t stride, std::uint64_t streams) {
  return stream_offset_at(k, stream_pos(step, stride), stride, streams);
}

// The 4-byte word thread `t` of a block reads of stream `k` at `p`.
GP_PART_HD inline std::uint64_t stream_word(std::uint64_t k, StreamPos p, std::uint32_t t,
                                            std::uint64_t stride, std::uint64_t streams) {
  return stream_offset_at(k, p, stride, streams) / 4 + t;
}

// The region a block reads: row order (mult 1) or a scatter of the launch order (mult odd and
// coprime with `blocks`: a permutation that puts blocks launched together on far regions).
GP_PART_HD inline std::uint64_t block_region(std::uint64_t block, std::uint64_t blocks,
                                             std::uint64_t mult) {
  return block * mult % blocks;
}

// One stream's fold of the words it read (order-sensitive: a swapped step changes it).
GP_PART_HD inline std::uint32_t stream_fold(std::uint32_t acc, std::uint32_t word) {
  return acc * 0x9E3779B1u + word;
}

// ---------------------------------------------------------------------------------------
// The transpose (the CUDA SDK's transposeCoalesced and transposeDiagonal): kTile x kTile tiles
// of floats through shared memory, blocks of kTile x kTileRows threads. Block (bx, by) of an
// n/kTile-square grid transposes tile (tx, ty): row order (tx, ty) = (bx, by); diagonal order
// ty = bx, tx = (bx + by) mod grid. It reads rows ty x kTile.. of the input at columns
// tx x kTile.. and writes rows tx x kTile.. of the output at columns ty x kTile...
inline constexpr int kTile = 32;
inline constexpr int kTileRows = 8;

struct TileXY {
  std::uint32_t x = 0, y = 0;
};
GP_PART_HD inline TileXY transpose_tile(std::uint32_t bx, std::uint32_t by, std::uint32_t grid,
                                        bool diagonal) {
  if (!diagonal) return {bx, by};
  return {(bx + by) % grid, bx};
}

// ---------------------------------------------------------------------------------------
// Sizing of the stride sweep. At full width every SM holds its most stream blocks; a stride
// whose buffer would pass `cap_bytes` halves the blocks (and so the streams) until it fits, each
// stream reading proportionally more, so every point moves the same bytes (to a chunk).
struct StreamLayout {
  std::uint64_t blocks = 0;
  std::uint64_t streams = 0;       // blocks x kStreamsPerBlock
  std::uint64_t region_bytes = 0;  // per stream, a multiple of kChunkBytes
  std::uint64_t steps = 0;         // region_bytes / kChunkBytes
  std::uint64_t extent = 0;        // bytes of buffer the layout spans
  std::uint64_t bytes() const { return streams * region_bytes; }
};
// The bytes the layout spans: the last step of the last stream, plus its chunk.
std::uint64_t stream_extent(std::uint64_t stride, std::uint64_t streams, std::uint64_t steps);
// full_blocks: stream blocks resident at full width; full_region: bytes per stream there.
// A layout of one block that still does not fit has extent > cap_bytes (the caller drops it).
StreamLayout stream_layout(std::uint64_t stride, std::uint64_t full_blocks,
                           std::uint64_t full_region, std::uint64_t cap_bytes);
// The scatter order's multiplier for `blocks` (1 for fewer than 3).
std::uint64_t scatter_multiplier(std::uint64_t blocks);

// ---------------------------------------------------------------------------------------
// The GT200 model (the seeds, book section 4.7.3; GTX 280): DRAM is split into 8 partitions of
// 256 B, the byte at address a in partition (a / 256) mod 8. Concurrent accesses that fall into
// fewer partitions are served by fewer controllers, one after another: with h of the 8
// partitions hit, the bandwidth falls to h / 8 of the spread-out one (the seeds' "1/8" when all
// blocks write into one partition). "Concurrent" is taken as lockstep: every resident stream (or
// block) at the same step. It has no address hashing, no L2, no notion of channel count.
inline constexpr std::uint64_t kGt200PartitionBytes = 256;
inline constexpr int kGt200Partitions = 8;

GP_PART_HD inline int gt200_partition(std::uint64_t address) {
  return static_cast<int>(address / kGt200PartitionBytes % kGt200Partitions);
}

struct Gt200Prediction {
  double partitions_hit = 0;  // mean over the steps looked at, 1..8
  double slowdown = 0;        // 8 / partitions_hit (1: spread out)
};
// The stride sweep: per step (the first kGt200Steps, or all when fewer), the partitions the
// chunks of all streams at that step hit; averaged over the steps.
inline constexpr std::uint64_t kGt200Steps = 16;
Gt200Prediction gt200_streams(std::uint64_t stride, std::uint64_t streams, std::uint64_t steps);
// The transpose of an n x n float matrix: the first wave of `wave_blocks` blocks in launch order
// (bx fastest); the partitions their tiles' rows hit when read and when written. Reads and
// writes move the same bytes, so the slowdown is the mean of the two (8/h_read + 8/h_write) / 2.
struct Gt200Transpose {
  double read_hit = 0, write_hit = 0;
  double slowdown = 0;
};
Gt200Transpose gt200_transpose(std::uint64_t n, bool diagonal, std::uint64_t wave_blocks);

}  // namespace gpuprobe::models
