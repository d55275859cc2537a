// Unit tests for refusing the global options a command does not use (src/cli/unused_options.cpp).
#include "cli/unused_options.hpp"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::cli {
namespace {

// The message refuse_unused throws with these options given, or "" when it throws none.
std::string refusal(const std::set<std::string>& given, const std::string& command,
                    unsigned refused) {
  try {
    refuse_unused([&given](const std::string& name) { return given.count(name) > 0; }, command,
                  refused);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(UnusedOptions, ExpectToACommandThatEvaluatesNoneIsRefused) {
  EXPECT_EQ(refusal({"--expect"}, "compare", kMeasureOptions | kExpectOptions),
            "--expect is not used by `compare`: it evaluates no expectations (gpuprobe check "
            "RUN.json --expect EXPR checks saved results)");
  EXPECT_EQ(refusal({"--expect-file"}, "fleet", kExpectOptions).substr(0, 36),
            "--expect-file is not used by `fleet`");
  // check on files uses them.
  EXPECT_EQ(
      refusal({"--expect", "--expect-file"}, "check RUN.json", kMeasureOptions | kDeviceOption),
      "");
}

TEST(UnusedOptions, EachGroupNamesWhyAndOnlyRefusedGroupsCount) {
  EXPECT_EQ(refusal({"--seed"}, "compare", kMeasureOptions),
            "--seed is not used by `compare`: it runs no probe");
  EXPECT_EQ(refusal({"--counters"}, "list", kAllOptions),
            "--counters/--no-counters is not used by `list`: it runs no probe");
  EXPECT_EQ(refusal({"--device"}, "fleet", kDeviceOption),
            "--device is not used by `fleet`: it takes the GPUs from its files");
  EXPECT_EQ(refusal({"--md"}, "report", kAllOptions),
            "--md is not used by `report`: it writes no result file");
  EXPECT_EQ(refusal({"--device", "--json"}, "info", kMeasureOptions | kExpectOptions), "");
  EXPECT_EQ(refusal({}, "report", kAllOptions), "");
}

TEST(UnusedOptions, EachCommandsRuleIsTheOneItsHelpListsFrom) {
  // The rule refuse_unused applies and the help's "Global options that apply" line share it.
  EXPECT_EQ(refused_groups("list"), unsigned{kAllOptions});
  EXPECT_EQ(refused_groups("report"), unsigned{kAllOptions});
  EXPECT_EQ(refused_groups("compare"), unsigned{kMeasureOptions | kDeviceOption | kExpectOptions});
  EXPECT_EQ(refused_groups("check RUN.json"), unsigned{kMeasureOptions | kDeviceOption});
  EXPECT_EQ(refused_groups("transfer"), 0u);
  EXPECT_EQ(refused_groups("check"), 0u);
  EXPECT_TRUE(refused_option("--seed", refused_groups("info")));
  EXPECT_FALSE(refused_option("--json", refused_groups("info")));
  EXPECT_TRUE(refused_option("--device", refused_groups("fleet")));
  EXPECT_FALSE(refused_option("--quiet", kAllOptions));  // of no group: every command uses it
}

}  // namespace
}  // namespace gpuprobe::cli
