// The runner's own findings, each declared once: clocks, persisting-L2 state, counters not had.
#pragma once

#include <fmt/format.h>

#include <string>

#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::runner_findings {

// The keys of the runner's findings. `device` scopes a finding to a GPU other than the harness's.
constexpr Maybe<Int<"device">> kDevice;
constexpr Text<"reason"> kReason;
constexpr Text<"hint"> kHint;
constexpr Maybe<Flag<"during_run">> kDuringRun;
constexpr Text<"metrics"> kMetrics;
constexpr Text<"reasons"> kReasons;
constexpr Value<"sm_clock_before", "MHz"> kSmClockBefore;
constexpr Value<"sm_clock_after", "MHz"> kSmClockAfter;
constexpr Value<"sm_clock_max", "MHz"> kSmClockMax;
constexpr Value<"limit", "B"> kLimit;
constexpr Value<"window_bytes", "B"> kWindowBytes;
constexpr Value<"count"> kCount;

inline FindingList kFindings;

inline const auto kSmClockLow = kFindings.warning(
    "sm_clock_low", params(kDevice), values(kSmClockBefore, kSmClockAfter, kSmClockMax),
    [](const auto& f) {
      return fmt::format(
          "SM clock measured at {}/{} (before/after), under 80% of the {} maximum: the GPU may "
          "be throttled or idle-clocked; compare results with care",
          f[kSmClockBefore], f[kSmClockAfter], f[kSmClockMax]);
    });

inline const auto kPersistingL2Default =
    kFindings.note("persisting_l2_default", params(kDevice), values(kLimit), [](const auto& f) {
      return fmt::format(
          "the first probe on this GPU found a persisting-L2 set-aside of {} that nothing in "
          "gpuprobe had set (the driver's default for a new context); it was reset to 0 for the "
          "probe, as at every probe boundary",
          f[kLimit]);
    });

inline const auto kPersistingL2LeftBefore = kFindings.warning(
    "persisting_l2_left_before", params(kDevice), values(kLimit), [](const auto& f) {
      return fmt::format(
          "a persisting-L2 set-aside of {} was in force before this probe (left by earlier work "
          "in this process); it was reset to 0 for the probe",
          f[kLimit]);
    });

inline const auto kPersistingL2LeftAfter = kFindings.warning(
    "persisting_l2_left_after", params(kDevice), values(kLimit, kWindowBytes), [](const auto& f) {
      return fmt::format(
          "this probe left persisting-L2 state behind (set-aside {}, window {} on the harness's "
          "stream); the runner reset it",
          f[kLimit], f[kWindowBytes]);
    });

inline const auto kCountersUnavailable = kFindings.warning(
    "counters_unavailable", params(kReason, kHint, kDuringRun), values(), [](const auto& f) {
      const std::string hint = f[kHint];
      const bool says_timing = hint.find("timing") != std::string::npos;
      return fmt::format("hardware counters not collected{}: {}{}{}",
                         f.has(kDuringRun) ? " for the remaining points" : "", f[kReason],
                         hint.empty() ? "" : " (" + hint + ")",
                         says_timing ? "" : "; timing is unaffected");
    });

inline const auto kCountersMissing = kFindings.warning(
    "counters_missing", params(kMetrics, kReasons), values(kCount), [](const auto& f) {
      return fmt::format("{} counter(s) came back without a value: {} ({})", f[kCount], f[kMetrics],
                         f[kReasons]);
    });

}  // namespace gpuprobe::runner_findings
