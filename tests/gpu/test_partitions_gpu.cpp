// GPU tests of the partitions probe: every stream fold and transposed element checked (the run is
// ok), every stride point moves the same bytes whatever its stream count, a stride past the
// buffer cap runs with fewer streams, the L2 counters see exactly the bytes read, and the
// findings are there (camping per order, the transpose orders).
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.hpp"
#include "gpuprobe/core/counter_agreement.hpp"
#include "registry.hpp"

namespace gpuprobe {
namespace {

const Row* stride_at(const ProbeResult& r, const std::string& order, const std::string& pad,
                     const std::string& stride) {
  return testing::find_row(
      r, {{"mode", "stride"}, {"order", order}, {"pad", pad}, {"stride", stride}});
}

TEST(PartitionsGpu, StridesMoveTheSameBytesAndAreChecked) {
  GP_REQUIRE_GPU();
  auto probe = make_partitions_probe();
  const ProbeResult r = testing::run_probe(*probe, {"--strides", "256,4096,1MiB", "--pads", "0,256",
                                                    "--transpose", "1024", "--max-buffer", "1GiB"});
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  const Row* first = stride_at(r, "row", "0", "256");
  const Row* wide = stride_at(r, "row", "0", "1048576");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(wide, nullptr);
  const double bytes =
      testing::derived_of(*first, "streams") * testing::derived_of(*first, "region_bytes");
  const bool counted = testing::counters_collected(r);
  for (const Row& row : r.rows) {
    if (row.params.empty() || std::get<std::string>(row.params[0].value) != "stride") continue;
    const double streams = testing::derived_of(row, "streams");
    // The same bytes to one chunk per stream.
    EXPECT_NEAR(streams * testing::derived_of(row, "region_bytes"), bytes, streams * 256);
    EXPECT_GT(testing::median_of(row, "bandwidth"), 0.0);
    if (!counted) continue;
    ASSERT_TRUE(row.counters);
    const auto l2 = counter_value(row, "lts__t_sectors_srcunit_tex.sum");
    ASSERT_TRUE(l2.has_value());
    EXPECT_NEAR(*l2, streams * testing::derived_of(row, "region_bytes") / 32, 0.02 * *l2);
  }
  // 1 MiB x every stream passes 1 GiB on any GPU of more than 16 SMs: fewer streams there.
  EXPECT_LT(testing::derived_of(*wide, "streams"), testing::derived_of(*first, "streams"));
  int camping = 0, transpose = 0;
  for (const auto& f : r.findings) {
    camping += f.id == "partitions_camping";
    transpose += f.id == "partitions_transpose";
  }
  EXPECT_EQ(camping, 2);
  EXPECT_EQ(transpose, 1);
}

}  // namespace
}  // namespace gpuprobe
