// Unit tests of the zerocopy PCIe byte model (span, chunks touched, link bytes), against cases
// counted by hand.
#include "gpuprobe/models/zerocopy_model.hpp"

#include <gtest/gtest.h>

namespace gpuprobe::models {
namespace {

HostAccess zc(std::uint64_t stride, int width, std::uint64_t elements, std::uint64_t reuse = 1) {
  return {true, stride, width, elements, reuse};
}

TEST(ZeroCopyModel, SpanAndPayload) {
  // 4 elements of 4 B, stride 32: at bytes 0, 128, 256, 384; the last ends at 388.
  EXPECT_EQ(span_bytes(zc(32, 4, 4)), 388u);
  EXPECT_EQ(payload_bytes(zc(32, 4, 4)), 16u);
  EXPECT_EQ(span_bytes(zc(1, 16, 1024)), 16384u);
  EXPECT_EQ(span_bytes(zc(1, 4, 0)), 0u);
}

TEST(ZeroCopyModel, ChunksTouched) {
  // Coalesced 4 B x 1024 = 4096 B: 64 chunks of 64 B, 128 of 32 B.
  EXPECT_EQ(chunks_touched(zc(1, 4, 1024), 64), 64u);
  EXPECT_EQ(chunks_touched(zc(1, 4, 1024), 32), 128u);
  // Stride 32 of 4 B: elements 128 B apart, each in a chunk of its own, whatever the chunk.
  EXPECT_EQ(chunks_touched(zc(32, 4, 1000), 32), 1000u);
  EXPECT_EQ(chunks_touched(zc(32, 4, 1000), 64), 1000u);
  // Stride 4 of 4 B: 16 B apart; 64-B chunks hold 4 elements: 1000 elements span
  // 999 x 16 + 4 = 15988 B -> 250 chunks (the last one partly).
  EXPECT_EQ(chunks_touched(zc(4, 4, 1000), 64), 250u);
  // Stride 2 of 16 B: 32 B apart, each in its own 32-B chunk; two per 64-B chunk.
  EXPECT_EQ(chunks_touched(zc(2, 16, 100), 32), 100u);
  EXPECT_EQ(chunks_touched(zc(2, 16, 100), 64), 50u);
}

TEST(ZeroCopyModel, LinkBytesPerPayload) {
  // Coalesced: one byte on the link per payload byte and pass.
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(1, 16, 1 << 20), 64), 1.0);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(1, 16, 1 << 20, 8), 64), 8.0);
  // Stride 32 of 4 B: a whole chunk per 4 payload bytes: 16x with 64-B chunks, 8x with 32-B.
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(32, 4, 1 << 16), 64), 16.0);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(32, 4, 1 << 16), 32), 8.0);
  // Stride 32 of 16 B (512 B apart): 64 / 16 = 4x.
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(32, 16, 1 << 16), 64), 4.0);
  // Reuse multiplies zero-copy traffic ...
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(32, 4, 1 << 16, 4), 64), 64.0);
}

TEST(ZeroCopyModel, CopyMovesTheSpanOnce) {
  // The copy moves the whole span once, whatever the reuse and chunk: stride s costs s per
  // payload byte (the last element's tail aside).
  const HostAccess copy{false, 32, 4, 1 << 16, 16};
  EXPECT_EQ(link_bytes(copy, 64), span_bytes(copy));
  EXPECT_NEAR(link_bytes_per_payload(copy, 64), 32.0, 0.001);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload({false, 1, 16, 1 << 16, 16}, 32), 1.0);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload({false, 1, 16, 0, 1}, 32), 0.0);
}

}  // namespace
}  // namespace gpuprobe::models
