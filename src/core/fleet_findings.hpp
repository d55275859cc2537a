// fleet's findings, each declared once: id, kind, params, values with units, and sentence.
#pragma once

#include <fmt/format.h>

#include <string>

#include "gpuprobe/core/finding_def.hpp"
#include "gpuprobe/core/fleet.hpp"

namespace gpuprobe::fleet_findings {

// The keys of fleet's findings: who measured (host, gpu, device, uuid, file), what and where.
constexpr Text<"host"> kHost;
constexpr Text<"gpu"> kGpu;  // the GPU product: the device name
constexpr Int<"device"> kDevice;
constexpr Text<"uuid"> kUuid;
constexpr Text<"file"> kFile;
constexpr Text<"probe"> kProbe;
constexpr Rest<"row"> kRow;  // the row's own params, whatever the probe
constexpr Text<"metric"> kMetric;
constexpr Text<"side"> kSide;  // low, high
constexpr ValueIn<"value"> kValue;
constexpr ValueIn<"fleet_median"> kFleetMedian;
constexpr Value<"deviation", "%"> kDeviation;
constexpr Value<"robust_sigmas"> kRobustSigmas;
constexpr Value<"values_beyond"> kValuesBeyond;
constexpr Value<"values"> kValues;
constexpr Value<"runs"> kRuns;
constexpr Value<"share", "%"> kShare;
constexpr Value<"median_deviation", "%"> kMedianDeviation;
constexpr Value<"max_share", "%"> kMaxShare;
constexpr Value<"results"> kResults;
constexpr Value<"gpus"> kGpus;
constexpr Value<"files"> kFiles;
constexpr Value<"models"> kProducts;  // JSON key "models": GPU products
constexpr Value<"rows"> kRows;
constexpr Value<"outliers"> kOutliers;
constexpr Value<"k"> kK;
constexpr Value<"min_deviation", "%"> kMinDeviation;

inline FindingList kFindings;

// Judged among the GPUs of its product only; named by host, index, product, then UUID and file.
inline const auto kOutlier = kFindings.warning(
    "fleet_outlier", params(kHost, kGpu, kDevice, kUuid, kFile, kProbe),
    values(kValuesBeyond, kValues, kRuns, kShare, kMedianDeviation, kMaxShare), [](const auto& f) {
      const std::string uuid = f[kUuid];
      const double runs = f.value(kRuns);
      return fmt::format(
          "{} GPU {} ({}) is beyond the fleet in {}: {:g} of its {:g} values{} ({:.0f}%, more "
          "than {:g}%), their median {:+.1f}% from the fleet's [{}{}]",
          f[kHost], f[kDevice], f[kGpu], f[kProbe], f.value(kValuesBeyond), f.value(kValues),
          runs > 1 ? fmt::format(" in {:g} runs", runs) : std::string(), f.value(kShare),
          f.value(kMaxShare), f.value(kMedianDeviation), uuid.empty() ? "" : uuid + ", ", f[kFile]);
    });

// The row a value is about: its params other than who measured it ("pinned, h2d, 64 MiB").
template <class View>
std::string row_text(const View& f) {
  std::string out;
  for (const Param& p : f.items(kRow))
    out += (out.empty() ? "" : ", ") + param_words(p);
  return out;
}

inline const auto kBeyond = kFindings.note(
    "fleet_beyond", params(kHost, kGpu, kDevice, kUuid, kFile, kRow, kMetric),
    values(kValue, kFleetMedian, kDeviation, kRobustSigmas), outcome(kSide), [](const auto& f) {
      const auto sigmas = f.maybe(kRobustSigmas);
      return fmt::format("{} GPU {} ({}): {} {} {} is {:+.1f}% from the fleet median {} ({}) [{}]",
                         f[kHost], f[kDevice], f[kGpu], row_text(f), f[kMetric], f[kValue],
                         f.value(kDeviation), f[kFleetMedian],
                         sigmas ? fmt::format("{:.1f} robust sigmas", *sigmas)
                                : std::string("the rest of the fleet is identical"),
                         f[kFile]);
    });

inline const auto kSummary = kFindings.verdict(
    "fleet_summary", params(),
    values(kFiles, kGpus, kProducts, kRuns, kRows, kOutliers, kK, kMinDeviation, kMaxShare),
    [](const auto& f) {
      const double gpus = f.value(kGpus);
      return fmt::format(
          "fleet: {:g} files, {:g} GPU{} (by UUID) of {:g} model(s), {:g} GPU run(s), {:g} rows; "
          "values are judged among GPUs of one model: a value is beyond the fleet past {:g} "
          "robust sigmas (1.4826 x the median absolute deviation) and {:g}% of the median, a GPU "
          "when more than {:g}% of its values in a probe are: {:g} such GPU-probe pair(s)",
          f.value(kFiles), gpus, gpus == 1 ? "" : "s", f.value(kProducts), f.value(kRuns),
          f.value(kRows), f.value(kK), f.value(kMinDeviation), f.value(kMaxShare),
          f.value(kOutliers));
    });

inline const auto kProductNote =
    kFindings.note("fleet_model", params(kGpu), values(kGpus, kRuns), [](const auto& f) {
      const double gpus = f.value(kGpus);
      return fmt::format(
          "{}: {:g} GPU{}, {:g} run(s){}", f[kGpu], gpus, gpus == 1 ? "" : "s", f.value(kRuns),
          gpus < static_cast<double>(kFleetMinMembers)
              ? fmt::format("; fewer than {} GPUs: shown, not judged", kFleetMinMembers)
              : std::string());
    });

inline const auto kIncomplete = kFindings.note(
    "fleet_incomplete", params(kProbe, kGpu), values(kResults, kGpus), [](const auto& f) {
      return fmt::format(
          "{}: results from {:g} of {:g} {} GPUs (the others did not run it, or it failed or "
          "was skipped there)",
          f[kProbe], f.value(kResults), f.value(kGpus), f[kGpu]);
    });

}  // namespace gpuprobe::fleet_findings
