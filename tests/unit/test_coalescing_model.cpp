// Unit tests of the coalescing model (sectors, lines, DRAM fetch blocks), against cases counted
// by hand.
#include "gpuprobe/models/coalescing_model.hpp"

#include <cstdint>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gpuprobe::models {
namespace {

constexpr auto kOffset = CopyPattern::kOffset;
constexpr auto kStride = CopyPattern::kStride;

TEST(CoalescingModel, FourByteOffsetsStraddleAFifthSector) {
  // Lane l reads bytes [4(o+l), 4(o+l)+4): a warp covers 128 contiguous bytes from 4o.
  // o = 0: bytes 0..127   -> sectors 0..3 = 4
  EXPECT_EQ(warp_sectors(0, 1, 4), 4);
  // o = 1: bytes 4..131   -> sectors 0..4 = 5
  EXPECT_EQ(warp_sectors(1, 1, 4), 5);
  // o = 7: bytes 28..155  -> sectors 0..4 = 5
  EXPECT_EQ(warp_sectors(7, 1, 4), 5);
  // o = 8: bytes 32..159  -> sectors 1..4 = 4 (32-byte aligned again)
  EXPECT_EQ(warp_sectors(8, 1, 4), 4);
  // o = 9: bytes 36..163  -> sectors 1..5 = 5
  EXPECT_EQ(warp_sectors(9, 1, 4), 5);
}

TEST(CoalescingModel, EveryWarpSeesTheSameMisalignment) {
  // Warp k starts at element 32k + o, i.e. 128k + 4o bytes: 128k is a multiple of 32, so
  // the sector count cannot depend on k.
  for (std::uint64_t o : {0u, 1u, 3u, 8u, 13u}) {
    for (std::uint64_t k = 0; k < 64; ++k)
      EXPECT_EQ(warp_sectors(32 * k + o, 1, 4), warp_sectors(o, 1, 4)) << o << " " << k;
  }
}

TEST(CoalescingModel, FourByteStrides) {
  // Lane l reads bytes [4sl, 4sl+4).
  // s = 1: 128 contiguous bytes -> 4 sectors
  EXPECT_EQ(warp_sectors(0, 1, 4), 4);
  // s = 2: starts 8 B apart, bytes 0..251 -> sectors 0..7 = 8
  EXPECT_EQ(warp_sectors(0, 2, 4), 8);
  // s = 3: starts 12 B apart, bytes 0..375 -> sectors 0..11 = 12 (each holds a start)
  EXPECT_EQ(warp_sectors(0, 3, 4), 12);
  // s = 4: starts 16 B apart, bytes 0..499 -> sectors 0..15 = 16
  EXPECT_EQ(warp_sectors(0, 4, 4), 16);
  // s = 8: starts 32 B apart -> one sector per lane = 32
  EXPECT_EQ(warp_sectors(0, 8, 4), 32);
  // s = 32: starts 128 B apart -> 32
  EXPECT_EQ(warp_sectors(0, 32, 4), 32);
}

TEST(CoalescingModel, WiderElements) {
  // 8-byte elements, a warp covers 256 B.
  EXPECT_EQ(warp_sectors(0, 1, 8), 8);   // bytes 0..255
  EXPECT_EQ(warp_sectors(1, 1, 8), 9);   // bytes 8..263 -> sectors 0..8
  EXPECT_EQ(warp_sectors(4, 1, 8), 8);   // bytes 32..287 -> sectors 1..8
  EXPECT_EQ(warp_sectors(0, 2, 8), 16);  // starts 16 B apart: bytes 0..503 -> sectors 0..15
  EXPECT_EQ(warp_sectors(0, 4, 8), 32);  // starts 32 B apart: one sector per lane
  // 16-byte elements, a warp covers 512 B.
  EXPECT_EQ(warp_sectors(0, 1, 16), 16);  // bytes 0..511
  EXPECT_EQ(warp_sectors(1, 1, 16), 17);  // bytes 16..527 -> sectors 0..16
  EXPECT_EQ(warp_sectors(2, 1, 16), 16);  // bytes 32..543 -> sectors 1..16
  EXPECT_EQ(warp_sectors(0, 2, 16), 32);  // starts 32 B apart: one sector per lane
}

TEST(CoalescingModel, PredictionForMisalignedFourByteOffset) {
  const CopyPrediction p = predict_copy(kOffset, 4, 1);
  EXPECT_DOUBLE_EQ(p.load_sectors_per_request, 5);
  EXPECT_DOUBLE_EQ(p.store_sectors_per_request, 4);  // out[i]: aligned, 128 B
  // 128 useful bytes in 5 sectors = 160 B -> 80 %
  EXPECT_DOUBLE_EQ(p.sector_efficiency, 80);
  // baseline (4 ld + 4 st) / here (5 ld + 4 st) = 8/9 = 0.889
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 8.0 / 9.0);
  // In a long run the fifth sector is the next warp's first: 4 new ld + 4 st sectors per warp.
  EXPECT_EQ(p.fetch_bytes, 32);
  EXPECT_DOUBLE_EQ(p.dram_bytes_per_warp, 8 * 32);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 1.0);
}

