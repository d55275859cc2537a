// GPU tests of the bank-conflicts probe: transposes verified, padding and strides shaped right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "gpu_test_support.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

double median(const Row& row, const char* metric) {
  return testing::median_of(row, metric);
}

double noise(const Row& row, const char* metric) {
  return testing::noise_of(row, metric);
}

TEST(BankConflictsGpu, LadderVerifiedAndPaddingBeatsTiled) {
  GP_REQUIRE_GPU();
  auto probe = make_bank_conflicts_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--ladder", "--size", "4096"});
  // Status ok means every transpose matched the reference element for element.
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 5u);
  for (const char* k : {"copy", "naive", "tiled", "padded", "swizzled"}) {
    const Row* row = testing::find_row(r, {{"kernel", k}, {"size", "4096"}});
    ASSERT_NE(row, nullptr) << k;
    EXPECT_GT(median(*row, "bandwidth"), 10.0) << k << ": " << median(*row, "bandwidth") << " GB/s";
  }
  const Row* tiled = testing::find_row(r, {{"kernel", "tiled"}});
  const Row* padded = testing::find_row(r, {{"kernel", "padded"}});
  const Row* copy = testing::find_row(r, {{"kernel", "copy"}});
  ASSERT_TRUE(tiled && padded && copy);
  // Padded beats tiled beyond the noise of both (with a 3% floor).
  const double band =
      std::max(0.03, 3 * std::hypot(noise(*tiled, "bandwidth"), noise(*padded, "bandwidth")));
  EXPECT_GT(median(*padded, "bandwidth"), median(*tiled, "bandwidth") * (1 + band))
      << "padded " << median(*padded, "bandwidth") << " GB/s, tiled " << median(*tiled, "bandwidth")
      << " GB/s, copy " << median(*copy, "bandwidth") << " GB/s, band " << band;
  // The model beside the rows: 32-way for the plain tile, 1 for padding, null for copy.
  EXPECT_EQ(find_quantity(tiled->model, "conflict_ways")->value, 32.0);
  EXPECT_EQ(find_quantity(padded->model, "conflict_ways")->value, 1.0);
  EXPECT_FALSE(find_quantity(copy->model, "conflict_ways")->value.has_value());
  EXPECT_NEAR(*find_quantity(tiled->derived, "relative_to_copy")->value,
              median(*tiled, "bandwidth") / median(*copy, "bandwidth"), 1e-9);
  // The findings, with their numbers, phrased by the runner.
  for (const char* id : {"bank_padded_vs_tiled", "bank_swizzled_vs_padded", "bank_source_claim",
                         "bank_copy_repeat"}) {
    const Finding* f = find_finding(r, id);
    ASSERT_NE(f, nullptr) << id;
    EXPECT_FALSE(f->text.empty()) << id;
  }
  const Finding* pt = find_finding(r, "bank_padded_vs_tiled");
  EXPECT_NEAR(value_of(*pt, "padded_over_tiled"),
              median(*padded, "bandwidth") / median(*tiled, "bandwidth"), 1e-9)
      << pt->text;
  // copy was measured again at the end, and that repeat is not a row.
  const Finding* repeat = find_finding(r, "bank_copy_repeat");
  ASSERT_TRUE(optional_value_of(*repeat, "repeat_bandwidth").has_value()) << repeat->text;
  EXPECT_GT(value_of(*repeat, "repeat_over_copy"), 0.5) << repeat->text;
  EXPECT_EQ(find_finding(r, "bank_stride_shape"), nullptr);
}

