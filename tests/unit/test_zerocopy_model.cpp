// Unit tests of the zerocopy PCIe TLP model (span, TLPs per pass, link bytes with headers),
// against cases counted by hand.
#include "gpuprobe/models/zerocopy_model.hpp"

#include <gtest/gtest.h>

namespace gpuprobe::models {
namespace {

constexpr bool kRead = false;
constexpr bool kWrite = true;

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

TEST(ZeroCopyModel, CoalescedReadsAndWritesMoveWholeLines) {
  // 1024 x 4 B = 4096 B = 32 lines: 32 TLPs of 128 B, + 12 B (read completion) or 16 B (write).
  const LinkTraffic r = pass_traffic(zc(1, 4, 1024), kRead);
  EXPECT_EQ(r.tlps, 32u);
  EXPECT_EQ(r.data_bytes, 4096u);
  EXPECT_EQ(r.link_bytes, 4096u + 32u * 12u);
  const LinkTraffic w = pass_traffic(zc(1, 16, 256), kWrite);
  EXPECT_EQ(w.tlps, 32u);
  EXPECT_EQ(w.link_bytes, 4096u + 32u * 16u);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(1, 16, 1 << 20), kRead), 140.0 / 128);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(1, 4, 1 << 20), kWrite), 144.0 / 128);
}

TEST(ZeroCopyModel, IsolatedReadsFetchASectorIsolatedWritesTheirBytes) {
  // Stride 32 of 4 B: 128 B apart, one line each: a 32-B sector + 12 B per read ...
  EXPECT_EQ(pass_traffic(zc(32, 4, 1000), kRead).link_bytes, 1000u * 44u);
  // ... and the 4 bytes + 16 B per write.
  EXPECT_EQ(pass_traffic(zc(32, 4, 1000), kWrite).link_bytes, 1000u * 20u);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(32, 16, 1 << 16), kRead), 44.0 / 16);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(32, 16, 1 << 16), kWrite), 32.0 / 16);
}

TEST(ZeroCopyModel, ReadsSpanFirstToLastSectorOfALine) {
  // Stride 16 of 4 B (64 B apart): bytes 0-3 and 64-67 of each line -> sectors 0..2 = 96 B.
  const LinkTraffic t = pass_traffic(zc(16, 4, 2000), kRead);
  EXPECT_EQ(t.tlps, 1000u);
  EXPECT_EQ(t.data_bytes, 96000u);
  EXPECT_EQ(t.link_bytes, 1000u * 108u);
  // Stride 4 of 4 B (16 B apart): every sector touched: whole lines, 8 elements per line.
  EXPECT_EQ(pass_traffic(zc(4, 4, 800), kRead).link_bytes, 100u * 140u);
}

TEST(ZeroCopyModel, WritesWithGapsSplitIntoOneTlpPerRun) {
  // Stride 2 of 4 B: 8 B apart, never contiguous: one TLP per element.
  EXPECT_EQ(pass_traffic(zc(2, 4, 64), kWrite).tlps, 64u);
  EXPECT_EQ(pass_traffic(zc(2, 4, 64), kWrite).link_bytes, 64u * 20u);
  // Stride 1 of 8 B: contiguous: runs end only at line ends: 128 B per TLP.
  EXPECT_EQ(pass_traffic(zc(1, 8, 64), kWrite).tlps, 4u);
}

TEST(ZeroCopyModel, TailBeyondWholePeriodsAndOddStrides) {
  // Stride 3 of 4 B (12 B apart): lcm(12, 128) = 384 B = 32 elements, 3 lines per period. 40
  // elements: one period (3 whole lines) + 8 elements at 0..84+4 of the next line: sectors 0..2.
  const LinkTraffic t = pass_traffic(zc(3, 4, 40), kRead);
  EXPECT_EQ(t.tlps, 4u);
  EXPECT_EQ(t.data_bytes, 3u * 128u + 96u);
  EXPECT_EQ(pass_traffic(zc(1, 4, 0), kRead).tlps, 0u);
}

TEST(ZeroCopyModel, ReuseMultipliesZeroCopyCopyMovesTheSpanOnce) {
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(zc(1, 16, 1 << 20, 8), kRead), 8 * 140.0 / 128);
  // The copy moves the whole span once in 256-B TLPs, whatever the reuse: stride s costs about
  // s per payload byte, plus headers.
  const HostAccess copy{false, 1, 16, 1 << 16, 16};
  EXPECT_EQ(link_traffic(copy, kRead).tlps, (1u << 20) / 256);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(copy, kRead), 268.0 / 256);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload(copy, kWrite), 272.0 / 256);
  EXPECT_NEAR(link_bytes_per_payload({false, 32, 4, 1 << 16, 1}, kRead), 32 * 268.0 / 256, 0.01);
  EXPECT_DOUBLE_EQ(link_bytes_per_payload({false, 1, 16, 0, 1}, kRead), 0.0);
}

}  // namespace
}  // namespace gpuprobe::models