TEST(CoalescingModel, LinesPerWarpAccess) {
  // 4 B, unit step: a warp covers 128 contiguous bytes from 4o.
  EXPECT_EQ(warp_lines(0, 1, 4), 1);   // bytes 0..127
  EXPECT_EQ(warp_lines(1, 1, 4), 2);   // bytes 4..131: lines 0, 1
  EXPECT_EQ(warp_lines(8, 1, 4), 2);   // bytes 32..159: 4 sectors, but lines 0, 1
  EXPECT_EQ(warp_lines(16, 1, 4), 2);  // bytes 64..191
  EXPECT_EQ(warp_lines(24, 1, 4), 2);  // bytes 96..223
  EXPECT_EQ(warp_lines(32, 1, 4), 1);  // bytes 128..255: line 1 only
  // 8 B: 256 B per warp.
  EXPECT_EQ(warp_lines(0, 1, 8), 2);   // bytes 0..255
  EXPECT_EQ(warp_lines(4, 1, 8), 3);   // bytes 32..287: lines 0..2
  EXPECT_EQ(warp_lines(16, 1, 8), 2);  // bytes 128..383: lines 1, 2
  // 16 B: 512 B per warp.
  EXPECT_EQ(warp_lines(0, 1, 16), 4);  // bytes 0..511
  EXPECT_EQ(warp_lines(2, 1, 16), 5);  // bytes 32..543: lines 0..4
  EXPECT_EQ(warp_lines(8, 1, 16), 4);  // bytes 128..639: lines 1..4
  // 4 B strides: starts 4s B apart.
  EXPECT_EQ(warp_lines(0, 2, 4), 2);    // bytes 0..251
  EXPECT_EQ(warp_lines(0, 4, 4), 4);    // bytes 0..499
  EXPECT_EQ(warp_lines(0, 8, 4), 8);    // bytes 0..995: 4 lanes per line
  EXPECT_EQ(warp_lines(0, 32, 4), 32);  // 128 B apart: one line per lane
  EXPECT_EQ(warp_lines(0, 64, 4), 32);
}

TEST(CoalescingModel, PredictionCarriesLines) {
  // 4 B offsets: 5 sectors / 2 lines (misaligned), 4 / 2 (8, 16, 24), 4 / 1 (0, 32).
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 4, 1).load_lines_per_request, 2);
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 4, 8).load_lines_per_request, 2);
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 4, 8).load_sectors_per_request, 4);
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 4, 32).load_lines_per_request, 1);
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 4, 0).load_lines_per_request, 1);
  // 1-byte elements: warp k covers bytes [32k + 100, 32k + 131]; it crosses a 128-B boundary
  // for k = 0 (100..131) and k = 4 (228..259) of warps 0..7: (2 + 1 + 1 + 1) x 2 / 8 = 1.25.
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 1, 100).load_lines_per_request, 1.25);
  // 16 B, stride 8: 128 B apart, one line per lane.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 16, 8).load_lines_per_request, 32);
}

