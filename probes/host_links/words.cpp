// host-links' words (host-only): the findings' sentences and the columns' short headers.
#include <fmt/format.h>

#include <string>

#include "analysis.hpp"

namespace gpuprobe::host_links {
namespace {

constexpr TermEntry kTerms[] = {
    {"solo_bandwidth", "solo GB/s", "the same GPU's bandwidth measured alone"},
    {"slowdown", "slowdown", "solo / concurrent bandwidth: how much slower with every GPU copying"},
    {"loss", "loss", "1 - concurrent / solo bandwidth (the aggregate: against the solos summed)"},
    {"solo_sum", "solo sum", "every GPU's solo bandwidth summed: what no contention would give"},
    {"fraction_of_raw", "of raw", "measured bandwidth / the PCIe link's raw limit (model)"},
    {"gpu_node", "GPU node", "the GPU's NUMA node (sysfs)"},
    {"host_node", "host node", "the NUMA node its pinned host buffer landed on"},
    {"model.raw_limit", "raw GB/s",
     "model: the PCIe link's raw data rate (both directions for bidir; summed for the aggregate)"},
};

std::string concurrent_loss_text(const Finding& f) {
  std::string per_gpu;
  for (const Quantity& q : f.values) {
    if (q.name.rfind("loss_gpu", 0) != 0 || !q.value) continue;
    per_gpu +=
        fmt::format("{}GPU {} {:.0f}%", per_gpu.empty() ? "" : ", ", q.name.substr(8), *q.value);
  }
  return fmt::format(
      "{} {}: all GPUs at once move {} together against {} for their solos summed, a loss of {}{} "
      "(measured)",
      param_text_of(f, "direction"), param_text_of(f, "bytes"), value_text(f, "aggregate"),
      value_text(f, "solo_sum"), value_text(f, "loss"),
      per_gpu.empty() ? "" : "; each GPU loses " + per_gpu);
}

}  // namespace

void add_words(Glossary& g) {
  g.add_phrasing("host_links_slow_link", [](const Finding& f) {
    return fmt::format(
        "GPU {} {} {}: its host link gives {} alone, {:.2f}x the median of its siblings ({}), "
        "below it by more than their spread and the noise ({}): a narrower or slower link, a "
        "remote NUMA node or a shared switch (measured)",
        param_text_of(f, "gpu"), param_text_of(f, "direction"), param_text_of(f, "bytes"),
        value_text(f, "bandwidth"), value_of(f, "ratio"), value_text(f, "others_median"),
        value_text(f, "margin"));
  });
  g.add_phrasing("host_links_links_alike", [](const Finding& f) {
    return fmt::format(
        "{} {}: the {:.0f} GPUs' host links are alike alone ({} to {}): none is slower than its "
        "siblings beyond their spread and the noise (measured)",
        param_text_of(f, "direction"), param_text_of(f, "bytes"), value_of(f, "gpus"),
        value_text(f, "lowest"), value_text(f, "highest"));
  });
  g.add_phrasing("host_links_concurrent_loss", concurrent_loss_text);
  g.add_phrasing("host_links_one_gpu", [](const Finding&) {
    return std::string(
        "one GPU measured: solo rows only; select several GPUs (--device 0,1,2,3 or all) to "
        "measure their host links copying at once");
  });
  g.add_phrasing("host_links_remote_buffer", [](const Finding& f) {
    return fmt::format(
        "GPU {}: its pinned host buffer landed on NUMA node {}, not on the GPU's node {}: its "
        "copies also cross the CPUs' interconnect",
        param_text_of(f, "gpu"), value_of(f, "host_node"), value_of(f, "gpu_node"));
  });
  g.add_phrasing("host_links_plan_each_gpu", [](const Finding&) {
    return std::string(
        "the GPUs are those of the run's --device selection, known at run time: each gets a solo "
        "and a concurrent row per point (gpu 'each'), the concurrent run one aggregate row "
        "(gpu 'all')");
  });
  g.add_terms("host-links", kTerms);
}

}  // namespace gpuprobe::host_links
