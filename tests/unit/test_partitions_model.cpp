// Unit tests of the partitions model: the stream addresses (hand-computed offsets, no overlap,
// the extent), the sizing that keeps the bytes moved, the scatter order, and the GT200 partition
// model on strides and on the transpose in both orders (hand-computed partitions hit).
#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "gpuprobe/models/partitions_model.hpp"

namespace gpuprobe::models {
namespace {

TEST(PartitionsModel, StreamOffsetsByHand) {
  // stride 256 = one chunk: streams side by side, the next step a band of 4 streams on.
  EXPECT_EQ(stream_offset(1, 0, 256, 4), 256u);
  EXPECT_EQ(stream_offset(1, 1, 256, 4), (1u + 4u) * 256u);
  // stride 1024: four steps along the stride, then 4 strides on.
  EXPECT_EQ(stream_offset(1, 3, 1024, 4), 1024u + 768u);
  EXPECT_EQ(stream_offset(1, 4, 1024, 4), 5u * 1024u);
  // stride beyond the region: stream k at k x stride.
  EXPECT_EQ(stream_offset(3, 2, 1u << 20, 8), 3u * (1u << 20) + 512u);
}

TEST(PartitionsModel, StepsWithoutDividingAgree) {
  for (const std::uint64_t stride : {256u, 768u, 1024u, 2304u, 65536u}) {
    StreamPos p;
    for (std::uint64_t i = 0; i < 40; ++i, next_pos(p, stride)) {
      const StreamPos q = stream_pos(i, stride);
      EXPECT_EQ(p.band, q.band) << stride << " step " << i;
      EXPECT_EQ(p.col, q.col) << stride << " step " << i;
    }
  }
}

TEST(PartitionsModel, StreamsNeverOverlapAndStayInTheExtent) {
  for (const std::uint64_t stride : {256u, 512u, 768u, 2048u, 2304u, 8192u}) {
    const std::uint64_t streams = 12, steps = 10;
    std::set<std::uint64_t> chunks;
    const std::uint64_t extent = stream_extent(stride, streams, steps);
    for (std::uint64_t k = 0; k < streams; ++k)
      for (std::uint64_t i = 0; i < steps; ++i) {
        const std::uint64_t off = stream_offset(k, i, stride, streams);
        EXPECT_EQ(off % kChunkBytes, 0u);
        EXPECT_LE(off + kChunkBytes, extent) << stride;
        EXPECT_TRUE(chunks.insert(off).second) << "stride " << stride << " overlaps at " << off;
      }
    // Concurrent streams at one step are exactly a stride apart.
    EXPECT_EQ(stream_offset(5, 3, stride, streams) - stream_offset(4, 3, stride, streams), stride);
  }
  EXPECT_EQ(stream_extent(256, 4, 2), 2048u);  // dense
  EXPECT_EQ(stream_extent(1u << 20, 8, 4), 7u * (1u << 20) + 1024u);
}

TEST(PartitionsModel, LayoutHalvesStreamsToFitAndKeepsTheBytes) {
  const StreamLayout full = stream_layout(4096, 8, 1024, 1ull << 30);
  EXPECT_EQ(full.blocks, 8u);
  EXPECT_EQ(full.streams, 32u);
  EXPECT_EQ(full.region_bytes, 1024u);
  EXPECT_EQ(full.steps, 4u);
  const StreamLayout cut = stream_layout(1u << 20, 8, 1024, 8u << 20);
  EXPECT_EQ(cut.streams, 8u);  // 32 x 1 MiB does not fit 8 MiB; 8 x 1 MiB does
  EXPECT_EQ(cut.blocks, 2u);
  EXPECT_EQ(cut.region_bytes, 4096u);
  EXPECT_EQ(cut.bytes(), full.bytes());
  EXPECT_LE(cut.extent, 8u << 20);
  const StreamLayout none = stream_layout(1u << 30, 8, 1024, 8u << 20);
  EXPECT_EQ(none.blocks, 1u);
  EXPECT_GT(none.extent, 8u << 20);  // the caller drops it
}

TEST(PartitionsModel, ScatterIsAPermutation) {
  for (const std::uint64_t blocks : {1u, 2u, 7u, 64u, 4224u, 528u}) {
    const std::uint64_t m = scatter_multiplier(blocks);
    EXPECT_EQ(std::gcd(m, blocks), 1u) << blocks;
    std::set<std::uint64_t> seen;
    for (std::uint64_t b = 0; b < blocks; ++b)
      seen.insert(block_region(b, blocks, m));
    EXPECT_EQ(seen.size(), blocks);
    if (blocks > 2) {
      EXPECT_NE(block_region(1, blocks, m), 1u) << blocks;
    }
  }
}

TEST(PartitionsModel, Gt200PartitionsOfStrides) {
  EXPECT_EQ(gt200_partition(0), 0);
  EXPECT_EQ(gt200_partition(255), 0);
  EXPECT_EQ(gt200_partition(256), 1);
  EXPECT_EQ(gt200_partition(2048 + 512), 2);
  // 2 KiB and its multiples: every stream in one partition, 8x.
  for (const std::uint64_t s : {2048u, 4096u, 1u << 20}) {
    const Gt200Prediction p = gt200_streams(s, 64, 64);
    EXPECT_DOUBLE_EQ(p.partitions_hit, 1.0) << s;
    EXPECT_DOUBLE_EQ(p.slowdown, 8.0) << s;
  }
  EXPECT_DOUBLE_EQ(gt200_streams(256, 64, 64).slowdown, 1.0);
  EXPECT_DOUBLE_EQ(gt200_streams(512, 64, 64).partitions_hit, 4.0);   // 2k mod 8
  EXPECT_DOUBLE_EQ(gt200_streams(1024, 64, 64).slowdown, 4.0);        // 4k mod 8: 2 of 8
  EXPECT_DOUBLE_EQ(gt200_streams(768, 64, 64).slowdown, 1.0);         // 3k mod 8: all
  EXPECT_DOUBLE_EQ(gt200_streams(2048 + 256, 64, 64).slowdown, 1.0);  // the seeds' fix
  // Two streams side by side: 2 partitions at every step.
  EXPECT_DOUBLE_EQ(gt200_streams(256, 2, 4).partitions_hit, 2.0);
}

TEST(PartitionsModel, Gt200TransposeRowOrderCampsOnWrites) {
  // n = 2048, one wave of the 64 blocks of the first grid row: row order writes every tile row
  // at a multiple of 8 KiB (one partition) and reads 128-B pieces 128 B apart (all 8).
  const Gt200Transpose row = gt200_transpose(2048, false, 64);
  EXPECT_DOUBLE_EQ(row.read_hit, 8.0);
  EXPECT_DOUBLE_EQ(row.write_hit, 1.0);
  EXPECT_DOUBLE_EQ(row.slowdown, 4.5);
  const Gt200Transpose diag = gt200_transpose(2048, true, 64);
  EXPECT_DOUBLE_EQ(diag.read_hit, 8.0);
  EXPECT_DOUBLE_EQ(diag.write_hit, 8.0);
  EXPECT_DOUBLE_EQ(diag.slowdown, 1.0);
  const TileXY t = transpose_tile(3, 5, 64, true);
  EXPECT_EQ(t.x, 8u);
  EXPECT_EQ(t.y, 3u);
}

}  // namespace
}  // namespace gpuprobe::models
