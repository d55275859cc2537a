// Global options a command does not use, refused with one line (exit 2).
#include "unused_options.hpp"

#include <fmt/format.h>

#include <vector>

#include "gpuprobe/core/errors.hpp"

namespace gpuprobe::cli {
namespace {

struct OptionUse {
  OptionGroup group;
  std::vector<std::string> names;  // long names, as given
  const char* why;
};

}  // namespace

void refuse_unused(const std::function<bool(const std::string&)>& given, const std::string& command,
                   unsigned refused) {
  static const OptionUse kUses[] = {
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
  for (const auto& use : kUses) {
    if ((refused & use.group) == 0) continue;
    for (const auto& name : use.names) {
      if (!given(name)) continue;
      const std::string shown = name == "--counters" ? "--counters/--no-counters" : name;
      throw UsageError(fmt::format("{} is not used by `{}`: {}", shown, command, use.why));
    }
  }
}

}  // namespace gpuprobe::cli
