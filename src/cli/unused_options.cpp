// Global options a command does not use, refused with one line (exit 2).
#include "unused_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::cli {
namespace {

struct OptionUse {
  OptionGroup group;
  std::vector<std::string> names;  // long names, as given
  const char* why;
};

const std::vector<OptionUse>& option_uses() {
  static const std::vector<OptionUse> kUses = {
      {kMeasureOptions,
       {"--samples", "--min-time", "--max-noise", "--max-time", "--rounds", "--seed", "--counters",
        "--metrics", "--plan"},
       "it runs no probe"},
      {kExpectOptions,
       {"--expect", "--expect-file"},
       "it evaluates no expectations (gpuprobe check RUN.json --expect EXPR checks saved results)"},
      {kDeviceOption, {"--device"}, "it takes the GPUs from its files"},
      {kOutputOptions, {"--json", "--csv", "--md"}, "it writes no result file"},
  };
  return kUses;
}

}  // namespace

unsigned refused_groups(const std::string& command) {
  const unsigned reads_files = kMeasureOptions | kDeviceOption;
  if (command == "list") return kAllOptions;
  if (command == "info") return kMeasureOptions | kExpectOptions;
  if (command == "compare" || command == "fleet") return reads_files | kExpectOptions;
  if (command == "report") return kAllOptions;
  if (command == "check RUN.json") return reads_files;
  return 0;
}

bool refused_option(const std::string& long_name, unsigned refused) {
  for (const auto& use : option_uses())
    if ((refused & use.group) != 0 &&
        std::find(use.names.begin(), use.names.end(), long_name) != use.names.end())
      return true;
  return false;
}

void refuse_unused(const std::function<bool(const std::string&)>& given, const std::string& command,
                   unsigned refused) {
  for (const auto& use : option_uses()) {
    if ((refused & use.group) == 0) continue;
    for (const auto& name : use.names) {
      if (!given(name)) continue;
      const std::string shown = name == "--counters" ? "--counters/--no-counters" : name;
      throw UsageError(fmt::format("{} is not used by `{}`: {}", shown, command, use.why));
    }
  }
}

}  // namespace gpuprobe::cli

namespace gpuprobe::cli {

void refuse_contradictions(const std::function<bool(const std::string&)>& given,
                           bool counters_both_ways, std::string_view on_stdout) {
  if (counters_both_ways)
    throw UsageError("--counters and --no-counters contradict each other: give one of them");
  if (given("--samples")) {
    for (const char* name : {"--min-time", "--max-time"}) {
      if (given(name))
        throw UsageError(fmt::format(
            "--samples fixes the count of samples per point, so {} (a bound of the adaptive rule "
            "it replaces) would do nothing: give one of them",
            name));
    }
  }
  if (given("--quiet") && given("--wide"))
    throw UsageError("--wide shapes the table that -q/--quiet leaves out: give one of them");
  if (given("--wide") && !on_stdout.empty() && !given("--md"))
    throw UsageError(fmt::format(
        "--wide shapes the table (and Markdown), and {} - writes its file to standard output "
        "instead of the table: give one of them",
        on_stdout));
}

}  // namespace gpuprobe::cli