TEST(CoalescingModel, SixtyFourByteFetches) {
  // G = 64: every DRAM fetch moves an aligned 64-byte block. Baselines (ld + st per warp):
  // 4 B: 128 + 128 = 256 B; 8 B: 512 B; 16 B: 1024 B.
  // 4 B, stride 16: elements 64 B apart, each in its own block: 32 x 64 = 2048 B loaded,
  // 128 B stored -> 256 / 2176 = 2/17 = 0.1176 (the sector model says 8/36 = 0.222).
  CopyPrediction p = predict_copy(kStride, 4, 16, 64);
  EXPECT_EQ(p.fetch_bytes, 64);
  EXPECT_DOUBLE_EQ(p.dram_bytes_per_warp, 2048 + 128);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 256.0 / 2176.0);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 8.0 / 36.0);  // request level: unchanged
  // 4 B, stride 32 (128 B apart): still one block per element.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 32, 64).predicted_relative_bandwidth_dram,
                   256.0 / 2176.0);
  // 4 B, stride 8: 32 B apart, lane pairs share a block: 16 x 64 = 1024 + 128 -> 256/1152 = 2/9.
  p = predict_copy(kStride, 4, 8, 64);
  EXPECT_DOUBLE_EQ(p.dram_bytes_per_warp, 1024 + 128);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 2.0 / 9.0);
  // 4 B, stride 2: bytes 0..251 of a 256-B aligned span -> 4 blocks = 256 + 128 -> 2/3.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 2, 64).predicted_relative_bandwidth_dram, 2.0 / 3.0);
  // Offset 1: warp k loads bytes 128k + 4 .. 128k + 131; over a run each 64-B block is
  // fetched once, 2 per warp, as at offset 0 -> 1.0.
  p = predict_copy(kOffset, 4, 1, 64);
  EXPECT_DOUBLE_EQ(p.dram_bytes_per_warp, 256);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 1.0);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 8.0 / 9.0);
  // 8 B, stride 16 (128 B apart): 32 x 64 = 2048 + 256 stored -> 512 / 2304 = 2/9.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 8, 16, 64).predicted_relative_bandwidth_dram, 2.0 / 9.0);
  // 8 B, stride 4 (32 B apart): pairs share a block: 16 x 64 = 1024 + 256 -> 512/1280 = 0.4,
  // the sector model's value.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 8, 4, 64).predicted_relative_bandwidth_dram, 0.4);
  // 16 B, stride 2 (32 B apart): 16 blocks = 1024 + 512 stored -> 1024 / 1536 = 2/3.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 16, 2, 64).predicted_relative_bandwidth_dram, 2.0 / 3.0);
  // 16 B, stride 4 (64 B apart): 32 blocks = 2048 + 512 -> 1024 / 2560 = 0.4, and the floor.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 16, 4, 64).predicted_relative_bandwidth_dram, 0.4);
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 16, 256, 64).predicted_relative_bandwidth_dram, 0.4);
}

TEST(CoalescingModel, OtherFetchGranularities) {
  // G = 32 is the sector: the DRAM model is the old per-sector count.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 32, 32).predicted_relative_bandwidth_dram, 8.0 / 36.0);
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 16, 32).predicted_relative_bandwidth_dram, 8.0 / 36.0);
  // G = 128, 4 B stride 32: 32 x 128 = 4096 + 128 stored -> 256 / 4224.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 32, 128).predicted_relative_bandwidth_dram,
                   256.0 / 4224.0);
  // G = 128, 4 B stride 2: 2 lines = 256 B + 128 -> 2/3 still.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 2, 128).predicted_relative_bandwidth_dram, 2.0 / 3.0);
  // G = 128, 1 B offset 0: 32 B stored per warp, 4 warps share a line -> 32 B per warp each way.
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 1, 0, 128).dram_bytes_per_warp, 64);
  EXPECT_THROW(predict_copy(kStride, 4, 2, 16), std::invalid_argument);
  EXPECT_THROW(predict_copy(kStride, 4, 2, 48), std::invalid_argument);
  EXPECT_THROW(predict_copy(kStride, 4, 2, 256), std::invalid_argument);
}

TEST(CoalescingModel, FetchBytesFromTheDriver) {
  EXPECT_EQ(model_fetch_bytes(0), 32);  // not reported: the sector
  EXPECT_EQ(model_fetch_bytes(16), 32);
  EXPECT_EQ(model_fetch_bytes(32), 32);
  EXPECT_EQ(model_fetch_bytes(64), 64);
  EXPECT_EQ(model_fetch_bytes(96), 64);
  EXPECT_EQ(model_fetch_bytes(128), 128);
  EXPECT_EQ(model_fetch_bytes(4096), 128);
}

TEST(CoalescingModel, AlignedOffsetsMatchTheBaseline) {
  for (auto [w, o] : {std::pair{4, 0}, {4, 8}, {4, 16}, {4, 32}, {8, 4}, {16, 2}}) {
    const CopyPrediction p = predict_copy(kOffset, w, static_cast<std::uint64_t>(o));
    EXPECT_DOUBLE_EQ(p.load_sectors_per_request, w) << w << " " << o;  // 32w/32 sectors
    EXPECT_DOUBLE_EQ(p.sector_efficiency, 100) << w << " " << o;
    EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 1.0) << w << " " << o;
  }
}

