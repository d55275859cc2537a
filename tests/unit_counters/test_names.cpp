// Metric-name helpers without CUPTI: split, edit distance, nearest names, device-scope units.
#include <gtest/gtest.h>

#include "gpuprobe/counters/names.hpp"

namespace gpuprobe::counters {
namespace {

TEST(CounterNames, SplitsBaseAndSuffix) {
  EXPECT_EQ(split_metric_name("dram__bytes_read.sum.per_second").base, "dram__bytes_read");
  EXPECT_EQ(split_metric_name("dram__bytes_read.sum.per_second").suffix, ".sum.per_second");
  EXPECT_EQ(split_metric_name("PCI.TriageCompute.pcie__read_bytes.sum").base,
            "PCI.TriageCompute.pcie__read_bytes");
  EXPECT_EQ(split_metric_name("dram__bytes_read").suffix, "");
}

TEST(CounterNames, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("dram__bytes_raed", "dram__bytes_read"), 2u);
}

TEST(CounterNames, NearestPrefersSameUnitAndDropsNonsense) {
  const std::vector<std::string> names = {"dram__bytes_read", "dram__bytes_write",
                                          "lts__bytes_read", "sm__cycles_elapsed"};
  const auto near = nearest_names("dram__bytes_raed", names, 2);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0], "dram__bytes_read");
  EXPECT_EQ(near[1], "dram__bytes_write");
  EXPECT_TRUE(nearest_names("zzzz", names).empty());
}

TEST(CounterNames, DeviceScopeUnits) {
  EXPECT_TRUE(is_device_scope_unit("pcie"));
  EXPECT_TRUE(is_device_scope_unit("nvlrx"));
  EXPECT_FALSE(is_device_scope_unit("dram"));
}

}  // namespace
}  // namespace gpuprobe::counters

namespace gpuprobe::counters {
namespace {

// Long labels (zerocopy's first sweep had 64-character range names, which CUPTI dropped and
// then crashed on) are cut to the limit; the index in front keeps them unique.
TEST(RangeName, IndexLabelNoSlashAndAtMostTheLimit) {
  EXPECT_EQ(range_name(3, "pinned h2d 64 MiB"), "3 pinned h2d 64 MiB");
  EXPECT_EQ(range_name(7, ""), "7 point");
  EXPECT_EQ(range_name(1, "a/b"), "1 a-b");
  const std::string long_label(100, 'x');
  const std::string a = range_name(10, long_label);
  const std::string b = range_name(11, long_label);
  EXPECT_EQ(a.size(), kMaxRangeNameLength);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 3), "10 ");
}

}  // namespace
}  // namespace gpuprobe::counters
