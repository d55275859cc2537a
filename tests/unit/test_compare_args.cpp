// Unit tests for compare's option parsers in the CLI layer (src/cli/compare_args.cpp).
#include "cli/compare_args.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::cli {
namespace {

TEST(CompareArgs, ParsesDevicePairs) {
  EXPECT_EQ(parse_device_pairs("0:1"), (std::vector<DevicePair>{{0, 1}}));
  EXPECT_EQ(parse_device_pairs("0:1,2:3"), (std::vector<DevicePair>{{0, 1}, {2, 3}}));
  EXPECT_EQ(parse_device_pairs("0:1,0:1"), (std::vector<DevicePair>{{0, 1}}));  // once each
  for (const char* bad : {"", "0", "0:", ":1", "a:b", "-1:0", "0:1,", "0:1:2", "0-1"})
    EXPECT_THROW(parse_device_pairs(bad), UsageError) << bad;
}

TEST(CompareArgs, DevicePairErrorQuotesTheText) {
  try {
    parse_device_pairs("0-1");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--devices '0-1': '0-1' has no ':'; give A:B device indices, e.g. 0:1 (or a list "
              "0:1,2:3)");
  }
}

TEST(CompareArgs, ParsesPercentages) {
  EXPECT_DOUBLE_EQ(parse_percent("--fail-on-regression", "5"), 5);
  EXPECT_DOUBLE_EQ(parse_percent("--fail-on-regression", "2.5%"), 2.5);
  EXPECT_DOUBLE_EQ(parse_percent("--fail-on-regression", "0"), 0);
  EXPECT_EQ(parse_percent("--fail-on-regression", "29"), 29.0);  // exactly, no round trip
  for (const char* bad : {"", "-5", "abc", "5%%", "inf", "nan"})
    EXPECT_THROW(parse_percent("--fail-on-regression", bad), UsageError) << bad;
}

}  // namespace
}  // namespace gpuprobe::cli
