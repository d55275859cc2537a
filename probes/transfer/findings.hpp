// transfer's findings, each declared once: id, kind, params, values with units, and sentence.
#pragma once

#include <fmt/format.h>

#include <string>

#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::transfer {

// The keys of transfer's findings.
constexpr Text<"memory"> kMemory;
constexpr Text<"direction"> kDirection;
constexpr Size<"bytes"> kBytes;
constexpr Text<"why"> kWhy;
constexpr Value<"pinned_bandwidth", "GB/s"> kPinnedBandwidth;
constexpr Value<"pageable_bandwidth", "GB/s"> kPageableBandwidth;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"fit_bandwidth", "GB/s"> kFitBandwidth;
constexpr Value<"latency", "s"> kLatency;
constexpr Value<"half_bandwidth_size", "B"> kHalfBandwidthSize;
constexpr Value<"generation"> kGeneration;
constexpr Value<"lanes"> kLanes;
constexpr Value<"raw_bandwidth", "GB/s"> kRawBandwidth;
constexpr Value<"rows"> kRows;
constexpr Value<"min", "x"> kMin;
constexpr Value<"max", "x"> kMax;
constexpr Value<"large_from", "B"> kLargeFrom;
constexpr Value<"large_rows"> kLargeRows;
constexpr Value<"large_min", "x"> kLargeMin;
constexpr Value<"large_max", "x"> kLargeMax;

inline FindingList kFindings;

inline const auto kPinnedOverPageable = kFindings.verdict(
    "transfer_pinned_over_pageable", params(kDirection, kBytes),
    values(kPinnedBandwidth, kPageableBandwidth, kRatio), [](const auto& f) {
      return fmt::format(
          "{}: pinned {} vs pageable {} at {} — pinned is {:.2f}x pageable (measured)",
          f[kDirection], f[kPinnedBandwidth], f[kPageableBandwidth], f[kBytes], f.value(kRatio));
    });

inline const auto kPinnedFit = kFindings.verdict(
    "transfer_pinned_fit", params(kDirection), values(kFitBandwidth, kLatency, kHalfBandwidthSize),
    [](const auto& f) {
      return fmt::format("pinned {}: {} asymptotic, {} per copy, half of it reached at {}",
                         f[kDirection], f[kFitBandwidth], f[kLatency], f[kHalfBandwidthSize]);
    });

inline const auto kNoFit = kFindings.note(
    "transfer_no_fit", params(kMemory, kDirection, kWhy), values(), [](const auto& f) {
      return fmt::format("no fit for {} {}: {}", f[kMemory], f[kDirection], f[kWhy]);
    });

inline const auto kPcieLink = kFindings.note(
    "transfer_pcie_link", params(), values(kGeneration, kLanes, kRawBandwidth), [](const auto& f) {
      return fmt::format(
          "link: PCIe gen {:g} x{:g} = {} per direction after line encoding, before packet "
          "overhead (model ceiling for h2d/d2h; bidir up to twice that)",
          f.value(kGeneration), f.value(kLanes), f[kRawBandwidth]);
    });

inline const auto kPcieLinkUnknown = kFindings.note(
    "transfer_pcie_link_unknown",
    "PCIe link speed/width not readable from sysfs here (VM?): no link ceiling shown");

// "1.000x", or "0.998-1.004x" when the ends print apart.
inline std::string link_range(double a, double b) {
  return fmt::format("{:.3f}{}x", a,
                     fmt::format("{:.3f}", a) == fmt::format("{:.3f}", b)
                         ? std::string()
                         : fmt::format("-{:.3f}", b));
}

// The highest row (memory, direction, bytes) is where the extreme lies: outcome entries.
inline const auto kLinkBytes = kFindings.verdict(
    "transfer_link_bytes", params(),
    values(kRows, kMin, kMax, kLargeFrom, kLargeRows, kLargeMin, kLargeMax),
    outcome(kMemory, kDirection, kBytes), [](const auto& f) {
      const double large = f.value(kLargeRows);
      const std::string big = large > 0
                                  ? fmt::format("{} on the {:g} row{} of {} and more; ",
                                                link_range(f.value(kLargeMin), f.value(kLargeMax)),
                                                large, large == 1 ? "" : "s", f[kLargeFrom])
                                  : std::string();
      const double n = f.value(kRows);
      return fmt::format(
          "PCIe counters: bytes on the link / payload {}{} over {} {:g} row{} with counters "
          "(highest: {} {} {}); no model predicts it: the counters count payload at 512-B "
          "granularity, device-wide, so about 1 is expected where the copy dwarfs other traffic",
          big, link_range(f.value(kMin), f.value(kMax)), n == 1 ? "the" : "all", n,
          n == 1 ? "" : "s", f[kMemory], f[kDirection], f[kBytes]);
    });

}  // namespace gpuprobe::transfer
