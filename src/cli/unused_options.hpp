// Global options a command does not use, and global options that contradict each other: refused
// with exit 2 rather than silently ignored (README "Global options"). Host-only (no CLI11), so the
// unit tests compile it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gpuprobe::cli {

// Global options by what they are for.
enum OptionGroup : unsigned {
  kMeasureOptions = 1,  // how probes run (--samples ... --plan): the command runs none
  kExpectOptions = 2,   // --expect, --expect-file: the command evaluates none
  kDeviceOption = 4,    // --device: the command takes its GPUs from files
  kOutputOptions = 8,   // --json, --csv, --md: the command writes no result file
  kAllOptions = 15,
};

// The groups `command` refuses: "list", "info", "compare", "fleet", "report", "check RUN.json"
// (check with result files); 0 for every other command (a probe, all, check).
unsigned refused_groups(const std::string& command);

// Whether the global option `long_name` ("--seed") belongs to one of the `refused` groups. Options
// of no group (-q, --no-color, --wide) are never refused.
bool refused_option(const std::string& long_name, unsigned refused);

// Throws UsageError naming the first option of the `refused` groups that `given` says was given
// to `command`, and why the command does not use it. `given` takes a long name ("--seed").
void refuse_unused(const std::function<bool(const std::string&)>& given, const std::string& command,
                   unsigned refused);

// Throws UsageError when given options contradict each other: --counters with --no-counters
// (`counters_both_ways`: CLI11 keeps the last), --samples with --min-time or --max-time (bounds of
// the adaptive rule a fixed count replaces), -q/--quiet with --wide (the table it widens is left
// out), --wide with --json - or --csv - and no --md (the table it widens gives way to the file
// on stdout). `given` takes a long name ("--samples"); `on_stdout` the flag writing its file to
// stdout ("--json", "--csv"; empty: none).
void refuse_contradictions(const std::function<bool(const std::string&)>& given,
                           bool counters_both_ways, std::string_view on_stdout = {});

}  // namespace gpuprobe::cli
