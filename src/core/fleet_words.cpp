// The fleet findings' sentences and the fleet table's short column headers.
#include <fmt/format.h>

#include <set>

#include "gpuprobe/core/fleet.hpp"

namespace gpuprobe {
namespace {

// The row an outlier is about: its params other than who measured it ("pinned, h2d, 64 MiB").
std::string row_text(const Finding& f) {
  static const std::set<std::string> kWho = {"host", "gpu", "device", "uuid", "file", "metric"};
  std::string out;
  for (const auto& p : f.params) {
    if (kWho.count(p.key)) continue;
    out += (out.empty() ? "" : ", ") + param_text_of(f, p.key);
  }
  return out;
}

}  // namespace

Glossary fleet_glossary() {
  Glossary g;
  g.add_phrasing("fleet_outlier", [](const Finding& f) {
    // Judged among the GPUs of its model only; named by host, index, model, then UUID and file.
    const std::string uuid = param_text_of(f, "uuid");
    const double runs = value_of(f, "runs");
    return fmt::format(
        "{} GPU {} ({}) is beyond the fleet in {}: {:g} of its {:g} values{} ({:.0f}%, more than "
        "{:g}%), their median {:+.1f}% from the fleet's [{}{}]",
        param_text_of(f, "host"), param_text_of(f, "device"), param_text_of(f, "gpu"),
        param_text_of(f, "probe"), value_of(f, "values_beyond"), value_of(f, "values"),
        runs > 1 ? fmt::format(" in {:g} runs", runs) : std::string(), value_of(f, "share"),
        value_of(f, "max_share"), value_of(f, "median_deviation"), uuid.empty() ? "" : uuid + ", ",
        param_text_of(f, "file"));
  });
  g.add_phrasing("fleet_beyond", [](const Finding& f) {
    const auto sigmas = optional_value_of(f, "robust_sigmas");
    return fmt::format("{} GPU {} ({}): {} {} {} is {:+.1f}% from the fleet median {} ({}) [{}]",
                       param_text_of(f, "host"), param_text_of(f, "device"),
                       param_text_of(f, "gpu"), row_text(f), param_text_of(f, "metric"),
                       value_text(f, "value"), value_of(f, "deviation"),
                       value_text(f, "fleet_median"),
                       sigmas ? fmt::format("{:.1f} robust sigmas", *sigmas)
                              : std::string("the rest of the fleet is identical"),
                       param_text_of(f, "file"));
  });
  g.add_phrasing("fleet_summary", [](const Finding& f) {
    const double gpus = value_of(f, "gpus");
    return fmt::format(
        "fleet: {:g} files, {:g} GPU{} (by UUID) of {:g} model(s), {:g} GPU run(s), {:g} rows; "
        "values are judged among GPUs of one model: a value is beyond the fleet past {:g} robust "
        "sigmas (1.4826 x the median absolute deviation) and {:g}% of the median, a GPU when more "
        "than {:g}% of its values in a probe are: {:g} such GPU-probe pair(s)",
        value_of(f, "files"), gpus, gpus == 1 ? "" : "s", value_of(f, "models"),
        value_of(f, "runs"), value_of(f, "rows"), value_of(f, "k"), value_of(f, "min_deviation"),
        value_of(f, "max_share"), value_of(f, "outliers"));
  });
  g.add_phrasing("fleet_model", [](const Finding& f) {
    const double gpus = value_of(f, "gpus");
    return fmt::format(
        "{}: {:g} GPU{}, {:g} run(s){}", param_text_of(f, "gpu"), gpus, gpus == 1 ? "" : "s",
        value_of(f, "runs"),
        gpus < static_cast<double>(kFleetMinMembers)
            ? fmt::format("; fewer than {} GPUs: shown, not judged", kFleetMinMembers)
            : std::string());
  });
  g.add_phrasing("fleet_incomplete", [](const Finding& f) {
    return fmt::format(
        "{}: results from {:g} of {:g} {} GPUs (the others did not run it, or it "
        "failed or was skipped there)",
        param_text_of(f, "probe"), value_of(f, "results"), value_of(f, "gpus"),
        param_text_of(f, "gpu"));
  });
  g.add_term("", "fleet_median", {"median", "the fleet's median of the members' medians"});
  g.add_term("", "spread", {"spread", "1.4826 x median absolute deviation / median [%]"});
  g.add_term("", "fleet_min", {"min", "the lowest member"});
  g.add_term("", "fleet_max", {"max", "the highest member"});
  g.add_term("", "members", {"n", "runs (GPU runs) with this row"});
  g.add_term("", "gpus", {"gpus", "distinct GPUs (by UUID) with this row"});
  g.add_term("", "beyond", {"beyond", "members whose value lies beyond the fleet (fleet_beyond)"});
  return g;
}

}  // namespace gpuprobe
