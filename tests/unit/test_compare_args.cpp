// Unit tests for compare's option parsers in the CLI layer (src/cli/compare_args.cpp).
#include "cli/compare_args.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::cli {
namespace {

// The message of the UsageError split_sides throws for `files`, or "" when it throws none.
std::string split_error(const std::vector<std::string>& files) {
  try {
    split_sides(files);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CompareArgs, SplitsTheSidesAtVs) {
  const SideFiles two = split_sides({"a.json", "b.json"});
  EXPECT_EQ(two.a, std::vector<std::string>{"a.json"});
  EXPECT_EQ(two.b, std::vector<std::string>{"b.json"});
  const SideFiles many = split_sides({"a1.json", "a2.json", "a3.json", "vs", "b1.json", "b2.json"});
  EXPECT_EQ(many.a, (std::vector<std::string>{"a1.json", "a2.json", "a3.json"}));
  EXPECT_EQ(many.b, (std::vector<std::string>{"b1.json", "b2.json"}));
  const SideFiles one_each = split_sides({"a.json", "vs", "b.json"});
  EXPECT_EQ(one_each.a, std::vector<std::string>{"a.json"});
  EXPECT_EQ(one_each.b, std::vector<std::string>{"b.json"});
}

TEST(CompareArgs, VsMisusedIsAUsageErrorSayingWhat) {
  const std::string form =
      "; give A.json B.json, or several runs per side: A1.json A2.json vs B1.json B2.json";
  EXPECT_EQ(split_error({"a.json", "b.json", "c.json"}), "compare: 3 file(s) without 'vs'" + form);
  EXPECT_EQ(split_error({"a.json"}), "compare: 1 file(s) without 'vs'" + form);
  EXPECT_EQ(split_error({"vs", "b.json"}), "compare: no file before 'vs'" + form);
  EXPECT_EQ(split_error({"a.json", "vs"}), "compare: no file after 'vs'" + form);
  EXPECT_EQ(split_error({"a.json", "vs", "b.json", "vs", "c.json"}),
            "compare: 'vs' given 2 times" + form);
  EXPECT_EQ(split_error({"a.json", "b.json"}), "");
}

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