TEST(CoalescingModel, WiderMisalignedOffsetsCostLess) {
  // 8 B, offset 1: (8 + 8) / (9 + 8) = 16/17; 16 B, offset 1: (16 + 16) / (17 + 16) = 32/33.
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 8, 1).predicted_relative_bandwidth, 16.0 / 17.0);
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 16, 1).predicted_relative_bandwidth, 32.0 / 33.0);
  // 8 B, offset 1: 256 useful bytes in 9 sectors = 288 B -> 88.9 %
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 8, 1).sector_efficiency, 100.0 * 256 / 288);
  // 16 B offset 3 (48 B) is misaligned, offset 2 (32 B) is not.
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 16, 3).load_sectors_per_request, 17);
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 16, 2).load_sectors_per_request, 16);
}

TEST(CoalescingModel, StridePredictions) {
  // 4 B, stride 2: 8 ld + 4 st vs 4 + 4 -> 8/12; 50 % of each loaded sector is used.
  CopyPrediction p = predict_copy(kStride, 4, 2);
  EXPECT_DOUBLE_EQ(p.load_sectors_per_request, 8);
  EXPECT_DOUBLE_EQ(p.store_sectors_per_request, 4);
  EXPECT_DOUBLE_EQ(p.sector_efficiency, 50);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 8.0 / 12.0);
  // No sector is shared between warps: the DRAM count is the same.
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 8.0 / 12.0);
  // 4 B, stride 32: 32 ld + 4 st -> 8/36 = 0.222; 128 B useful of 1024 B = 12.5 %.
  p = predict_copy(kStride, 4, 32);
  EXPECT_DOUBLE_EQ(p.load_sectors_per_request, 32);
  EXPECT_DOUBLE_EQ(p.sector_efficiency, 12.5);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 8.0 / 36.0);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 8.0 / 36.0);
  // Stride 1 is the baseline.
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 4, 1).predicted_relative_bandwidth, 1.0);
  // 8 B, stride 2: 16 ld + 8 st vs 8 + 8 -> 16/24; 256 useful of 512 B = 50 %.
  p = predict_copy(kStride, 8, 2);
  EXPECT_DOUBLE_EQ(p.load_sectors_per_request, 16);
  EXPECT_DOUBLE_EQ(p.sector_efficiency, 50);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 16.0 / 24.0);
  // 16 B, stride 2: 32 ld + 16 st vs 16 + 16 -> 32/48, and the floor already (32 sectors).
  p = predict_copy(kStride, 16, 2);
  EXPECT_DOUBLE_EQ(p.load_sectors_per_request, 32);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth, 32.0 / 48.0);
  EXPECT_DOUBLE_EQ(predict_copy(kStride, 16, 256).predicted_relative_bandwidth, 32.0 / 48.0);
  // 16 B, stride 1: 512 B per warp -> 16 sectors, 100 %.
  p = predict_copy(kStride, 16, 1);
  EXPECT_DOUBLE_EQ(p.load_sectors_per_request, 16);
  EXPECT_DOUBLE_EQ(p.sector_efficiency, 100);
}

// Distinct sectors of a launch by brute force: every byte's sector, input and output.
std::uint64_t brute_touched(CopyPattern pattern, std::uint64_t w, std::uint64_t param,
                            std::uint64_t n) {
  std::set<std::uint64_t> in, out;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t src = pattern == kOffset ? i + param : i * param;
    for (std::uint64_t b = 0; b < w; ++b) {
      in.insert((src * w + b) / 32);
      out.insert((i * w + b) / 32);
    }
  }
  return (in.size() + out.size()) * 32;
}

TEST(CoalescingModel, TouchedBytesHandCases) {
  // 4 B offset 1, 64 elements: input bytes 4..259 -> sectors 0..8 = 9; output 256 B = 8.
  EXPECT_EQ(copy_touched_bytes(kOffset, 4, 1, 64), (9u + 8u) * 32u);
  // 4 B stride 3, 10 elements: starts 12 B apart, last byte 9*12+3 = 111 -> 4 sectors;
  // output 40 B -> 2 sectors.
  EXPECT_EQ(copy_touched_bytes(kStride, 4, 3, 10), (4u + 2u) * 32u);
  // 4 B stride 8, 10 elements: one sector each = 10; output 2.
  EXPECT_EQ(copy_touched_bytes(kStride, 4, 8, 10), (10u + 2u) * 32u);
  EXPECT_EQ(copy_touched_bytes(kStride, 4, 8, 0), 0u);
}

