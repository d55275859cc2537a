// Verification's words (core/mismatches.hpp): counts, the first wrong index, the report's text.
#include <gtest/gtest.h>

#include <vector>

#include "gpuprobe/core/mismatches.hpp"

namespace gpuprobe {
namespace {

TEST(Mismatches, FindCountsEveryWrongIndexAndKeepsTheLowest) {
  const std::vector<int> got = {0, 1, 9, 3, 9, 5};
  const Mismatches m =
      find_mismatches(got.size(), [&](std::uint64_t i) { return got[i] != static_cast<int>(i); });
  EXPECT_EQ(m.count, 2u);
  EXPECT_EQ(m.first, 2u);
}

TEST(Mismatches, NothingWrongIsEmptyText) {
  const Mismatches none = find_mismatches(100, [](std::uint64_t) { return false; });
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(mismatch_text("h2d", none, 100), "");
  MismatchReport report;
  report.add("h2d", none, 100);
  EXPECT_EQ(report.text(), "");
}

TEST(Mismatches, TextNamesCountTotalUnitAndFirstIndex) {
  EXPECT_EQ(mismatch_text("h2d", {3, 17}, 1024),
            "h2d: 3 of 1024 words wrong, the first at index 17");
  EXPECT_EQ(mismatch_text("", {1, 0}, 8, "thread sums"),
            "1 of 8 thread sums wrong, the first at index 0");
}

TEST(Mismatches, ReportJoinsOnlyTheWrongBuffers) {
  MismatchReport report;
  report.add("h2d", {2, 5}, 64);
  report.add("kernel", {}, 64);
  report.add("d2h", {64, 0}, 64);
  EXPECT_EQ(report.text(),
            "h2d: 2 of 64 words wrong, the first at index 5; d2h: 64 of 64 words wrong, the first "
            "at index 0");
}

}  // namespace
}  // namespace gpuprobe
