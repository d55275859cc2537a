// peer's findings, each declared once: id, kind, params, values with units, and sentence.
#pragma once

#include <fmt/format.h>

#include <string>

#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::peer {

// The keys of peer's findings.
constexpr Int<"src"> kSrc;
constexpr Int<"dst"> kDst;
constexpr Text<"mode"> kMode;
constexpr Text<"direction"> kDirection;
constexpr Size<"at"> kAt;
constexpr Text<"link"> kLink;
constexpr Value<"bandwidth", "GB/s"> kBandwidth;
constexpr Value<"latency", "s"> kLatency;
constexpr Value<"latency_bytes", "B"> kLatencyBytes;
constexpr Value<"raw_limit", "GB/s"> kRawLimit;
constexpr Value<"fraction_of_raw"> kFractionOfRaw;
constexpr Value<"latency_largest", "s"> kLatencyLargest;
constexpr Value<"largest_bytes", "B"> kLargestBytes;

inline FindingList kFindings;

inline const auto kPath = kFindings.verdict(
    "peer_path", params(kSrc, kDst, kMode, kDirection),
    values(kBandwidth, kLatency, kLatencyBytes, kRawLimit, kFractionOfRaw), outcome(kAt),
    [](const auto& f) {
      const auto fraction = f.maybe(kFractionOfRaw);
      const std::string limit =
          fraction ? fmt::format(", {:.0f}% of the raw {}", *fraction * 100.0, f[kRawLimit])
                   : std::string(", no raw limit known for this link");
      return fmt::format("GPU {} -> GPU {} {} {}: peak {} at {}{}; {} per copy of {} (measured)",
                         f[kSrc], f[kDst], f[kMode], f[kDirection], f[kBandwidth], f[kAt], limit,
                         f[kLatency], f[kLatencyBytes]);
    });

inline const auto kAboveModel = kFindings.warning(
    "peer_above_model", params(kSrc, kDst, kMode, kDirection), values(kBandwidth, kRawLimit),
    outcome(kLink), [](const auto& f) {
      return fmt::format(
          "GPU {} -> GPU {} {} {}: {} exceeds the link's raw {} ({}): the GPUs are joined by "
          "something faster than the link facts say (NVLink NVML did not report?)",
          f[kSrc], f[kDst], f[kMode], f[kDirection], f[kBandwidth], f[kRawLimit], f[kLink]);
    });

inline const auto kChase = kFindings.verdict(
    "peer_chase", params(kSrc, kDst),
    values(kLatency, kLatencyBytes, kLatencyLargest, kLargestBytes), [](const auto& f) {
      return fmt::format(
          "GPU {} reading GPU {}'s memory, one dependent load at a time: {} per load over a "
          "chain of {}, {} over {}",
          f[kDst], f[kSrc], f[kLatency], f[kLatencyBytes], f[kLatencyLargest], f[kLargestBytes]);
    });

inline const auto kLinkAssumed = kFindings.note(
    "peer_link_assumed",
    "link facts from sysfs (PCIe speed and width now), not NVML (unavailable: see the device's "
    "nvml_unavailable): the raw limit assumes each pair talks over the narrower PCIe link of its "
    "two GPUs, which an NVLink pair exceeds");

inline const auto kNoP2p = kFindings.note(
    "peer_no_p2p", params(kSrc, kDst, kMode, kDirection), values(), [](const auto& f) {
      return fmt::format("GPU {} -> GPU {} {} {}: not measured, the pair has no P2P access ({})",
                         f[kSrc], f[kDst], f[kMode], f[kDirection],
                         "cudaDeviceCanAccessPeer says no; staged copies still run");
    });

inline const auto kPatternNoP2p = kFindings.note(
    "peer_pattern_no_p2p",
    "some pattern points were not measured: a pair among their copies has no P2P access "
    "(cudaDeviceCanAccessPeer says no)");

inline const auto kPlanEveryGpu = kFindings.note(
    "peer_plan_every_gpu",
    "the pairs are those of every GPU visible at run time (--device all): name the GPUs "
    "(--device 0,1) to list the sweep");

inline const auto kPlanOneGpu = kFindings.note(
    "peer_plan_one_gpu",
    "--device selects one GPU: peer pairs the GPUs of --device and needs two (--device 0,1 or "
    "--device all)");

}  // namespace gpuprobe::peer
