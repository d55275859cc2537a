// host-links' findings, each declared once: id, kind, params, values with units, and sentence.
#pragma once

#include <fmt/format.h>

#include <string>

#include "gpuprobe/core/finding_def.hpp"

namespace gpuprobe::host_links {

// The keys of host-links' findings.
constexpr Int<"gpu"> kGpu;
constexpr Text<"direction"> kDirection;
constexpr Size<"bytes"> kBytes;
constexpr Maybe<Int<"worst_gpu">> kWorstGpu;
constexpr Value<"bandwidth", "GB/s"> kBandwidth;
constexpr Value<"others_median", "GB/s"> kOthersMedian;
constexpr Value<"margin", "GB/s"> kMargin;
constexpr Value<"ratio", "x"> kRatio;
constexpr Value<"lowest", "GB/s"> kLowest;
constexpr Value<"highest", "GB/s"> kHighest;
constexpr Value<"gpus"> kGpus;
constexpr Value<"aggregate", "GB/s"> kAggregate;
constexpr Value<"solo_sum", "GB/s"> kSoloSum;
constexpr Value<"loss", "%"> kLoss;
constexpr Each<"loss_gpu", "%"> kLossGpu;  // each concurrent GPU's loss, by its index
constexpr Value<"gpu_node"> kGpuNode;
constexpr Value<"host_node"> kHostNode;

inline FindingList kFindings;

inline const auto kSlowLink = kFindings.verdict(
    "host_links_slow_link", params(kGpu, kDirection, kBytes),
    values(kBandwidth, kOthersMedian, kMargin, kRatio), [](const auto& f) {
      return fmt::format(
          "GPU {} {} {}: its host link gives {} alone, {:.2f}x the median of its siblings ({}), "
          "below it by more than their spread and the noise ({}): a narrower or slower link, a "
          "remote NUMA node or a shared switch (measured)",
          f[kGpu], f[kDirection], f[kBytes], f[kBandwidth], f.value(kRatio), f[kOthersMedian],
          f[kMargin]);
    });

inline const auto kLinksAlike = kFindings.verdict(
    "host_links_links_alike", params(kDirection, kBytes), values(kLowest, kHighest, kGpus),
    [](const auto& f) {
      return fmt::format(
          "{} {}: the {:.0f} GPUs' host links are alike alone ({} to {}): none is slower than "
          "its siblings beyond their spread and the noise (measured)",
          f[kDirection], f[kBytes], f.value(kGpus), f[kLowest], f[kHighest]);
    });

inline const auto kConcurrentLoss = kFindings.verdict(
    "host_links_concurrent_loss", params(kDirection, kBytes),
    values(kAggregate, kSoloSum, kLoss, kLossGpu), outcome(kWorstGpu), [](const auto& f) {
      std::string per_gpu;
      for (const auto& [gpu, loss] : f.items(kLossGpu)) {
        if (loss)
          per_gpu += fmt::format("{}GPU {} {:.0f}%", per_gpu.empty() ? "" : ", ", gpu, *loss);
      }
      return fmt::format(
          "{} {}: all GPUs at once move {} together against {} for their solos summed, a loss "
          "of {}{} (measured)",
          f[kDirection], f[kBytes], f[kAggregate], f[kSoloSum], f[kLoss],
          per_gpu.empty() ? "" : "; each GPU loses " + per_gpu);
    });

inline const auto kOneGpu =
    kFindings.note("host_links_one_gpu",
                   "one GPU measured: solo rows only; select several GPUs (--device 0,1,2,3 or "
                   "all) to measure their host links copying at once");

inline const auto kRemoteBuffer = kFindings.warning(
    "host_links_remote_buffer", params(kGpu), values(kGpuNode, kHostNode), [](const auto& f) {
      return fmt::format(
          "GPU {}: its pinned host buffer landed on NUMA node {}, not on the GPU's node {}: its "
          "copies also cross the CPUs' interconnect",
          f[kGpu], f.value(kHostNode), f.value(kGpuNode));
    });

inline const auto kPlanEachGpu =
    kFindings.note("host_links_plan_each_gpu",
                   "the GPUs are those of the run's --device selection, known at run time: each "
                   "gets a solo and a concurrent row per point (gpu 'each'), the concurrent run "
                   "one aggregate row (gpu 'all')");

}  // namespace gpuprobe::host_links
