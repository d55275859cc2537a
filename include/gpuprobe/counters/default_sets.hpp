// The metrics collected beside every probe's own set: range duration, SM clock, DRAM clock.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::counters::defaults {

// SM clock during the counter pass; added to every session (cycles per second).
inline constexpr std::string_view kSmClock = "sm__cycles_elapsed.avg.per_second";

// Always collected beside a probe's set: range duration (spans the whole push..pop range, a
// cross-check, never a kernel time), SM clock and DRAM clock.
inline constexpr std::array<std::string_view, 3> kCompanions = {
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second",
};

// `metrics` followed by the companions that are not in it yet, in that order. A probe names its
// own set (Probe::counter_metrics, in its folder); the runner adds the companions with this.
std::vector<std::string> with_companions(std::vector<std::string> metrics);

}  // namespace gpuprobe::counters::defaults
