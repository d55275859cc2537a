// Unit tests of the coalescing sector model, against cases counted by hand.
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
  // In a long run the fifth sector is the next warp's first: 4 new ld + 4 st per warp.
  EXPECT_DOUBLE_EQ(p.dram_sectors_per_warp, 8);
  EXPECT_DOUBLE_EQ(p.predicted_relative_bandwidth_dram, 1.0);
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

TEST(CoalescingModel, InputElements) {
  EXPECT_EQ(copy_input_elements(kOffset, 5, 100), 105u);
  EXPECT_EQ(copy_input_elements(kStride, 4, 100), 397u);  // last index 99 * 4 = 396
  EXPECT_EQ(copy_input_elements(kStride, 4, 0), 0u);
}

TEST(CoalescingModel, RejectsBadArguments) {
  EXPECT_THROW(warp_sectors(0, 1, 3), std::invalid_argument);
  EXPECT_THROW(warp_sectors(0, 1, 64), std::invalid_argument);
  EXPECT_THROW(warp_sectors(0, 0, 4), std::invalid_argument);
  EXPECT_THROW(predict_copy(kStride, 4, 0), std::invalid_argument);
  EXPECT_THROW(predict_copy(kOffset, 0, 1), std::invalid_argument);
  EXPECT_NO_THROW(predict_copy(kOffset, 4, 0));
}

}  // namespace
}  // namespace gpuprobe::models
