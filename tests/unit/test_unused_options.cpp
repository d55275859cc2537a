// Unit tests for refusing the global options a command does not use, and contradicting ones
// (src/cli/unused_options.cpp).
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

std::string contradiction(const std::set<std::string>& given, bool counters_both_ways = false,
                          std::string_view on_stdout = {}) {
  try {
    refuse_contradictions([&given](const std::string& name) { return given.count(name) > 0; },
                          counters_both_ways, on_stdout);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ContradictingOptions, AreRefusedWithWhatContradictsWhat) {
  EXPECT_EQ(contradiction({}, true),
            "--counters and --no-counters contradict each other: give one of them");
  EXPECT_EQ(contradiction({"--samples", "--max-time"}).substr(0, 60),
            "--samples fixes the count of samples per point, so --max-tim");
  EXPECT_NE(contradiction({"--samples", "--min-time"}).find("--min-time"), std::string::npos);
  EXPECT_EQ(contradiction({"--quiet", "--wide"}),
            "--wide shapes the table that -q/--quiet leaves out: give one of them");
  EXPECT_EQ(contradiction({"--wide", "--json"}, false, "--json"),
            "--wide shapes the table (and Markdown), and --json - writes its file to standard "
            "output instead of the table: give one of them");
  EXPECT_NE(contradiction({"--wide", "--csv"}, false, "--csv"), "");
}

TEST(ContradictingOptions, OptionsThatGoTogetherPass) {
  EXPECT_EQ(contradiction({"--samples", "--max-noise", "--rounds", "--seed"}), "");
  EXPECT_EQ(contradiction({"--min-time", "--max-time", "--wide"}), "");
  EXPECT_EQ(contradiction({"--quiet", "--json"}), "");
  EXPECT_EQ(contradiction({"--wide", "--json"}), "");  // a JSON file beside the wide table
  EXPECT_EQ(contradiction({"--wide", "--json", "--md"}, false, "--json"), "");  // wide Markdown
}

}  // namespace
}  // namespace gpuprobe::cli
