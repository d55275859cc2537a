// Unit tests of the constant model (lane elements, transactions per distinct address, the sector
// count taken from coalescing's model, texture's 64-byte requests, argument checks), coalescing's
// warp_sectors_at, and the constant probe's sweep (the constant path stops at 64 KiB), against
// cases computed by hand.
#include "gpuprobe/models/constant_model.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "constant/analysis.hpp"
#include "gpuprobe/models/coalescing_model.hpp"

namespace gpuprobe {
namespace {

using models::LookupPath;

TEST(ConstantModel, LanesFormDistinctGroupsSpreadOverTheTable) {
  // 4 addresses in a 1024-element table: lanes 0-7 read base, 8-15 base + 256, ... wrapped.
  EXPECT_EQ(models::lane_element(10, 0, 4, 1024), 10u);
  EXPECT_EQ(models::lane_element(10, 7, 4, 1024), 10u);
  EXPECT_EQ(models::lane_element(10, 8, 4, 1024), 266u);
  EXPECT_EQ(models::lane_element(1000, 31, 4, 1024), (1000u + 768u) & 1023u);
  for (int d : {1, 2, 4, 8, 16, 32}) {
    std::set<std::uint64_t> seen;
    for (int l = 0; l < 32; ++l)
      seen.insert(models::lane_element(77, l, d, 4096));
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(d)) << d;
  }
}

TEST(ConstantModel, ConstantCostsOneTransactionPerDistinctAddress) {
  for (int d : {1, 2, 4, 8, 16, 32}) {
    const auto p = models::predict_lookup(LookupPath::kConstant, 4, d, 1024);
    EXPECT_DOUBLE_EQ(p.constant_transactions, d);
    EXPECT_DOUBLE_EQ(p.relative_time, d);
    EXPECT_DOUBLE_EQ(p.requests_per_lookup, 1);
  }
  // 16-byte elements take two 8-byte LDCs, each with its distinct addresses.
  const auto wide = models::predict_lookup(LookupPath::kConstant, 16, 8, 4096);
  EXPECT_DOUBLE_EQ(wide.requests_per_lookup, 2);
  EXPECT_DOUBLE_EQ(wide.constant_transactions, 16);
}

TEST(ConstantModel, OtherPathsCountSectorsPerRequest) {
  // 32 addresses in a 1 KiB table of 4-byte elements: 8 elements (32 B) apart, 32 sectors.
  EXPECT_DOUBLE_EQ(models::predict_lookup(LookupPath::kGlobal, 4, 32, 256).sectors_per_request, 32);
  EXPECT_DOUBLE_EQ(models::predict_lookup(LookupPath::kGlobal, 4, 32, 256).relative_time, 32);
  // A broadcast is one sector whatever the width.
  EXPECT_DOUBLE_EQ(models::predict_lookup(LookupPath::kTexture, 16, 1, 64).sectors_per_request, 1);
  EXPECT_DOUBLE_EQ(models::predict_lookup(LookupPath::kReadOnly, 8, 4, 4096).relative_time, 4);
}

TEST(ConstantModel, TextureSplitsAWarpIntoRequestsOf64Bytes) {
  // 4- and 8-byte texels: 4 requests of 8 lanes; 16-byte: 8 of 4 lanes.
  const auto b4 = models::predict_lookup(LookupPath::kTexture, 4, 1, 1024);
  EXPECT_DOUBLE_EQ(b4.requests_per_lookup, 4);
  EXPECT_DOUBLE_EQ(b4.sectors_per_lookup, 4);  // a broadcast: one sector per request
  EXPECT_DOUBLE_EQ(models::predict_lookup(LookupPath::kTexture, 16, 1, 1024).requests_per_lookup,
                   8);
  // 8 addresses (groups of 4 lanes): 2 per 8-lane request, 8 sectors; against the broadcast's 4.
  const auto d8 = models::predict_lookup(LookupPath::kTexture, 4, 8, 1024);
  EXPECT_DOUBLE_EQ(d8.sectors_per_request, 2);
  EXPECT_DOUBLE_EQ(d8.sectors_per_lookup, 8);
  EXPECT_DOUBLE_EQ(d8.relative_time, 2);
  // 32 addresses of 16 B: 8 requests of 4 sectors; 32 against 8.
  const auto d32 = models::predict_lookup(LookupPath::kTexture, 16, 32, 1024);
  EXPECT_DOUBLE_EQ(d32.sectors_per_request, 4);
  EXPECT_DOUBLE_EQ(d32.relative_time, 4);
  // Plain loads: one request for the warp.
  EXPECT_DOUBLE_EQ(models::predict_lookup(LookupPath::kGlobal, 16, 8, 1024).requests_per_lookup, 1);
}

TEST(ConstantModel, RejectsWhatTheKernelsCannotRun) {
  EXPECT_THROW(models::predict_lookup(LookupPath::kGlobal, 2, 1, 1024), std::invalid_argument);
  EXPECT_THROW(models::predict_lookup(LookupPath::kGlobal, 4, 3, 1024), std::invalid_argument);
  EXPECT_THROW(models::predict_lookup(LookupPath::kGlobal, 4, 64, 1024), std::invalid_argument);
  EXPECT_THROW(models::predict_lookup(LookupPath::kGlobal, 4, 1, 1000), std::invalid_argument);
  EXPECT_THROW(models::predict_lookup(LookupPath::kGlobal, 4, 1, 16), std::invalid_argument);
  EXPECT_THROW(models::lookup_path_from_name("shared"), std::invalid_argument);
  EXPECT_EQ(models::lookup_path_from_name("texture"), LookupPath::kTexture);
  EXPECT_STREQ(models::lookup_path_name(LookupPath::kReadOnly), "readonly");
}

TEST(CoalescingModel, SectorsAtCountsEachLanesOwnSector) {
  const std::vector<std::uint64_t> same(32, 5);
  EXPECT_EQ(models::warp_sectors_at(same, 4), 1);
  // Elements 0..7 of 4 B share a sector; 8 is the next one; 16-byte elements 2 per sector.
  EXPECT_EQ(models::warp_sectors_at(std::vector<std::uint64_t>{0, 7, 8, 8}, 4), 2);
  EXPECT_EQ(models::warp_sectors_at(std::vector<std::uint64_t>{0, 1, 2, 3}, 16), 2);
  EXPECT_THROW(models::warp_sectors_at(same, 3), std::invalid_argument);
}

AxisValues sweep_values(std::vector<std::string> paths, std::vector<std::uint64_t> sizes,
                        std::uint64_t chase_max) {
  AxisValues v;
  v.values["path"] = {AxisKind::kChoice, "", true, {}, std::move(paths), false};
  v.values["width"] = {AxisKind::kList, "", true, {4, 16}, {}, false};
  v.values["distinct"] = {AxisKind::kList, "", true, {1, 32}, {}, false};
  v.values["sizes"] = {AxisKind::kList, "", true, std::move(sizes), {}, false};
  v.values["chase-max"] = {AxisKind::kNumber, "", true, {chase_max}, {}, false};
  v.values["per-octave"] = {AxisKind::kNumber, "", true, {1}, {}, false};
  return v;
}

TEST(ConstantSweep, ConstantTablesStopAt64KiB) {
  std::size_t skipped = 0;
  const auto pts = constant::points(
      sweep_values({"constant", "global"}, {4096, 65536, 1u << 20}, 1u << 20), &skipped);
  // Lookups: constant 2 widths x 2 distinct x 2 sizes, global x 3 sizes; 1 MiB skipped 4 times.
  std::size_t constant_lookups = 0, global_lookups = 0, constant_chases = 0, global_chases = 0;
  for (const auto& p : pts) {
    const bool c = p.path == LookupPath::kConstant;
    if (p.mode == constant::kLookup) (c ? constant_lookups : global_lookups)++;
    if (p.mode == constant::kChase) (c ? constant_chases : global_chases)++;
    if (c) {
      EXPECT_LE(p.bytes, models::kConstantTableMax);
    }
  }
  EXPECT_EQ(constant_lookups, 8u);
  EXPECT_EQ(global_lookups, 12u);
  EXPECT_EQ(skipped, 4u);
  EXPECT_EQ(constant_chases, 7u);  // 1 KiB .. 64 KiB
  EXPECT_EQ(global_chases, 11u);   // 1 KiB .. 1 MiB
  EXPECT_EQ(pts.front().mode, constant::kLookup);
  EXPECT_EQ(pts.back().mode, constant::kChase);
}

}  // namespace
}  // namespace gpuprobe