TEST(CoalescingModel, TouchedBytesMatchBruteForce) {
  for (int w : {1, 2, 4, 8, 16, 32}) {
    for (std::uint64_t param : {0u, 1u, 2u, 3u, 5u, 7u, 8u, 9u, 33u}) {
      for (std::uint64_t n : {1u, 2u, 31u, 32u, 33u, 100u}) {
        const auto uw = static_cast<std::uint64_t>(w);
        EXPECT_EQ(copy_touched_bytes(kOffset, w, param, n), brute_touched(kOffset, uw, param, n))
            << "offset " << w << " " << param << " " << n;
        if (param == 0) continue;
        EXPECT_EQ(copy_touched_bytes(kStride, w, param, n), brute_touched(kStride, uw, param, n))
            << "stride " << w << " " << param << " " << n;
      }
    }
  }
}

// The loads' DRAM bytes between "each shared 64-B block once" and "once per request": hand
// counts of the 64-B blocks a warp's request covers.
TEST(CoalescingModel, LoadDramBoundsAtSixtyFourByteFetch) {
  // 4 B, offset 8: bytes 32..159 of each 128 -> blocks 0, 1, 2 per request (3 x 64 = 192 B);
  // over a run each block once: 128 B per warp. Bounds 1.0x and 1.5x the 128 useful bytes.
  const CopyPrediction o8 = predict_copy(kOffset, 4, 8, 64);
  EXPECT_DOUBLE_EQ(o8.dram_load_bytes_per_warp, 128);
  EXPECT_DOUBLE_EQ(o8.dram_load_bytes_per_warp_refetch, 192);
  EXPECT_DOUBLE_EQ(o8.dram_store_bytes_per_warp, 128);
  EXPECT_DOUBLE_EQ(o8.dram_bytes_per_warp, 256);
  // Offset 16 (64 B): each request covers blocks 1 and 2 only: no block is shared.
  const CopyPrediction o16 = predict_copy(kOffset, 4, 16, 64);
  EXPECT_DOUBLE_EQ(o16.dram_load_bytes_per_warp_refetch, 128);
  // Offset 1 (4 B): bytes 4..131 -> blocks 0, 1, 2 again: 192 B per request.
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 4, 1, 64).dram_load_bytes_per_warp_refetch, 192);
  // 16 B, offset 2 (32 B): bytes 32..543 -> blocks 0..8, 9 x 64 = 576 B for 512 useful.
  EXPECT_DOUBLE_EQ(predict_copy(kOffset, 16, 2, 64).dram_load_bytes_per_warp_refetch, 576);
  // Stride 16 (64 B apart): each lane its own block, nothing shared: both counts 32 x 64.
  const CopyPrediction s16 = predict_copy(kStride, 4, 16, 64);
  EXPECT_DOUBLE_EQ(s16.dram_load_bytes_per_warp, 2048);
  EXPECT_DOUBLE_EQ(s16.dram_load_bytes_per_warp_refetch, 2048);
}

TEST(CoalescingModel, InputElements) {
  EXPECT_EQ(copy_input_elements(kOffset, 5, 100), 105u);
  EXPECT_EQ(copy_input_elements(kStride, 4, 100), 397u);  // last index 99 * 4 = 396
  EXPECT_EQ(copy_input_elements(kStride, 4, 0), 0u);
}

TEST(CoalescingModel, RejectsBadArguments) {
  EXPECT_THROW(warp_sectors(0, 1, 3), std::invalid_argument);
  EXPECT_THROW(warp_sectors(0, 1, 64), std::invalid_argument);
  EXPECT_THROW(warp_sectors(0, 0, 4), std::invalid_argument);
  EXPECT_THROW(warp_lines(0, 0, 4), std::invalid_argument);
  EXPECT_THROW(warp_lines(0, 1, 3), std::invalid_argument);
  EXPECT_THROW(predict_copy(kStride, 4, 0), std::invalid_argument);
  EXPECT_THROW(predict_copy(kOffset, 0, 1), std::invalid_argument);
  EXPECT_NO_THROW(predict_copy(kOffset, 4, 0));
}

}  // namespace
}  // namespace gpuprobe::models