TEST(BankConflictsGpu, StrideTwoLoadsSlowerThanStrideOne) {
  GP_REQUIRE_GPU();
  auto probe = make_bank_conflicts_probe();
  const ProbeResult r = testing::run_probe(
      *probe, {"--strides", "0,1,2,32", "--widths", "4,16", "--ops", "load,store"});
  // Status ok means every thread's sum of loaded words / read-back of stored words was right.
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  ASSERT_EQ(r.rows.size(), 4u * 2u * 2u);  // --strides alone: the stride sweep only
  const char* t = "time_per_instruction";
  const Row* s1 = testing::find_row(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "1"}});
  const Row* s2 = testing::find_row(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "2"}});
  const Row* s32 = testing::find_row(r, {{"op", "load"}, {"element_bytes", "4"}, {"stride", "32"}});
  ASSERT_TRUE(s1 && s2 && s32);
  // `time` is per launch; the stride rows' time per instruction has its own name.
  EXPECT_EQ(find_metric(*s1, "time"), nullptr);
  const std::string measured =
      "load 4 B per instruction: stride 1 " + std::to_string(median(*s1, t)) + " s, stride 2 " +
      std::to_string(median(*s2, t)) + " s, stride 32 " + std::to_string(median(*s32, t)) + " s";
  const double band = std::max(0.03, 3 * std::hypot(noise(*s1, t), noise(*s2, t)));
  EXPECT_GT(median(*s2, t), median(*s1, t) * (1 + band)) << measured;
  // A 32-way conflict is far slower than a 2-way one, whatever the exact hardware factor.
  EXPECT_GT(median(*s32, t), 4 * median(*s2, t)) << measured;
  EXPECT_EQ(find_quantity(s32->model, "conflict_ways")->value, 32.0);
  ASSERT_TRUE(find_quantity(s2->derived, "slowdown")->value.has_value());
  EXPECT_GT(*find_quantity(s2->derived, "slowdown")->value, 1.0) << measured;
  // At one wavefront per clock, stride 1 takes about one cycle per request.
  ASSERT_TRUE(find_quantity(s1->derived, "cycles_per_request")->value.has_value());
  EXPECT_NEAR(*find_quantity(s1->derived, "cycles_per_request")->value, 1.0, 0.5) << measured;
  // Stores: stride 32 is also slower than stride 1.
  const Row* st1 = testing::find_row(r, {{"op", "store"}, {"element_bytes", "4"}, {"stride", "1"}});
  const Row* st32 =
      testing::find_row(r, {{"op", "store"}, {"element_bytes", "4"}, {"stride", "32"}});
  ASSERT_TRUE(st1 && st32);
  EXPECT_GT(median(*st32, t), 4 * median(*st1, t))
      << "store 4 B: stride 1 " << median(*st1, t) << " s, stride 32 " << median(*st32, t) << " s";
  // The model is evaluated per op: a 16-byte broadcast load has 16-lane phases (2 wavefronts,
  // as measured on sm_90), a 16-byte broadcast store 8-lane phases (4 wavefronts).
  const Row* lb16 =
      testing::find_row(r, {{"op", "load"}, {"element_bytes", "16"}, {"stride", "0"}});
  const Row* sb16 =
      testing::find_row(r, {{"op", "store"}, {"element_bytes", "16"}, {"stride", "0"}});
  ASSERT_TRUE(lb16 && sb16);
  EXPECT_EQ(find_quantity(lb16->model, "wavefronts_per_request")->value, 2.0);
  EXPECT_EQ(find_quantity(sb16->model, "wavefronts_per_request")->value, 4.0);
  // Findings: one slowdown table per (op, width), the agreement count, a shape per kernel.
  int tables = 0, shapes = 0;
  for (const auto& f : r.findings) {
    tables += f.id == "bank_stride_slowdowns";
    shapes += f.id == "bank_stride_shape";
    EXPECT_FALSE(f.text.empty()) << f.id;
  }
  EXPECT_EQ(tables, 4);
  EXPECT_EQ(shapes, 4);
  const Finding* agree = find_finding(r, "bank_stride_model_agreement");
  ASSERT_NE(agree, nullptr);
  EXPECT_EQ(value_of(*agree, "rows_compared"), 12.0);
  for (const auto& f : r.findings) {
    if (f.id == "bank_stride_slowdowns" || f.id == "bank_stride_model_miss")
      std::cout << f.text << "\n";  // the measured table, for the person reading the log
  }
  EXPECT_EQ(find_finding(r, "bank_padded_vs_tiled"), nullptr);
}

TEST(BankConflictsGpu, PartsSelectTheStrideSweepAlone) {
  GP_REQUIRE_GPU();
  auto probe = make_bank_conflicts_probe();
  const ProbeResult r =
      testing::run_probe(*probe, {"--parts", "strides", "--widths", "4", "--ops", "load"}, 3);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  // The default strides 0:33,64, no ladder row.
  EXPECT_EQ(r.rows.size(), 35u);
  EXPECT_EQ(testing::find_row(r, {{"kernel", "copy"}}), nullptr);
  EXPECT_NE(testing::find_row(r, {{"stride", "64"}}), nullptr);
}

}  // namespace
}  // namespace gpuprobe
